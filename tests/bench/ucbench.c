// SPDX-License-Identifier: GPL-2.0
/*
 * ucbench: the usercopy workloads of `make bench`, run in the guest.
 *
 *	ucbench [BUDGET [ROWS]]
 *
 * Under QEMU's -icount shift=0 the guest clock advances one nanosecond per
 * executed instruction, so the nanoseconds an operation takes here are the
 * instructions it executes, exactly repeatable from boot to boot.  Each
 * row prints one line: "bench <row> <instructions per op>".
 *
 * A row is a workload and, where user space picks the size of the copy, a
 * size in bytes ("xattr-get/4096").  Each row runs about BUDGET
 * nanoseconds (instructions; default 20000000): the fixed rate of timer
 * interrupts then adds the same share to every kernel, and a tick more or
 * less in one run moves a row by under 0.05%.  ROWS is a comma-separated
 * list of fnmatch(3) patterns ("xattr-*,fstat"); default all rows.
 *
 * Before the rows and after them, one line of the slab caches' memory:
 * "memory <when> slab=<KiB> unreclaimable=<KiB> caches=<n> kmalloc=<KiB>
 * usercopy-kmalloc=<KiB>": Slab and SUnreclaim of /proc/meminfo, the
 * caches /proc/slabinfo lists, and the slabs of the kmalloc-<size> caches
 * and of the user-data caches (slabs times pages per slab).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <linux/filter.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "slabinfo.h"

#define MAXSIZE 65536

/* User-space ends of the copies; the warm-up run faults them in. */
static char ubuf[MAXSIZE], ubuf2[MAXSIZE];
/* The target of the /proc/self/mem rows. */
static char victim[MAXSIZE];

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

/* Read exactly n bytes from a stream, as many reads as that takes. */
static void read_full(int fd, char *buf, size_t n, const char *what)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);

		if (r <= 0)
			die(what);
		got += r;
	}
}

/*
 * Every workload sets itself up, runs its operation n times and returns
 * the nanoseconds of the n operations alone.
 */

/* write() + read() of size bytes on an AF_UNIX stream: skb data. */
static double unix_stream(size_t size, long n)
{
	int sv[2];
	double t;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		die("socketpair");
	t = now();
	for (long i = 0; i < n; i++) {
		if (write(sv[0], ubuf, size) != (ssize_t)size)
			die("unix-stream write");
		read_full(sv[1], ubuf2, size, "unix-stream read");
	}
	t = now() - t;
	close(sv[0]);
	close(sv[1]);
	return t;
}

/* send() + recv() of one size-byte datagram on an AF_UNIX socket pair. */
static double unix_dgram(size_t size, long n)
{
	int sv[2];
	double t;

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv))
		die("socketpair");
	t = now();
	for (long i = 0; i < n; i++) {
		if (send(sv[0], ubuf, size, 0) != (ssize_t)size ||
		    recv(sv[1], ubuf2, size, 0) != (ssize_t)size)
			die("unix-dgram");
	}
	t = now() - t;
	close(sv[0]);
	close(sv[1]);
	return t;
}

/* The guest's init leaves the loopback interface down. */
static void loopback_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr))
		die("lo");
	if (!(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr))
			die("lo up");
	}
	close(fd);
}

/* send() + recv() of one size-byte UDP datagram over 127.0.0.1. */
static double udp(size_t size, long n)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	int rx = socket(AF_INET, SOCK_DGRAM, 0);
	int tx = socket(AF_INET, SOCK_DGRAM, 0);
	double t;

	if (rx < 0 || tx < 0 || bind(rx, (void *)&a, sizeof(a)) ||
	    getsockname(rx, (void *)&a, &alen) ||
	    connect(tx, (void *)&a, sizeof(a)))
		die("udp socket");
	t = now();
	for (long i = 0; i < n; i++) {
		if (send(tx, ubuf, size, 0) != (ssize_t)size ||
		    recv(rx, ubuf2, size, 0) != (ssize_t)size)
			die("udp");
	}
	t = now() - t;
	close(rx);
	close(tx);
	return t;
}

/* tmpfs in the guest (its init mounts one on /tmp). */
#define XATTR_FILE "/tmp/ucbench.xattr"
#define XATTR_NAME "trusted.ucbench"

static int xattr_file(size_t size)
{
	int fd = open(XATTR_FILE, O_RDWR | O_CREAT, 0600);

	if (fd < 0)
		die(XATTR_FILE);
	if (fsetxattr(fd, XATTR_NAME, ubuf, size, 0))
		die("fsetxattr (tmpfs with CONFIG_TMPFS_XATTR, as root?)");
	return fd;
}

/*
 * fsetxattr() copies the value into a kvmalloc'ed buffer of its size:
 * kmalloc-N up to 8 KiB, pages from kmalloc_large() above.
 */
static double xattr_set(size_t size, long n)
{
	int fd = xattr_file(size);
	double t = now();

	for (long i = 0; i < n; i++)
		if (fsetxattr(fd, XATTR_NAME, ubuf, size, 0))
			die("fsetxattr");
	t = now() - t;
	close(fd);
	unlink(XATTR_FILE);
	return t;
}

/* fgetxattr() copies the value out of a kvzalloc'ed buffer of its size. */
static double xattr_get(size_t size, long n)
{
	int fd = xattr_file(size);
	double t = now();

	for (long i = 0; i < n; i++)
		if (fgetxattr(fd, XATTR_NAME, ubuf2, size) != (ssize_t)size)
			die("fgetxattr");
	t = now() - t;
	close(fd);
	unlink(XATTR_FILE);
	return t;
}

/*
 * /proc/self/mem bounces through a page of __get_free_page(), one copy of
 * up to a page per page of the request.
 */
static double proc_mem(size_t size, long n, int write)
{
	int fd = open("/proc/self/mem", O_RDWR);
	double t;

	if (fd < 0)
		die("/proc/self/mem");
	t = now();
	for (long i = 0; i < n; i++) {
		ssize_t r = write ?
			pwrite(fd, ubuf, size, (off_t)(unsigned long)victim) :
			pread(fd, ubuf2, size, (off_t)(unsigned long)victim);

		if (r != (ssize_t)size)
			die("/proc/self/mem");
	}
	t = now() - t;
	close(fd);
	return t;
}

static double proc_mem_read(size_t size, long n)
{
	return proc_mem(size, n, 0);
}

static double proc_mem_write(size_t size, long n)
{
	return proc_mem(size, n, 1);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * SO_ATTACH_FILTER copies the classic BPF program into the bpf_prog that
 * bpf_prog_alloc() vmallocs; size / 8 instructions, the last a return.
 * The replaced filters are freed later, through RCU and a workqueue, and
 * their vmap areas purged every few thousand frees: a run catches a share
 * of that which varies from boot to boot by more than the check costs.
 * The row reports its median operation instead, less reading the clock.
 */
static double sockfilter(size_t size, long n)
{
	static struct sock_filter insns[8192 / sizeof(struct sock_filter)];
	struct sock_fprog prog = { .len = size / sizeof(insns[0]),
				   .filter = insns };
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	double *op = malloc(n * sizeof(*op)), clock = 1e9, t;

	if (fd < 0 || !op)
		die("socket");
	for (unsigned int i = 0; i + 1 < prog.len; i++)
		insns[i] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_IMM, i);
	insns[prog.len - 1] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, ~0U);
	for (int i = 0; i < 16; i++) {
		t = now();
		t = now() - t;
		if (t < clock)
			clock = t;
	}
	for (long i = 0; i < n; i++) {
		t = now();
		if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
			       sizeof(prog)))
			die("SO_ATTACH_FILTER");
		op[i] = now() - t - clock;
	}
	close(fd);
	qsort(op, n, sizeof(*op), cmp_double);
	t = op[n / 2] * n;
	free(op);
	return t;
}

/* write() + read() of size bytes through a pipe: its pages. */
static double pipe_(size_t size, long n)
{
	int p[2];
	double t;

	if (pipe(p))
		die("pipe");
	t = now();
	for (long i = 0; i < n; i++) {
		if (write(p[1], ubuf, size) != (ssize_t)size)
			die("pipe write");
		read_full(p[0], ubuf2, size, "pipe read");
	}
	t = now() - t;
	close(p[0]);
	close(p[1]);
	return t;
}

/* pread() of size bytes of a tmpfs file: page cache folios. */
static double tmpfs_read(size_t size, long n)
{
	int fd = open("/tmp/ucbench.data", O_RDWR | O_CREAT | O_TRUNC, 0600);
	double t;

	if (fd < 0 || write(fd, ubuf, size) != (ssize_t)size)
		die("/tmp/ucbench.data");
	t = now();
	for (long i = 0; i < n; i++)
		if (pread(fd, ubuf2, size, 0) != (ssize_t)size)
			die("tmpfs pread");
	t = now() - t;
	close(fd);
	unlink("/tmp/ucbench.data");
	return t;
}

/* getsockopt() copies a stack variable of run-time length. */
static double sockopt(size_t size, long n)
{
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0), v;
	socklen_t len;
	double t;

	(void)size;
	if (fd < 0)
		die("socket");
	t = now();
	for (long i = 0; i < n; i++) {
		len = sizeof(v);
		if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, &len))
			die("getsockopt");
	}
	t = now() - t;
	close(fd);
	return t;
}

/* poll() copies the pollfd array into a buffer in its own stack frame. */
static double poll_(size_t size, long n)
{
	struct pollfd pfd[2];
	int p[2];
	double t;

	(void)size;
	if (pipe(p))
		die("pipe");
	pfd[0] = (struct pollfd){ .fd = p[0], .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = p[1], .events = POLLOUT };
	t = now();
	for (long i = 0; i < n; i++)
		if (poll(pfd, 2, 0) != 1)
			die("poll");
	t = now() - t;
	close(p[0]);
	close(p[1]);
	return t;
}

/*
 * readv() copies the iovec array into a stack buffer two calls up from the
 * copy (do_readv() -> import_iovec() -> iovec_from_user()).
 */
static double readv_(size_t size, long n)
{
	int fd = open("/dev/zero", O_RDONLY);
	char a[8], b[8];
	struct iovec iov[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	double t;

	(void)size;
	if (fd < 0)
		die("/dev/zero");
	t = now();
	for (long i = 0; i < n; i++)
		if (readv(fd, iov, 2) != sizeof(a) + sizeof(b))
			die("readv");
	t = now() - t;
	close(fd);
	return t;
}

/* A seq_file read: the copy comes from its kvmalloc'ed buffer. */
static double procstat(size_t size, long n)
{
	int fd = open("/proc/self/stat", O_RDONLY);
	double t;

	(void)size;
	if (fd < 0)
		die("/proc/self/stat");
	t = now();
	for (long i = 0; i < n; i++)
		if (pread(fd, ubuf2, 4096, 0) <= 0)
			die("pread");
	t = now() - t;
	close(fd);
	return t;
}

/* glibc's fstat() is newfstatat(fd, "", AT_EMPTY_PATH): a path copy. */
static double fstat_(size_t size, long n)
{
	struct stat st;
	double t = now();

	(void)size;
	for (long i = 0; i < n; i++)
		if (fstat(0, &st))
			die("fstat");
	return now() - t;
}

static double getppid_(size_t size, long n)
{
	double t = now();

	(void)size;
	for (long i = 0; i < n; i++)
		getppid();
	return now() - t;
}

/*
 * Hackbench-style messaging: 4 groups of a sender and a receiver process
 * exchanging 100-byte messages over AF_UNIX sockets; n messages in all,
 * fork and scheduling included.
 */
static double messaging(size_t size, long n)
{
	const int groups = 4;
	char buf[100] = { 0 };
	double t = now();

	(void)size;
	for (int g = 0; g < groups; g++) {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
			die("socketpair");
		if (fork() == 0) {
			for (long i = 0; i < n / groups; i++)
				if (write(sv[0], buf, sizeof(buf)) != sizeof(buf))
					_exit(1);
			_exit(0);
		}
		if (fork() == 0) {
			for (long i = 0; i < n / groups; i++)
				read_full(sv[1], buf, sizeof(buf), "messaging");
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
	return now() - t;
}

static const struct workload {
	const char *name;
	double (*run)(size_t size, long n);
	size_t sizes[6];	/* 0-terminated; none: a row without a size */
	/*
	 * Operations per run where the run has a set-up cost of its own
	 * (fork), which the count must not change from kernel to kernel;
	 * 0: as many as fit in the budget.
	 */
	long ops;
} workloads[] = {
	{ "unix-stream", unix_stream, { 8, 64, 512, 4096, 65536 }, 0 },
	{ "unix-dgram", unix_dgram, { 8, 64, 512, 4096, 65536 }, 0 },
	/* 65507: the largest UDP payload over IPv4. */
	{ "udp", udp, { 16, 8192, 65507 }, 0 },
	/*
	 * Both calls also copy the attribute's name into a stack buffer:
	 * the rows of an empty value, which copy nothing else, show what
	 * that costs.
	 */
	{ "xattr-set/0", xattr_set, { 0 }, 0 },
	{ "xattr-set", xattr_set, { 8, 64, 512, 4096, 65536 }, 0 },
	{ "xattr-get/0", xattr_get, { 0 }, 0 },
	{ "xattr-get", xattr_get, { 8, 64, 512, 4096, 65536 }, 0 },
	{ "proc-mem-write", proc_mem_write, { 8, 64, 512, 4096, 65536 }, 0 },
	{ "proc-mem-read", proc_mem_read, { 8, 64, 512, 4096, 65536 }, 0 },
	/*
	 * The socket's option memory (net.core.optmem_max, 20 KiB) holds the
	 * old and the new filter while one replaces the other: 8 KiB at most.
	 */
	{ "sockfilter", sockfilter, { 8, 64, 512, 4096, 8192 }, 0 },
	{ "pipe", pipe_, { 4096 }, 0 },
	{ "tmpfs-read", tmpfs_read, { 65536 }, 0 },
	{ "getsockopt", sockopt, { 0 }, 0 },
	{ "poll", poll_, { 0 }, 0 },
	{ "readv", readv_, { 0 }, 0 },
	{ "proc-stat", procstat, { 0 }, 0 },
	{ "fstat", fstat_, { 0 }, 0 },
	{ "getppid", getppid_, { 0 }, 0 },
	{ "messaging", messaging, { 0 }, 2000 },
};

static void run_row(const struct workload *wl, size_t size, const char *row,
		    double budget)
{
	long n = wl->ops;

	/*
	 * Warm caches and the page tables of the path, then size the run
	 * from a short one.
	 */
	wl->run(size, 4);
	if (!n) {
		n = budget / (wl->run(size, 16) / 16);
		if (n < 16)
			n = 16;
	}
	printf("bench %s %.1f %ld\n", row, wl->run(size, n) / n, n);
}

/* A field of /proc/meminfo in KiB; -1 if the kernel has none. */
static long meminfo_kib(const char *field)
{
	char line[256];
	long kib = -1;
	size_t len = strlen(field);
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, len) && line[len] == ':')
			kib = atol(line + len + 1);
	if (f)
		fclose(f);
	return kib;
}

static void slab_memory(const char *when)
{
	int caches, n;

	slab_kib("", &caches);
	printf("memory %s slab=%ld unreclaimable=%ld caches=%d kmalloc=%ld usercopy-kmalloc=%ld\n",
	       when, meminfo_kib("Slab"), meminfo_kib("SUnreclaim"), caches,
	       slab_kib("kmalloc-", &n), slab_kib("usercopy-kmalloc-", &n));
	fflush(stdout);
}

static int selected(const char *row, const char *rows)
{
	char pats[1024], *save, *p;

	snprintf(pats, sizeof(pats), "%s", rows);
	for (p = strtok_r(pats, ",", &save); p; p = strtok_r(NULL, ",", &save))
		if (!fnmatch(p, row, 0))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	double budget = argc > 1 ? atof(argv[1]) : 2e7;
	const char *rows = argc > 2 ? argv[2] : "*";

	memset(ubuf, 'u', sizeof(ubuf));
	memset(victim, 'v', sizeof(victim));
	slab_memory("boot");
	loopback_up();
	printf("# measured\n");
	for (size_t w = 0; w < sizeof(workloads) / sizeof(workloads[0]); w++) {
		const struct workload *wl = &workloads[w];

		for (int s = 0; s == 0 || (s < 6 && wl->sizes[s]); s++) {
			size_t size = wl->sizes[s];
			char row[64];

			if (size)
				snprintf(row, sizeof(row), "%s/%zu", wl->name, size);
			else
				snprintf(row, sizeof(row), "%s", wl->name);
			if (!selected(row, rows))
				continue;
			/* A row that fails leaves the others to run. */
			fflush(stdout);
			if (fork() == 0) {
				run_row(wl, size, row, budget);
				exit(0);
			}
			wait(NULL);
		}
	}
	slab_memory("rows");
	return 0;
}
