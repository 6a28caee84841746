// SPDX-License-Identifier: GPL-2.0
/*
 * jl-stress [N]: the mode-switch stress of usercopy-test, without usercopy
 * hardening.  N times (default 10000) it flips the unpatched kernel's
 * static key rfs_needed through net.core.rps_sock_flow_entries, while two
 * processes run the key's jump sites in the module jl_rfs and in the
 * kernel (recvmsg on a UDP socket), and a third unloads and loads jl_rfs.
 * Prints KTAP (tests/lib/ktap.h); an int3 oops shows in the kernel log.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "uc-sysctl.h"

#define RUN "/sys/kernel/debug/jl_rfs/run"
#define KO "/lib/modules/jl_rfs.ko"
#define SYSCTL "/proc/sys/net/core/rps_sock_flow_entries"

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* Opens of jl_rfs's file and its unloads exclude each other (debugfs). */
static int reload_lock(int how)
{
	static int fd = -1;

	if (fd < 0)
		fd = open("/tmp/jl-reload.lock", O_RDWR | O_CREAT | O_CLOEXEC,
			  0600);
	return fd < 0 ? -1 : flock(fd, how);
}

static int load(void)
{
	int fd = open(KO, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return errno;
	err = syscall(SYS_finit_module, fd, "", 0) ? errno : 0;
	close(fd);
	return err == EEXIST ? 0 : err;
}

static int runner(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	char buf[8];
	int fd;

	signal(SIGTERM, on_term);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(s, (struct sockaddr *)&a, &alen))
		return 1;
	while (!stop) {
		if (reload_lock(LOCK_SH))
			return 1;
		fd = open(RUN, O_RDONLY);
		if (fd >= 0) {
			if (read(fd, buf, sizeof(buf)) < 0)
				return 1;
			close(fd);
		}
		reload_lock(LOCK_UN);
		if (sendto(s, buf, 1, 0, (struct sockaddr *)&a, alen) != 1 ||
		    recv(s, buf, sizeof(buf), 0) != 1)
			return 1;
	}
	return 0;
}

static int reloader(void)
{
	int loads = 0;

	signal(SIGTERM, on_term);
	while (!stop) {
		if (reload_lock(LOCK_EX))
			return 100;
		if (syscall(SYS_delete_module, "jl_rfs", O_NONBLOCK) &&
		    errno != ENOENT) {
			reload_lock(LOCK_UN);
			continue;
		}
		if (load())
			return 100;
		reload_lock(LOCK_UN);
		loads++;
	}
	return loads > 99 ? 99 : loads;
}

/* The guest's /init leaves the loopback interface down. */
static int loopback_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int s = socket(AF_INET, SOCK_DGRAM, 0), err;

	if (s < 0)
		return -1;
	err = ioctl(s, SIOCGIFFLAGS, &ifr);
	ifr.ifr_flags |= IFF_UP;
	err = err ? err : ioctl(s, SIOCSIFFLAGS, &ifr);
	close(s);
	return err;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10000, i, errs = 0, bad = 0;
	int loads = -1, status, err;
	pid_t kids[3];

	ktap_print_header();
	ktap_print_msg("jl-stress: %d flips of rfs_needed", n);
	if (loopback_up()) {
		ktap_test_fail("bring up lo: %s", strerror(errno));
		return ktap_finished();
	}
	err = load();
	if (err) {
		ktap_test_fail("load %s: %s", KO, strerror(err));
		return ktap_finished();
	}
	for (i = 0; i < 3; i++) {
		kids[i] = fork();
		if (kids[i] == 0)
			_exit(i < 2 ? runner() : reloader());
	}
	for (i = 0; i < n; i++) {
		const char *v = i % 2 ? "0\n" : "32768\n";

		errs += uc_file_write(SYSCTL, v, strlen(v)) != 0;
	}
	for (i = 0; i < 3; i++) {
		kill(kids[i], SIGTERM);
		waitpid(kids[i], &status, 0);
		if (i == 2)
			loads = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		else if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	}
	ktap_test_result(!errs, "%d flips of rfs_needed: all accepted", n);
	ktap_test_result(!bad, "the jump sites ran in the module and the kernel meanwhile");
	ktap_test_result(loads > 0 && loads < 100,
			 "jl_rfs was unloaded and loaded again %d times meanwhile",
			 loads);
	return ktap_finished();
}
