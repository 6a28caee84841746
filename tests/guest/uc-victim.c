// SPDX-License-Identifier: GPL-2.0
/*
 * uc-victim: the attacker of the demo and of the guest tests.  Performs
 * exactly one bad copy through the deliberately buggy driver uc_buggy
 * (tests/kmod) and says in plain words what came back.  Exits 0 if the
 * copy went through, 1 if the kernel refused it; a kernel in enforce mode
 * kills it with SIGKILL first.
 *
 *   uc-victim leak-slab|leak-whitelist|leak-stack|overwrite-whitelist [LEN]
 *   uc-victim legit      in-bounds copies of every file; exit 0 if all work
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DIR "/sys/kernel/debug/uc_buggy/"

static int file(const char *name, int flags)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), DIR "%s", name);
	fd = open(path, flags);
	if (fd < 0) {
		fprintf(stderr, "uc-victim: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	return fd;
}

/* Read LEN bytes where FIELD bytes are legitimate. */
static int leak(const char *name, size_t len, size_t field)
{
	char buf[256];
	int fd = file(name, O_RDONLY);
	ssize_t got;

	printf("read %zu bytes from uc_buggy/%s (a %zu-byte field): ",
	       len, name, field);
	fflush(stdout);
	got = read(fd, buf, len);
	if (got < 0) {
		printf("failed: %s\n", strerror(errno));
		return 1;
	}
	printf("got %zd bytes", got);
	if ((size_t)got > field)
		printf(", %zu of them kernel memory beyond the field",
		       (size_t)got - field);
	printf("\n");
	return 0;
}

static int overwrite(size_t len)
{
	char buf[256];
	int fd = file("whitelist", O_WRONLY);
	ssize_t put;

	memset(buf, 'A', sizeof(buf));
	printf("write %zu bytes to uc_buggy/whitelist (a 32-byte field): ",
	       len);
	fflush(stdout);
	put = write(fd, buf, len);
	if (put < 0) {
		printf("failed: %s\n", strerror(errno));
		return 1;
	}
	printf("wrote %zd bytes\n", put);
	return 0;
}

static int legit(void)
{
	char buf[64];
	int bad = 0, fd;

	fd = file("slab", O_RDONLY);
	bad |= read(fd, buf, 64) != 64;
	close(fd);
	fd = file("whitelist", O_RDWR);
	bad |= read(fd, buf, 32) != 32;
	memset(buf, 'W', 32);
	bad |= write(fd, buf, 32) != 32;
	close(fd);
	fd = file("stack", O_RDONLY);
	bad |= read(fd, buf, 32) != 32;
	close(fd);
	printf("in-bounds copies: %s\n", bad ? "FAILED" : "all fine");
	return bad;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	size_t len = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;

	if (len > 256)
		len = 256;
	if (!strcmp(what, "leak-slab"))
		return leak("slab", len ?: 128, 64);
	if (!strcmp(what, "leak-whitelist"))
		return leak("whitelist", len ?: 64, 32);
	if (!strcmp(what, "leak-stack"))
		return leak("stack", len ?: 128, 32);
	if (!strcmp(what, "overwrite-whitelist"))
		return overwrite(len ?: 64);
	if (!strcmp(what, "legit"))
		return legit();
	fprintf(stderr,
		"usage: uc-victim leak-slab|leak-whitelist|leak-stack|overwrite-whitelist [LEN]\n"
		"       uc-victim legit\n");
	return 2;
}
