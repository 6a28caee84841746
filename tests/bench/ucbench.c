// SPDX-License-Identifier: GPL-2.0
/*
 * ucbench: the usercopy workloads of `make bench`, run in the guest.
 *
 * Under QEMU's -icount shift=0 the guest clock advances one nanosecond per
 * executed instruction, so the nanoseconds an operation takes here are the
 * instructions it executes, exactly repeatable from boot to boot.  Each
 * workload prints one line: "bench <name> <instructions per op>".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long ops = 20000;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "ucbench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void report(const char *name, double start, long n)
{
	printf("bench %s %.1f\n", name, (now() - start) / n);
	fflush(stdout);
}

/* 64-byte messages through an AF_UNIX stream: two slab copies per op. */
static void unix64(void)
{
	char buf[64] = { 1 };
	int sv[2];
	double t;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		die("socketpair");
	t = now();
	for (long i = 0; i < ops; i++) {
		if (write(sv[0], buf, sizeof(buf)) != sizeof(buf) ||
		    read(sv[1], buf, sizeof(buf)) != sizeof(buf))
			die("unix64");
	}
	report("unix64", t, ops);
	close(sv[0]);
	close(sv[1]);
}

/* getsockopt() copies a stack variable of run-time length. */
static void sockopt(void)
{
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0), v;
	socklen_t len;
	double t;

	if (fd < 0)
		die("socket");
	t = now();
	for (long i = 0; i < ops; i++) {
		len = sizeof(v);
		if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, &len))
			die("getsockopt");
	}
	report("getsockopt", t, ops);
	close(fd);
}

/* poll() copies the pollfd array into a buffer in its own stack frame. */
static void poll_(void)
{
	struct pollfd pfd[2];
	int p[2];
	double t;

	if (pipe(p))
		die("pipe");
	pfd[0] = (struct pollfd){ .fd = p[0], .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = p[1], .events = POLLOUT };
	t = now();
	for (long i = 0; i < ops; i++)
		if (poll(pfd, 2, 0) != 1)
			die("poll");
	report("poll", t, ops);
	close(p[0]);
	close(p[1]);
}

/*
 * readv() copies the iovec array into a stack buffer two calls up from the
 * copy (do_readv() -> import_iovec() -> iovec_from_user()).
 */
static void readv_(void)
{
	int fd = open("/dev/zero", O_RDONLY);
	char a[8], b[8];
	struct iovec iov[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	double t;

	if (fd < 0)
		die("/dev/zero");
	t = now();
	for (long i = 0; i < ops; i++)
		if (readv(fd, iov, 2) != sizeof(a) + sizeof(b))
			die("readv");
	report("readv", t, ops);
	close(fd);
}

/* A seq_file read: the copy comes from its kvmalloc'ed buffer. */
static void procstat(void)
{
	int fd = open("/proc/self/stat", O_RDONLY);
	char buf[4096];
	double t;

	if (fd < 0)
		die("/proc/self/stat");
	t = now();
	for (long i = 0; i < ops / 4; i++)
		if (pread(fd, buf, sizeof(buf), 0) <= 0)
			die("pread");
	report("proc-stat", t, ops / 4);
	close(fd);
}

/* glibc's fstat() is newfstatat(fd, "", AT_EMPTY_PATH): a path copy. */
static void fstat_(void)
{
	struct stat st;
	double t;

	t = now();
	for (long i = 0; i < ops; i++)
		if (fstat(0, &st))
			die("fstat");
	report("fstat", t, ops);
}

static void getppid_(void)
{
	double t = now();

	for (long i = 0; i < ops; i++)
		getppid();
	report("getppid", t, ops);
}

/*
 * Hackbench-style messaging: 4 groups of a sender and a receiver process
 * exchanging 100-byte messages over AF_UNIX sockets; per message.
 */
static void messaging(void)
{
	const int groups = 4, msgs = 500;
	char buf[100] = { 0 };
	double t = now();

	for (int g = 0; g < groups; g++) {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
			die("socketpair");
		if (fork() == 0) {
			for (int i = 0; i < msgs; i++)
				if (write(sv[0], buf, sizeof(buf)) != sizeof(buf))
					_exit(1);
			_exit(0);
		}
		if (fork() == 0) {
			for (int i = 0; i < msgs; i++) {
				size_t got = 0;

				while (got < sizeof(buf)) {
					ssize_t r = read(sv[1], buf, sizeof(buf) - got);

					if (r <= 0)
						_exit(1);
					got += r;
				}
			}
			_exit(0);
		}
		close(sv[0]);
		close(sv[1]);
	}
	for (int i = 0; i < 2 * groups; i++) {
		int status;

		if (wait(&status) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			die("messaging child");
	}
	report("messaging", t, groups * msgs);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		ops = atol(argv[1]);
	/* Warm caches and the page tables of every path once. */
	long saved = ops;

	ops = 100;
	unix64(); sockopt(); poll_(); readv_(); procstat(); fstat_(); getppid_();
	ops = saved;
	printf("# measured\n");
	unix64();
	sockopt();
	poll_();
	readv_();
	procstat();
	fstat_();
	getppid_();
	messaging();
	return 0;
}
