// SPDX-License-Identifier: GPL-2.0
/*
 * usercopy-test: the guest's tests of the kernel interface of the
 * usercopy-hardening series (sysctls, reaction, reports).  Prints KTAP
 * (tests/lib/ktap.h) and exits 1 if anything failed.
 *
 *   usercopy-test violations
 *	every bad copy of tests/kmod's uc_buggy, in the current mode: was the
 *	process killed, did kernel bytes reach user space, the counter, the
 *	kernel log line, the audit record live from the audit multicast group
 *	and in auditd's log; and in-bounds copies that must never be reported
 *   usercopy-test sysctl	bad input and privilege checks of the sysctls
 *   usercopy-test mode-switch [N]
 *	N mode changes (default 10000) while two processes copy through core
 *	code and the test module, and a third unloads and loads the module
 *   usercopy-test irq	a bad copy made in a hard interrupt: reported as
 *	the interrupt's, and the interrupted process is not killed
 *   usercopy-test flood [N]
 *	N bad copies (default 100000) from one call site in log mode, with
 *	auditctl -f 2 (panic if a record is lost): every one counted, a
 *	bounded number of audit records whose suppressed= counts add up to N
 *   usercopy-test whitelist
 *	the cache whitelist: SLAB_USERCOPY, regions and unlisted caches in
 *	/proc/usercopy/whitelist, the per-site counters, and the admin's
 *	kernel.usercopy.allow (it cannot be undone: run it after the suites
 *	that expect uc_buggy_nowl refused, and before any lock)
 *   usercopy-test strict	in log mode, with the kmalloc caches off the
 *	whitelist (usercopy_kmalloc=strict or its Kconfig default):
 *	the kmalloc caches lost their whitelist, the usercopy-kmalloc ones
 *	kept it; the callers that still copy from kmalloc caches, from
 *	/proc/usercopy/sites, as diagnostics
 *   usercopy-test rawmem	/dev/mem and /proc/kcore, which copy raw memory
 *	unchecked, read without a violation
 *   usercopy-test lock		the one-way lock (last: it cannot be undone)
 *   usercopy-test slab-kib PREFIX	"KIB CACHES": the memory of the slab
 *	caches PREFIX<size> (not a test; tests/guest/stress.sh reports it)
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "slabinfo.h"
#include "uc-auditnl.h"
#include "uc-sysctl.h"

#define RECORD_MAX 8970	/* MAX_AUDIT_MESSAGE_LENGTH of libaudit */

#ifndef AUDIT_ANOM_USERCOPY
#define AUDIT_ANOM_USERCOPY 1790
#endif

#define SYSCTL "/proc/sys/kernel/usercopy/"
#define BUGGY "/sys/kernel/debug/uc_buggy/"
#define AUDIT_LOG "/var/log/audit/audit.log"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* ---- sysctls --------------------------------------------------------- */

static void sysctl_read(const char *name, char *buf, size_t size)
{
	char path[128];

	snprintf(path, sizeof(path), SYSCTL "%s", name);
	uc_file_read(path, buf, size);
}

static long sysctl_long(const char *name)
{
	char buf[64];

	sysctl_read(name, buf, sizeof(buf));
	return strtol(buf, NULL, 10);
}

static const char *mode(void)
{
	static char buf[32];

	sysctl_read("mode", buf, sizeof(buf));
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* Returns 0 if the write was accepted, else the errno of open or write. */
static int sysctl_write(const char *name, const char *data, size_t len)
{
	char path[128];

	snprintf(path, sizeof(path), SYSCTL "%s", name);
	return uc_file_write(path, data, len);
}

static int set_mode(const char *m)
{
	return sysctl_write("mode", m, strlen(m));
}

/* ---- kernel log ------------------------------------------------------ */

static int kmsg_fd = -1;

static void kmsg_mark(void)
{
	if (kmsg_fd < 0)
		kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	lseek(kmsg_fd, 0, SEEK_END);
}

/* The kernel log since kmsg_mark(), one message per line. */
static char *kmsg_since(void)
{
	static char log[1 << 16];
	char rec[8192];
	size_t used = 0;
	ssize_t n;

	log[0] = '\0';
	while ((n = read(kmsg_fd, rec, sizeof(rec) - 1)) > 0 ||
	       (n < 0 && errno == EPIPE)) {
		char *msg;

		if (n < 0)
			continue;
		rec[n] = '\0';
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		msg++;
		msg[strcspn(msg, "\n")] = '\0';
		if (used + strlen(msg) + 2 < sizeof(log))
			used += sprintf(log + used, "%s\n", msg);
	}
	return log;
}

/* The line of @log that contains all the strings of @want, or NULL. */
static const char *find_line(const char *log, const char *const *want,
			     int nwant, char *line, size_t size)
{
	const char *p = log;

	while (*p) {
		size_t len = strcspn(p, "\n");
		int i;

		snprintf(line, size, "%.*s", (int)len, p);
		for (i = 0; i < nwant && strstr(line, want[i]); i++)
			;
		if (i == nwant)
			return line;
		p += len + (p[len] == '\n');
	}
	return NULL;
}

/* ---- audit ----------------------------------------------------------- */

static int audit_fd = -1;

static int audit_open(void)
{
	audit_fd = uc_auditnl_open();
	if (audit_fd < 0) {
		ktap_test_fail("join the audit multicast group: %s",
			       strerror(-audit_fd));
		return -1;
	}
	return 0;
}

/*
 * Wait up to @ms for a record of @type whose text contains every string
 * of @want; copy it to @out.
 */
static int audit_wait(int type, const char *const *want, int nwant, int ms,
		      char *out, size_t size)
{
	long long end = now_ms() + ms;
	char buf[RECORD_MAX + NLMSG_HDRLEN];

	for (;;) {
		struct pollfd pfd = { .fd = audit_fd, .events = POLLIN };
		long long left = end - now_ms();
		const char *text;
		int i, got;
		long len;

		if (left < 0 || poll(&pfd, 1, (int)left) <= 0)
			return 0;
		len = uc_auditnl_recv(audit_fd, buf, sizeof(buf), &got, &text);
		if (len <= 0 || got != type)
			continue;
		snprintf(out, size, "%.*s", (int)len, text);
		for (i = 0; i < nwant && strstr(out, want[i]); i++)
			;
		if (i == nwant)
			return 1;
	}
}

static void audit_drain(void)
{
	char buf[RECORD_MAX + NLMSG_HDRLEN];

	while (recv(audit_fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

/* 1 if auditd's log has a line with all of @want (polling up to 5 s). */
static int auditd_has(const char *const *want, int nwant)
{
	long long end = now_ms() + 5000;
	char line[4096];

	do {
		FILE *f = fopen(AUDIT_LOG, "r");

		if (!f)
			return -1;
		while (fgets(line, sizeof(line), f)) {
			int i;

			for (i = 0; i < nwant && strstr(line, want[i]); i++)
				;
			if (i == nwant) {
				fclose(f);
				return 1;
			}
		}
		fclose(f);
		usleep(100000);
	} while (now_ms() < end);
	return 0;
}

/* ---- uc_buggy -------------------------------------------------------- */

static void buggy_state(char *buf, size_t size)
{
	int fd = open(BUGGY "state", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (fd >= 0)
		close(fd);
}

static void buggy_reset(void)
{
	int fd = open(BUGGY "state", O_WRONLY);

	if (fd >= 0) {
		if (write(fd, "reset", 5) != 5)
			perror("reset");
		close(fd);
	}
}

/*
 * pread() (@out 0) or pwrite() @len bytes of @buf at @off of uc_buggy/@file:
 * 0 if all of it was copied, 1 if the file is not there (the module is
 * not loaded), -1 if the copy failed or fell short.
 */
static int buggy_copy_at(const char *file, int out, char *buf, size_t len,
			 off_t off)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), BUGGY "%s", file);
	fd = open(path, out ? O_WRONLY : O_RDONLY);
	if (fd < 0)
		return 1;
	n = out ? pwrite(fd, buf, len, off) : pread(fd, buf, len, off);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

static int buggy_copy(const char *file, int out, char *buf, size_t len)
{
	return buggy_copy_at(file, out, buf, len, 0);
}

static int tap_line(const char *found, const char *name, const char *m)
{
	if (found)
		ktap_test_result(1, "%s in %s mode: kernel log: %s", name, m, found);
	else
		ktap_test_result(0, "%s in %s mode: the kernel log line", name, m);
	return found != NULL;
}

struct scenario {
	const char *name;
	const char *file;
	int overwrite;		/* copy_from_user() into the kernel */
	size_t len, field;	/* length of the copy, of the legitimate part */
	const char *log;	/* what the kernel log line says */
	const char *record;	/* what the audit record says */
	int always_refused;	/* an object of known size: refused in any mode */
	int enforce_only;	/* would smash the kernel stack if allowed */
};

static const struct scenario scenarios[] = {
	{ "leak-slab", "slab", 0, 128, 64,
	  "exposure of slab object (cache kmalloc-64, offset 0, len 128)",
	  "op=exposure region=slab cache=kmalloc-64 offset=0 len=128 ", 0, 0 },
	{ "leak-whitelist", "whitelist", 0, 64, 32,
	  "exposure of slab object (cache uc_buggy_wl, offset 32, len 64)",
	  "op=exposure region=slab cache=uc_buggy_wl offset=32 len=64 ", 0, 0 },
	{ "overwrite-whitelist", "whitelist", 1, 64, 32,
	  "overwrite of slab object (cache uc_buggy_wl, offset 32, len 64)",
	  "op=overwrite region=slab cache=uc_buggy_wl offset=32 len=64 ", 0, 0 },
	{ "leak-flag", "flag", 0, 128, 96,
	  "exposure of slab object (cache uc_buggy_flag, offset 0, len 128)",
	  "op=exposure region=slab cache=uc_buggy_flag offset=0 len=128 ", 0, 0 },
	{ "leak-nowl", "nowl", 0, 8, 0,
	  "exposure of slab object (cache uc_buggy_nowl, offset 0, len 8)",
	  "op=exposure region=slab cache=uc_buggy_nowl offset=0 len=8 ", 0, 0 },
	/*
	 * Far enough to leave any frame of stack_copy(): with a stack
	 * protector its 32-byte buffer, the canary and the saved registers
	 * fill 64 bytes, all inside the frame, which is what a stack copy
	 * is bounded by.
	 */
	{ "leak-stack", "stack", 0, 128, 32,
	  "exposure of stack object (",
	  "op=exposure region=stack cache=? ", 0, 0 },
	{ "overwrite-stack", "stack", 1, 256, 32,
	  "overwrite of stack object (",
	  "op=overwrite region=stack cache=? ", 0, 1 },
	{ "leak-fixed", "fixed", 0, 64, 32,
	  "exposure of object of known size (offset 0, len 64)",
	  "op=exposure region=object cache=? offset=0 len=64 ", 1, 0 },
	{ "leak-bounce", "bounce", 0, 64, 32,
	  "exposure of object of known size (offset 0, len 64)",
	  "op=exposure region=object cache=? offset=0 len=64 ", 1, 0 },
};

static void run_scenario(const struct scenario *s, const char *m)
{
	int caught = strcmp(m, "off") != 0;
	int enforce = !strcmp(m, "enforce");
	int refused = (enforce && caught) || s->always_refused;
	char pidstr[32], kpid[32], state[64], line[1024], rec[2048];
	const char *want[5];
	unsigned char *shared;
	long before, after;
	int status, leaked = 0;
	pid_t pid;
	size_t i;

	if (s->enforce_only && !enforce) {
		ktap_test_skip("allowed, it would smash the kernel stack",
			       "%s in %s mode", s->name, m);
		return;
	}
	shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED) {
		ktap_test_result(0, "%s: mmap: %s", s->name, strerror(errno));
		return;
	}
	memset(shared, s->overwrite ? 'A' : 0, 4096);
	buggy_reset();
	audit_drain();
	kmsg_mark();
	before = sysctl_long("violations");

	pid = fork();
	if (pid == 0)
		_exit(buggy_copy(s->file, s->overwrite, (char *)shared,
				 s->len) ? 1 : 0);
	waitpid(pid, &status, 0);
	after = sysctl_long("violations");
	snprintf(pidstr, sizeof(pidstr), "pid=%d ", pid);
	snprintf(kpid, sizeof(kpid), "pid %d ", pid);

	if (enforce && caught)
		ktap_test_result(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
				 "%s in %s mode: the process was killed by SIGKILL", s->name, m);
	else if (refused)
		ktap_test_result(WIFEXITED(status) && WEXITSTATUS(status) == 1,
				 "%s in %s mode: the copy failed and the process lives",
				 s->name, m);
	else
		ktap_test_result(WIFEXITED(status) && WEXITSTATUS(status) == 0,
				 "%s in %s mode: the copy went through and the process lives",
				 s->name, m);

	if (s->overwrite) {
		buggy_state(state, sizeof(state));
		if (enforce && caught)
			ktap_test_result(!strcmp(state, "intact"),
					 "%s in %s mode: the kernel object is intact (%s)",
					 s->name, m, state);
		else
			ktap_test_result(!strncmp(state, "corrupted", 9),
					 "%s in %s mode: the overwrite happened (%s)",
					 s->name, m, state);
		buggy_reset();
	} else {
		for (i = s->field; i < s->len; i++)
			leaked += shared[i] != 0;
		if (refused) {
			for (i = 0; i < s->len; i++)
				leaked += shared[i] != 0;
			ktap_test_result(!leaked, "%s in %s mode: no kernel byte reached user space",
					 s->name, m);
		} else {
			ktap_test_result(leaked > 0, "%s in %s mode: the copy leaked %d bytes beyond the field",
					 s->name, m, leaked);
		}
	}

	ktap_test_result(after - before == (caught ? 1 : 0),
			 "%s in %s mode: kernel.usercopy.violations went up by %d (%ld)",
			 s->name, m, caught, after - before);

	want[0] = "usercopy: ";
	want[1] = s->log;
	want[2] = kpid;
	if (caught) {
		char tail[64];

		snprintf(tail, sizeof(tail), "mode %s: copy %s", m,
			 enforce ? "refused, process killed" :
			 refused ? "refused" : "allowed");
		want[3] = tail;
		/* The call site, never a tracer's return hook. */
		want[4] = " [uc_buggy], pid ";
		if (!tap_line(find_line(kmsg_since(), want, 5, line, sizeof(line)),
			      s->name, m))
			ktap_diag(kmsg_since());
	} else {
		want[1] = kpid;
		ktap_test_result(!find_line(kmsg_since(), want, 2, line, sizeof(line)),
				 "%s in %s mode: no kernel log line", s->name, m);
	}

	want[0] = s->record;
	want[1] = pidstr;
	if (caught) {
		want[2] = enforce ? " permissive=0 res=0" :
			  refused ? " permissive=1 res=0" : " permissive=1 res=1";
		if (audit_wait(AUDIT_ANOM_USERCOPY, want, 3, 3000, rec, sizeof(rec)))
			ktap_test_result(1, "%s in %s mode: live audit record: %s", s->name, m, rec);
		else
			ktap_test_result(0, "%s in %s mode: live audit record with '%s', '%s', '%s'",
					 s->name, m, want[0], want[1], want[2]);
		want[2] = want[2] + 1;
		want[3] = "type=UNKNOWN[1790] ";
		switch (auditd_has(want, 4)) {
		case 1:
			ktap_test_result(1, "%s in %s mode: the record is in auditd's log", s->name, m);
			break;
		case 0:
			ktap_test_result(0, "%s in %s mode: the record is in auditd's log", s->name, m);
			break;
		default:
			ktap_test_skip("auditd not running", "%s in %s mode: auditd's log",
				       s->name, m);
		}
	} else {
		ktap_test_result(!audit_wait(AUDIT_ANOM_USERCOPY, want + 1, 1, 1000, rec,
					     sizeof(rec)),
				 "%s in %s mode: no audit record", s->name, m);
	}
	munmap(shared, 4096);
}

/* Copies inside the objects: never refused, never reported. */
static void legit(const char *m)
{
	char buf[96];
	long before = sysctl_long("violations");
	int bad = 0;

	kmsg_mark();
	memset(buf, 'W', sizeof(buf));
	bad |= buggy_copy("slab", 0, buf, 64);
	bad |= buggy_copy("flag", 0, buf, 96);
	bad |= buggy_copy("whitelist", 0, buf, 32);
	bad |= buggy_copy("whitelist", 0, buf + 8, 8);
	memset(buf, 'W', sizeof(buf));
	bad |= buggy_copy("whitelist", 1, buf, 32);
	bad |= buggy_copy("stack", 0, buf, 32);
	bad |= buggy_copy("stack", 1, buf, 32);
	ktap_test_result(!bad, "in-bounds copies work in %s mode", m);
	ktap_test_result(sysctl_long("violations") == before,
			 "in-bounds copies are not counted in %s mode", m);
	ktap_test_result(!strstr(kmsg_since(), "usercopy: "),
			 "in-bounds copies are not reported in %s mode", m);
}

static int cmd_violations(void)
{
	char m[32];
	size_t i;

	snprintf(m, sizeof(m), "%s", mode());
	ktap_print_msg("mode %s", m);
	if (audit_open())
		return 1;
	legit(m);
	for (i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		run_scenario(&scenarios[i], m);
	return ktap_finished();
}

/* ---- sysctls: bad input and privileges ---------------------------------- */

static void refused(const char *name, const char *data, size_t len,
		    const char *what, int err1, int err2)
{
	char before[64], after[64];
	int err;

	sysctl_read(name, before, sizeof(before));
	err = sysctl_write(name, data, len);
	sysctl_read(name, after, sizeof(after));
	ktap_test_result((err == err1 || err == err2) && !strcmp(before, after),
			 "%s: writing %s fails with %s and changes nothing (got %s)",
			 name, what, strerror(err1), err ? strerror(err) : "success");
}

/* Run @fn in a child and return its exit status. */
static int in_child(int (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn());
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 255;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	int ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

static int as_nobody(void)
{
	if (setgid(65534) || setuid(65534))
		return 100;
	return set_mode("off");
}

static int as_userns_root(void)
{
	if (unshare(CLONE_NEWUSER) ||
	    write_file("/proc/self/setgroups", "deny") ||
	    write_file("/proc/self/uid_map", "0 0 1") ||
	    write_file("/proc/self/gid_map", "0 0 1"))
		return 100;
	return set_mode("off");
}

static int cmd_sysctl(void)
{
	char buf[5000], saved[32], rec[2048];
	const char *want[3];
	int err;

	snprintf(saved, sizeof(saved), "%s", mode());
	if (audit_open())
		return 1;

	sysctl_read("modes_avail", buf, sizeof(buf));
	ktap_test_result(!strcmp(buf, "off log enforce\n"), "modes_avail reads 'off log enforce'");
	refused("modes_avail", "off", 3, "'off'", EACCES, EPERM);
	refused("violations", "0", 1, "'0'", EACCES, EPERM);

	refused("mode", "bogus", 5, "'bogus'", EINVAL, EINVAL);
	refused("mode", "enforce2", 8, "'enforce2'", EINVAL, EINVAL);
	refused("mode", "LOG", 3, "'LOG'", EINVAL, EINVAL);
	refused("mode", "1", 1, "'1'", EINVAL, EINVAL);
	refused("mode", "", 0, "nothing", EINVAL, EINVAL);
	refused("mode", "\n", 1, "a newline", EINVAL, EINVAL);
	refused("mode", "log\0", 4, "'log' and a NUL", EINVAL, EINVAL);
	memset(buf, 'a', 4096);
	refused("mode", buf, 4096, "4096 bytes", EINVAL, EINVAL);
	refused("locked", "2", 1, "'2'", EINVAL, EINVAL);
	refused("locked", "yes", 3, "'yes'", EINVAL, EINVAL);
	refused("locked", buf, 4096, "4096 bytes", EINVAL, EINVAL);

	audit_drain();
	err = set_mode("log\n");
	ktap_test_result(!err && !strcmp(mode(), "log"), "mode: 'log\\n' is accepted");
	want[0] = "op=usercopy-mode old=enforce new=log old_lock=0 new_lock=0 ";
	want[1] = " res=1";
	ktap_test_result(audit_wait(AUDIT_CONFIG_CHANGE, want, 2, 3000, rec, sizeof(rec)),
			 "mode: CONFIG_CHANGE record of the accepted change");
	audit_drain();
	set_mode("bogus");
	want[0] = "op=usercopy-mode old=log new=? ";
	want[1] = " res=0";
	ktap_test_result(audit_wait(AUDIT_CONFIG_CHANGE, want, 2, 3000, rec, sizeof(rec)),
			 "mode: CONFIG_CHANGE record of the refused write");
	err = set_mode("enforce");
	ktap_test_result(!err && !strcmp(mode(), "enforce"), "mode: 'enforce' is accepted");

	err = in_child(as_nobody);
	ktap_test_result((err == EACCES || err == EPERM) && !strcmp(mode(), "enforce"),
			 "mode: an unprivileged user cannot change it (%s)",
			 err == 100 ? "could not become nobody" : strerror(err));
	audit_drain();
	err = in_child(as_userns_root);
	ktap_test_result((err == EACCES || err == EPERM) && !strcmp(mode(), "enforce"),
			 "mode: root in a new user namespace cannot change it (%s)",
			 err == 100 ? "could not set up the namespace" : strerror(err));
	want[0] = "op=usercopy-mode old=enforce new=off ";
	want[1] = " res=0";
	ktap_test_result(audit_wait(AUDIT_CONFIG_CHANGE, want, 2, 3000, rec, sizeof(rec)),
			 "mode: CONFIG_CHANGE record of the write from the user namespace");

	set_mode(saved);
	return ktap_finished();
}

/* ---- mode changes under load -------------------------------------------- */

#define BUGGY_KO "/lib/modules/uc_buggy.ko"

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * The module's debugfs files are opened under a shared lock and the module
 * is unloaded under an exclusive one: debugfs in 6.1 warns when a file is
 * opened while its module is on the way out (full_proxy_open()).
 */
static int reload_lock(int how)
{
	static int fd = -1;

	if (fd < 0)
		fd = open("/tmp/uc-reload.lock", O_RDWR | O_CREAT | O_CLOEXEC,
			  0600);
	return fd < 0 ? -1 : flock(fd, how);
}

/*
 * An in-bounds copy through the test module, which another process loads
 * and unloads meanwhile: 0 if it went through, 1 if the module was not
 * there, -1 if it failed.
 */
static int module_copy(const char *file, int out, char *buf, size_t len)
{
	int ret;

	if (reload_lock(LOCK_SH))
		return -1;
	ret = buggy_copy(file, out, buf, len);
	reload_lock(LOCK_UN);
	return ret;
}

/* In-bounds copies of core code: stack, names_cache, seq_file, pipe. */
static int core_copies(void)
{
	int val = 0, sock, pipefd[2], bad = 0;
	socklen_t len = sizeof(val);
	struct stat st;
	char buf[256];
	int fd;

	sock = socket(AF_UNIX, SOCK_DGRAM, 0);
	bad += sock < 0 ||
	       getsockopt(sock, SOL_SOCKET, SO_RCVBUF, &val, &len) != 0;
	if (sock >= 0)
		close(sock);
	bad += stat("/proc/self/stat", &st) != 0;
	fd = open("/proc/self/stat", O_RDONLY);
	bad += fd < 0 || read(fd, buf, sizeof(buf)) <= 0;
	if (fd >= 0)
		close(fd);
	bad += pipe(pipefd) != 0;
	bad += write(pipefd[1], buf, 64) != 64 || read(pipefd[0], buf, 64) != 64;
	close(pipefd[0]);
	close(pipefd[1]);
	return bad;
}

static int copier_until_term(void)
{
	char buf[64];
	int bad = 0;

	signal(SIGTERM, on_term);
	while (!stop) {
		memset(buf, 'W', sizeof(buf));
		bad += module_copy("slab", 0, buf, 64) < 0;
		bad += module_copy("whitelist", 1, buf, 32) < 0;
		bad += module_copy("stack", 0, buf, 32) < 0;
		bad += module_copy("stack", 1, buf, 32) < 0;
		bad += core_copies();
	}
	return bad > 99 ? 99 : bad;
}

/* Loads the test module: 0 or an errno. */
static int load_buggy(void)
{
	int fd = open(BUGGY_KO, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	if (syscall(SYS_finit_module, fd, "", 0))
		err = errno;
	close(fd);
	return err;
}

/* Unloads and loads the test module until told to stop; counts loads. */
static int reloader_until_term(void)
{
	int loads = 0;

	signal(SIGTERM, on_term);
	while (!stop) {
		if (reload_lock(LOCK_EX))
			return 100;
		if (syscall(SYS_delete_module, "uc_buggy", O_NONBLOCK) &&
		    errno != ENOENT) {
			reload_lock(LOCK_UN);
			continue;
		}
		if (load_buggy())
			return 100;
		reload_lock(LOCK_UN);
		loads++;
	}
	return loads > 99 ? 99 : loads;
}

static int cmd_mode_switch(int switches)
{
	static const char *const cycle[] = { "log", "off", "enforce" };
	long before = sysctl_long("violations");
	char saved[32];
	pid_t kids[3];
	int i, bad = 0, errs = 0, loads = -1, status;

	snprintf(saved, sizeof(saved), "%s", mode());
	for (i = 0; i < 3; i++) {
		kids[i] = fork();
		if (kids[i] == 0)
			_exit(i < 2 ? copier_until_term() : reloader_until_term());
	}
	for (i = 0; i < switches; i++)
		errs += set_mode(cycle[i % 3]) != 0;
	for (i = 0; i < 3; i++) {
		kill(kids[i], SIGTERM);
		waitpid(kids[i], &status, 0);
		if (i == 2)
			loads = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		else if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	}
	ktap_test_result(!errs, "%d mode changes while processes copy: all accepted",
			 switches);
	ktap_test_result(!bad, "no in-bounds copy failed or was killed while the mode changed");
	ktap_test_result(loads > 0 && loads < 100,
			 "the test module was unloaded and loaded again %d times meanwhile",
			 loads);
	if (access(BUGGY "slab", F_OK)) {
		int err = load_buggy();

		if (err)
			ktap_test_result(0, "load the test module again: %s", strerror(err));
	}
	ktap_test_result(sysctl_long("violations") == before,
			 "no violation was counted while the mode changed");
	set_mode(saved);
	ktap_test_result(!strcmp(mode(), saved), "mode restored to %s", saved);
	return ktap_finished();
}

/* ---- the lock ------------------------------------------------------------ */

/* The address of a kernel symbol, 0 if there is none. */
static unsigned long ksym(const char *name)
{
	char line[256], sym[128], type;
	unsigned long addr, found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	while (f && !found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx %c %127s", &addr, &type, sym) == 3 &&
		    !strcmp(sym, name))
			found = addr;
	if (f)
		fclose(f);
	return found;
}

/* A stray kernel write to @addr through the test module: 0 or an errno. */
static int poke(unsigned long addr)
{
	char hex[32];
	int fd, err = 0;

	snprintf(hex, sizeof(hex), "%lx", addr);
	fd = open(BUGGY "poke", O_WRONLY);
	if (fd < 0)
		return errno;
	if (write(fd, hex, strlen(hex)) < 0)
		err = errno;
	close(fd);
	return err;
}

/* The key, the mode and the lock: the first words of the policy page. */
static const unsigned long policy_offsets[] = { 0, 16, 20 };
#define POLICY_WORDS (sizeof(policy_offsets) / sizeof(policy_offsets[0]))

static int cmd_lock(void)
{
	unsigned long policy = ksym("usercopy_policy");
	char buf[16], rec[2048];
	const char *want[2];
	char m[32];
	int err, status;
	size_t i;
	pid_t pid;

	snprintf(m, sizeof(m), "%s", mode());
	if (audit_open())
		return 1;
	audit_drain();
	ktap_test_result(policy && (policy & 4095) == 0,
			 "the policy is a page of its own (usercopy_policy at %#lx)", policy);
	ktap_test_result(ksym("__ksymtab___check_object_size") &&
			 !ksym("__ksymtab_usercopy_policy"),
			 "the checks are exported to modules, the policy is not");
	sysctl_read("locked", buf, sizeof(buf));
	if (!strcmp(buf, "1\n")) {
		ktap_test_skip("locked by an earlier suite",
			       "before the lock, a kernel write to the policy goes through");
	} else {
		for (i = 0, err = 0; i < POLICY_WORDS; i++)
			err |= poke(policy + policy_offsets[i]);
		ktap_test_result(!err, "before the lock, a kernel write to the policy goes through (%s)",
				 strerror(err));
	}
	err = sysctl_write("locked", "1\n", 2);
	sysctl_read("locked", buf, sizeof(buf));
	ktap_test_result(!err && !strcmp(buf, "1\n"), "locked: writing 1 locks the mode");
	want[0] = "new_lock=1 ";
	want[1] = " res=1";
	ktap_test_result(audit_wait(AUDIT_CONFIG_CHANGE, want, 2, 3000, rec, sizeof(rec)),
			 "locked: CONFIG_CHANGE record of the lock");
	refused("mode", "log", 3, "'log' when locked", EPERM, EPERM);
	refused("mode", m, strlen(m), "the current mode when locked", EPERM, EPERM);
	refused("locked", "0", 1, "0 when locked", EPERM, EPERM);
	refused("allow", "uc_buggy_flag", 13, "a cache when locked", EPERM, EPERM);
	err = sysctl_write("locked", "1", 1);
	ktap_test_result(!err, "locked: writing 1 again is fine");
	ktap_test_result(!strcmp(mode(), m), "mode is still %s", m);

	for (i = 0; i < POLICY_WORDS; i++) {
		err = poke(policy + policy_offsets[i]);
		ktap_test_result(err == EFAULT,
				 "locked: a kernel write to the policy at +%lu faults (%s)",
				 policy_offsets[i], strerror(err));
	}
	if (strcmp(m, "enforce"))
		return ktap_finished();
	pid = fork();
	if (pid == 0) {
		char leak[128];

		_exit(buggy_copy("slab", 0, leak, sizeof(leak)) ? 1 : 0);
	}
	waitpid(pid, &status, 0);
	ktap_test_result(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
			 "locked: a violation is still refused and its process killed");
	return ktap_finished();
}

/* ---- interrupt context ------------------------------------------------ */

static int irq_copy(void)
{
	int fd = open(BUGGY "irq", O_WRONLY);
	int ret = fd >= 0 && write(fd, "1", 1) == 1;

	if (fd >= 0)
		close(fd);
	return ret ? 0 : 1;
}

static int cmd_irq(void)
{
	const char *want[] = { "by copy_from_user_nofault", ", <irq>, " };
	const char *wrong[] = { "by copy_from_user_nofault", "comm usercopy-test" };
	const char *rec_want[] = { "cache=uc_buggy_wl", "pid=0", "comm=\"<irq>\"" };
	char m[32], line[1024], rec[RECORD_MAX];
	long before = sysctl_long("violations");
	const char *log;
	int status;

	snprintf(m, sizeof(m), "%s", mode());
	if (audit_open())
		return 1;
	audit_drain();
	kmsg_mark();
	status = in_child(irq_copy);
	ktap_test_result(status == 1, "%s: a bad copy in a hard interrupt fails, and the process it interrupted lives (exit %d)",
	    m, status);
	ktap_test_result(sysctl_long("violations") == before + 1, "%s: the copy in the interrupt is counted", m);
	log = kmsg_since();
	ktap_test_result(find_line(log, want, 2, line, sizeof(line)) &&
	    !find_line(log, wrong, 2, line, sizeof(line)),
	    "%s: the report names the interrupt, not the interrupted task", m);
	if (access("/sys/kernel/realtime", F_OK) == 0) {
		/* No audit buffer can be allocated in a hard interrupt on RT. */
		ktap_test_result(!audit_wait(AUDIT_ANOM_USERCOPY, rec_want, 3, 2000, rec,
					     sizeof(rec)),
				 "%s: PREEMPT_RT: no audit record allocated in a hard interrupt", m);
		return ktap_finished();
	}
	ktap_test_result(audit_wait(AUDIT_ANOM_USERCOPY, rec_want, 3, 5000, rec, sizeof(rec)),
	    "%s: the audit record names the interrupt and no task", m);
	ktap_diag(rec);
	return ktap_finished();
}

/* ---- a flood of violations from one call site ---------------------------- */

/* suppressed=N of an audit record, or -1 */
static long rec_suppressed(const char *rec)
{
	const char *p = strstr(rec, " suppressed=");

	return p ? strtol(p + strlen(" suppressed="), NULL, 10) : -1;
}

/*
 * The call site's rate limit allows a burst every 5 s: wait out the
 * current interval, so that the next bad copy opens a new one and is
 * recorded.  Returns that record's suppressed count.
 */
static long flood_one(const char *const *want, char *rec, size_t size)
{
	char leak[128];

	sleep(6);
	audit_drain();
	buggy_copy("slab", 0, leak, sizeof(leak));
	if (!audit_wait(AUDIT_ANOM_USERCOPY, want, 2, 5000, rec, size))
		return -1;
	return rec_suppressed(rec);
}

static int cmd_flood(long n)
{
	char pid[32], rec[RECORD_MAX], leak[128], m[32];
	const char *want[] = { "cache=kmalloc-64", pid };
	long before, sum = 0, records = 0, last;
	long long start, ms;
	int fd, i, bad = 0;

	snprintf(pid, sizeof(pid), " pid=%d ", getpid());
	snprintf(m, sizeof(m), "%s", mode());
	if (set_mode("log") || system("auditctl -f 2 >/dev/null") || audit_open()) {
		ktap_test_result(0, "flood: log mode, audit failure mode 2");
		return 1;
	}
	flood_one(want, rec, sizeof(rec));
	before = sysctl_long("violations");
	fd = open(BUGGY "slab", O_RDONLY);
	start = now_ms();
	for (i = 0; i < n; i++)
		bad |= pread(fd, leak, sizeof(leak), 0) != sizeof(leak);
	ms = now_ms() - start;
	close(fd);
	ktap_test_result(!bad, "flood: %ld bad copies allowed in log mode (%lld ms)", n, ms);
	ktap_test_result(sysctl_long("violations") - before == n, "flood: all %ld counted (counter +%ld)",
	    n, sysctl_long("violations") - before);
	while (audit_wait(AUDIT_ANOM_USERCOPY, want, 2, 2000, rec, sizeof(rec))) {
		records++;
		sum += 1 + rec_suppressed(rec);
	}
	last = flood_one(want, rec, sizeof(rec));
	/* A burst of 10 per 5 s interval, and the one that opened it. */
	ktap_test_result(records >= 1 && records <= 10 * (ms / 5000 + 2),
	    "flood: %ld audit records for %ld bad copies", records, n);
	ktap_test_result(last >= 0 && sum + last == n,
	    "flood: the records' suppressed counts add up (%ld recorded + suppressed, %ld after)",
	    sum, last);
	if (system("auditctl -f 1 >/dev/null") || set_mode(m))
		ktap_test_result(0, "flood: back to audit failure mode 1 and mode %s", m);
	return ktap_finished();
}

/* ---- the whitelist ---------------------------------------------------- */

static char *proc_read(const char *path)
{
	static char buf[1 << 17];

	uc_file_read(path, buf, sizeof(buf));
	return buf;
}

/* The line of /proc/usercopy/whitelist for @cache, without its newline. */
static const char *whitelist_line(const char *cache)
{
	static char line[256];
	const char *want[1];
	char start[128];
	const char *p;

	snprintf(start, sizeof(start), "\n%s ", cache);
	p = strstr(proc_read("/proc/usercopy/whitelist"), start);
	if (!p)
		return "(none)";
	want[0] = start + 1;
	find_line(p + 1, want, 1, line, sizeof(line));
	return line;
}

static void expect_whitelist(const char *cache, const char *line)
{
	const char *got = whitelist_line(cache);

	ktap_test_result(!strcmp(got, line), "whitelist: '%s' (got '%s')", line, got);
}

/*
 * pread() (@out 0) or pwrite() @len bytes at @off of uc_buggy/@file in a
 * child: its exit status (0 if all of it was copied) or -signal.
 */
static int child_copy(const char *file, int out, off_t off, size_t len)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		char buf[128] = "";

		_exit(buggy_copy_at(file, out, buf, len, off) ? 1 : 0);
	}
	waitpid(pid, &status, 0);
	return WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
}

static int child_read(const char *file, size_t len)
{
	return child_copy(file, 0, 0, len);
}

static int allow_nobody(void)
{
	if (setgid(65534) || setuid(65534))
		return 100;
	return sysctl_write("allow", "uc_buggy_nowl", 13);
}

static int allow_userns_root(void)
{
	if (unshare(CLONE_NEWUSER) ||
	    write_file("/proc/self/setgroups", "deny") ||
	    write_file("/proc/self/uid_map", "0 0 1") ||
	    write_file("/proc/self/gid_map", "0 0 1"))
		return 100;
	return sysctl_write("allow", "uc_buggy_nowl", 13);
}

/* Whether 16 bytes written at offset 8 of uc_buggy/bounce read back. */
static int bounce_roundtrip(void)
{
	const char text[16] = "0123456789abcdef";
	char back[16] = "";
	int fd = open(BUGGY "bounce", O_RDWR);
	int ok = fd >= 0 && pwrite(fd, text, 16, 8) == 16 &&
		 pread(fd, back, 16, 8) == 16 && !memcmp(text, back, 16);

	if (fd >= 0)
		close(fd);
	return ok;
}

static void hex(char *out, const char *s)
{
	while (*s)
		out += sprintf(out, "%02X", (unsigned char)*s++);
}

static int cmd_whitelist(void)
{
	char buf[5000], rec[2048], site[64], allowed[256], memdup_want[64];
	const char *want[3], *memdup_cache;
	long before, kib;
	int err, caches;

	if (strcmp(mode(), "enforce")) {
		ktap_test_result(0, "whitelist: runs in enforce mode (mode %s)", mode());
		return ktap_finished();
	}
	if (audit_open())
		return 1;
	ktap_test_result(!strncmp(proc_read("/proc/usercopy/whitelist"),
				  "# cache object_size useroffset usersize origin\n", 47),
			 "whitelist: /proc/usercopy/whitelist has its header");
	expect_whitelist("uc_buggy_flag", "uc_buggy_flag 96 0 96 flag");
	expect_whitelist("uc_buggy_wl", "uc_buggy_wl 128 32 32 region");
	expect_whitelist("uc_buggy_nowl", "uc_buggy_nowl 96 0 0 none");
	expect_whitelist("kmalloc-64", "kmalloc-64 64 0 64 kmalloc");
	expect_whitelist("usercopy-kmalloc-64", "usercopy-kmalloc-64 64 0 64 flag");

	before = sysctl_long("violations");
	ktap_test_result(child_read("flag", 96) == 0 && child_read("flag", 8) == 0,
			 "whitelist: SLAB_USERCOPY: copies inside the object work");
	ktap_test_result(sysctl_long("violations") == before,
			 "whitelist: SLAB_USERCOPY: and are not counted");
	ktap_test_result(child_read("flag", 97) == -SIGKILL,
			 "whitelist: SLAB_USERCOPY: a copy past the object is refused, process killed");
	audit_drain();
	ktap_test_result(child_read("nowl", 8) == -SIGKILL,
			 "whitelist: a cache without a whitelist: a copy of 8 bytes is refused, process killed");

	/* The site: nowl_read+0x../0x.. [uc_buggy], in hex as it has a space. */
	strcpy(site, "site=");
	hex(site + 5, "nowl_read+0x");
	want[0] = "cache=uc_buggy_nowl offset=0 len=8 ";
	want[1] = site;
	ktap_test_result(audit_wait(AUDIT_ANOM_USERCOPY, want, 2, 3000, rec, sizeof(rec)),
			 "whitelist: the audit record names the call site (%s...)", site);
	want[0] = " slab uc_buggy_nowl nowl_read+0x";
	want[1] = " [uc_buggy]";
	ktap_test_result(find_line(proc_read("/proc/usercopy/sites"), want, 2, buf, sizeof(buf)) &&
			 atol(buf) >= 1,
			 "sites: the violation is counted by call site and cache: '%s'", buf);
	ktap_test_result(!strncmp(proc_read("/proc/usercopy/sites"),
				  "# violations region cache site\n", 31),
			 "sites: /proc/usercopy/sites has its header");

	/*
	 * What memdup_user() returns lives in the user-data caches: its own
	 * kmem_buckets where the kernel has them (6.12, CONFIG_SLAB_BUCKETS),
	 * else usercopy-kmalloc.
	 */
	memdup_cache = strcmp(whitelist_line("memdup_user-64"), "(none)") ?
		       "memdup_user-64" : "usercopy-kmalloc-64";
	before = sysctl_long("violations");
	ktap_test_result(child_read("memdup", 64) == 0 && sysctl_long("violations") == before,
			 "user-data caches: a copy of a memdup_user() object works");
	audit_drain();
	ktap_test_result(child_read("memdup", 100) == -SIGKILL,
			 "user-data caches: a copy past it is refused, process killed");
	snprintf(memdup_want, sizeof(memdup_want), "cache=%s offset=0 len=100 ", memdup_cache);
	want[0] = memdup_want;
	ktap_test_result(audit_wait(AUDIT_ANOM_USERCOPY, want, 1, 3000, rec, sizeof(rec)),
			 "user-data caches: memdup_user() took from %s", memdup_cache);

	/* A field of an object without a whitelist, through a bounce buffer. */
	before = sysctl_long("violations");
	ktap_test_result(child_copy("bounce", 0, 0, 32) == 0 && child_copy("bounce", 0, 16, 16) == 0 &&
			 child_copy("bounce", 1, 0, 32) == 0 && sysctl_long("violations") == before,
			 "bounce: copies inside the 32-byte field of a uc_buggy_nowl object work, uncounted");
	ktap_test_result(bounce_roundtrip(), "bounce: what is written is read back");
	ktap_test_result(child_copy("bounce", 0, 16, 17) == -SIGKILL,
			 "bounce: a read that leaves the field is refused, process killed");
	ktap_test_result(child_copy("bounce", 1, 0, 33) == -SIGKILL,
			 "bounce: a write that leaves the field is refused, process killed");
	ktap_test_result(sysctl_long("violations") == before + 2,
			 "bounce: both are counted (%ld)", sysctl_long("violations") - before);

	sysctl_read("allow", allowed, sizeof(allowed));
	ktap_test_result(!strcmp(allowed, "\n"), "allow: empty at first ('%s')", allowed);
	refused("allow", "no_such_cache", 13, "a cache that does not exist", EINVAL, EINVAL);
	refused("allow", "", 0, "nothing", EINVAL, EINVAL);
	refused("allow", "\n", 1, "a newline", EINVAL, EINVAL);
	refused("allow", "uc_buggy_nowl uc_buggy_flag", 27, "two names", EINVAL, EINVAL);
	refused("allow", "uc_buggy_nowl\0", 14, "a name and a NUL", EINVAL, EINVAL);
	memset(buf, 'a', 4096);
	refused("allow", buf, 4096, "4096 bytes", EINVAL, EINVAL);
	err = in_child(allow_nobody);
	ktap_test_result((err == EACCES || err == EPERM) && !strcmp(whitelist_line("uc_buggy_nowl"),
								 "uc_buggy_nowl 96 0 0 none"),
			 "allow: an unprivileged user cannot allow a cache (%s)",
			 err == 100 ? "could not become nobody" : strerror(err));
	audit_drain();
	err = in_child(allow_userns_root);
	ktap_test_result(err == EPERM && !strcmp(whitelist_line("uc_buggy_nowl"),
						 "uc_buggy_nowl 96 0 0 none"),
			 "allow: root in a new user namespace cannot allow a cache (%s)",
			 err == 100 ? "could not set up the namespace" : strerror(err));
	want[0] = "op=usercopy-allow cache=\"uc_buggy_nowl\" ";
	want[1] = " res=0";
	ktap_test_result(audit_wait(AUDIT_CONFIG_CHANGE, want, 2, 3000, rec, sizeof(rec)),
			 "allow: CONFIG_CHANGE record of the refused write");
	ktap_test_result(child_read("nowl", 8) == -SIGKILL,
			 "allow: the cache is still refused");

	audit_drain();
	err = sysctl_write("allow", "uc_buggy_nowl\n", 14);
	ktap_test_result(!err, "allow: root allows uc_buggy_nowl (%s)", strerror(err));
	want[1] = " res=1";
	ktap_test_result(audit_wait(AUDIT_CONFIG_CHANGE, want, 2, 3000, rec, sizeof(rec)),
			 "allow: CONFIG_CHANGE record: %s", rec);
	sysctl_read("allow", allowed, sizeof(allowed));
	ktap_test_result(!strcmp(allowed, "uc_buggy_nowl\n"), "allow: reads 'uc_buggy_nowl'");
	expect_whitelist("uc_buggy_nowl", "uc_buggy_nowl 96 0 96 admin");
	before = sysctl_long("violations");
	ktap_test_result(child_read("nowl", 96) == 0, "allow: copies inside the object now work");
	ktap_test_result(sysctl_long("violations") == before, "allow: and are not counted");
	ktap_test_result(child_read("nowl", 97) == -SIGKILL,
			 "allow: a copy past the object is still refused, process killed");
	err = sysctl_write("allow", "uc_buggy_nowl", 13);
	sysctl_read("allow", allowed, sizeof(allowed));
	ktap_test_result(!err && !strcmp(allowed, "uc_buggy_nowl\n"),
			 "allow: allowing it again changes nothing");

	/* The name is kept: the cache is whitelisted again when it is created. */
	err = system("rmmod uc_buggy && insmod " BUGGY_KO);
	ktap_test_result(!err, "allow: uc_buggy unloaded and loaded again");
	expect_whitelist("uc_buggy_nowl", "uc_buggy_nowl 96 0 96 admin");
	ktap_test_result(child_read("nowl", 96) == 0,
			 "allow: the new uc_buggy_nowl is whitelisted as it is created");

	/* The memory the user-data caches take: a measure, not a test. */
	kib = slab_kib("usercopy-kmalloc-", &caches);
	ktap_print_msg("user-data caches: %ld KiB in %d caches", kib, caches);
	before = slab_kib("kmalloc-", &err);
	ktap_print_msg("kmalloc caches: %ld KiB in %d caches", before, err);
	ktap_test_result(caches == err, "user-data caches: one per kmalloc size (%d, %d)",
			 caches, err);
	return ktap_finished();
}

/* ---- usercopy_kmalloc=strict ------------------------------------------- */

static int cmd_strict(void)
{
	char line[256];
	const char *want[2];
	const char *sites;
	char val[32];
	int n = 0, ok;

	if (strcmp(mode(), "log")) {
		ktap_test_result(0, "strict: in log mode");
		return ktap_finished();
	}
	expect_whitelist("kmalloc-64", "kmalloc-64 64 0 0 none");
	expect_whitelist("usercopy-kmalloc-64", "usercopy-kmalloc-64 64 0 64 flag");
	expect_whitelist("uc_buggy_flag", "uc_buggy_flag 96 0 96 flag");

	/* Other copies (the guest's own tty writes) count too: ask by site. */
	want[0] = " memdup_read+0x";
	ktap_test_result(child_read("memdup", 64) == 0 &&
			 !find_line(proc_read("/proc/usercopy/sites"), want, 1, line, sizeof(line)),
			 "strict: a copy of a memdup_user() object is no violation");
	kmsg_mark();
	want[0] = " slab kmalloc-64 slab_read+0x";
	ktap_test_result(child_read("slab", 64) == 0 &&
			 find_line(proc_read("/proc/usercopy/sites"), want, 1, line, sizeof(line)),
			 "strict: a copy of a whole kmalloc-64 object is a violation, allowed in log mode");
	want[0] = "usercopy: ";
	want[1] = "exposure of slab object (cache kmalloc-64, offset 0, len 64) by slab_read+0x";
	ktap_test_result(find_line(kmsg_since(), want, 2, line, sizeof(line)) != NULL,
			 "strict: the kernel log names kmalloc-64");

	/* debugfs attribute files (simple_attr) bounce their buffers. */
	ok = !uc_file_read("/sys/kernel/debug/fault_around_bytes", val, sizeof(val)) &&
	     val[0] && !write_file("/sys/kernel/debug/fault_around_bytes", val);
	want[0] = " simple_attr_";
	ktap_test_result(ok && !find_line(proc_read("/proc/usercopy/sites"), want, 1, line,
					  sizeof(line)),
			 "strict: a debugfs attribute is read and written with no violation");

	/*
	 * The callers left to move to __GFP_USERCOPY: after a boot and the
	 * tests, none but the test module's.
	 */
	sites = proc_read("/proc/usercopy/sites");
	ok = 1;
	for (const char *p = sites, *end; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, '\n');
		if (*p == '#')
			continue;
		n++;
		if (!memmem(p, end - p, "[uc_buggy]", 10))
			ok = 0;
	}
	ktap_test_result(ok, "strict: every copy from a cache without a whitelist was the test module's (%d sites)",
			 n);
	ktap_diag(sites);
	return ktap_finished();
}

/* ---- raw memory --------------------------------------------------------- */

/* Reads @len bytes of @path at @off: 0 if all came. */
static int pread_all(const char *path, off_t off, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : pread(fd, buf, len, off);

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

static int rawmem_read(void)
{
	static char buf[4096];
	Elf64_Ehdr eh;
	Elf64_Phdr ph[64];
	int i, loads = 0, bad = 0;

	bad |= pread_all("/dev/mem", 0, buf, sizeof(buf));
	bad |= pread_all("/dev/mem", 0xf0000, buf, sizeof(buf));
	if (bad)
		return 1;
	if (pread_all("/proc/kcore", 0, (char *)&eh, sizeof(eh)) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_phnum > 64 ||
	    pread_all("/proc/kcore", eh.e_phoff, (char *)ph, eh.e_phnum * sizeof(ph[0])))
		return 2;
	for (i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || ph[i].p_filesz < sizeof(buf))
			continue;
		loads++;
		bad |= pread_all("/proc/kcore", ph[i].p_offset, buf, sizeof(buf));
	}
	return bad ? 3 : loads ? 0 : 4;
}

static int cmd_rawmem(void)
{
	long before = sysctl_long("violations");
	int err;

	kmsg_mark();
	err = in_child(rawmem_read);
	ktap_test_result(!err, "rawmem: /dev/mem and every segment of /proc/kcore read in %s mode (%d)",
			 mode(), err);
	ktap_test_result(sysctl_long("violations") == before && !strstr(kmsg_since(), "usercopy: "),
			 "rawmem: no violation");
	return ktap_finished();
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	int caches;

	/* For tests/guest/stress.sh: "KIB CACHES" of one cache family. */
	if (!strcmp(cmd, "slab-kib") && argc == 3) {
		long kib = slab_kib(argv[2], &caches);

		printf("%ld %d\n", kib, caches);
		return 0;
	}
	ktap_print_header();
	if (!strcmp(cmd, "violations"))
		return cmd_violations();
	if (!strcmp(cmd, "sysctl"))
		return cmd_sysctl();
	if (!strcmp(cmd, "mode-switch"))
		return cmd_mode_switch(argc > 2 ? atoi(argv[2]) : 10000);
	if (!strcmp(cmd, "irq"))
		return cmd_irq();
	if (!strcmp(cmd, "flood"))
		return cmd_flood(argc > 2 ? atol(argv[2]) : 100000);
	if (!strcmp(cmd, "whitelist"))
		return cmd_whitelist();
	if (!strcmp(cmd, "strict"))
		return cmd_strict();
	if (!strcmp(cmd, "rawmem"))
		return cmd_rawmem();
	if (!strcmp(cmd, "lock"))
		return cmd_lock();
	fprintf(stderr, "usage: usercopy-test violations|sysctl|mode-switch [N]|irq|flood [N]|whitelist|strict|rawmem|lock|slab-kib PREFIX\n");
	return 2;
}
