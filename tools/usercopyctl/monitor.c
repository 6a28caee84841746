/*
 * usercopyctl: live monitoring -- incidents from the audit netlink
 * multicast group (AUDIT_NLGRP_READLOG), parsed by records.c and
 * printed by output.c as they come.  Errors are returned.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libaudit.h>

#include "uc-auditnl.h"
#include "usercopyctl.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One incident: its own one-row table, the heading only the first time. */
static int print_one(const struct uc_monitor_opts *mo, const struct uc_record *r,
		     unsigned long seen)
{
	struct uc_output o = mo->out;
	struct uc_report *rp;
	int rc;

	o.sort_col = -1;
	if (seen)
		o.noheadings = 1;
	rp = uc_report_new(&o, UC_INCIDENT, 0, stdout);
	if (!rp)
		return -ENOMEM;
	rc = uc_report_add(rp, r);
	if (rc == 0)
		rc = uc_report_finish(rp);
	uc_report_free(rp);
	return rc;
}

/* A netlink audit message, as the line auditd would log: 1 if printed. */
static int handle_message(const struct uc_monitor_opts *mo,
			  struct uc_parser *parser, int type,
			  const char *data, size_t len, unsigned long seen)
{
	static char line[MAX_AUDIT_MESSAGE_LENGTH + 64];
	struct uc_record r;
	char why[192];
	int n, rc;

	if (type != UC_AUDIT_ANOM_USERCOPY)
		return 0;
	while (len > 0 && (data[len - 1] == '\0' || data[len - 1] == '\n'))
		len--;
	if (len > MAX_AUDIT_MESSAGE_LENGTH)
		len = MAX_AUDIT_MESSAGE_LENGTH;
	n = snprintf(line, sizeof(line), "type=UNKNOWN[%d] msg=%.*s", type,
		     (int)len, data);
	if (n <= 0 || (size_t)n >= sizeof(line))
		return 0;
	rc = uc_parse_line(parser, line, (size_t)n, &r, why, sizeof(why));
	if (rc < 0) {
		if (mo->warn)
			fprintf(mo->warn, UC_NAME ": warning: %s, skipped\n", why);
		return 0;
	}
	if (rc == 0 || !uc_filter_match(&mo->filter, &r))
		return 0;
	rc = print_one(mo, &r, seen);
	return rc < 0 ? rc : 1;
}

/* The message of a failed socket(), bind() or recv() (-@err) on the audit socket. */
static void socket_error(struct uc_monitor_result *res, int err,
			 const char *what)
{
	if (err == -EPERM || err == -EACCES)
		snprintf(res->err, sizeof(res->err),
			 "cannot read audit records live: CAP_AUDIT_READ is needed (run as root)");
	else if (err == -EPROTONOSUPPORT)
		snprintf(res->err, sizeof(res->err),
			 "cannot read audit records live: kernel without audit support");
	else
		snprintf(res->err, sizeof(res->err), "%s: %s", what,
			 strerror(-err));
}

int uc_monitor(const struct uc_monitor_opts *mo, struct uc_monitor_result *res)
{
	struct sigaction sa = { .sa_handler = on_signal };
	static char buf[MAX_AUDIT_MESSAGE_LENGTH + NLMSG_HDRLEN + 64];
	struct uc_parser *parser;
	sigset_t block, orig;
	long long deadline = 0;
	int fd, ret = 0;

	memset(res, 0, sizeof(*res));
	parser = uc_parser_new();
	if (!parser) {
		ret = -(errno ? errno : ENOMEM);
		snprintf(res->err, sizeof(res->err),
			 "cannot set up the audit parser: %s", strerror(-ret));
		return ret;
	}
	fd = uc_auditnl_open();
	if (fd < 0) {
		ret = fd;
		socket_error(res, ret, "cannot join the audit log multicast group");
		uc_parser_free(parser);
		return ret;
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Signals are only let in while waiting, so none is missed. */
	stop_signal = 0;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &orig);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (mo->timeout > 0)
		deadline = now_ms() + (long long)(mo->timeout * 1000);

	while (!stop_signal && !(mo->count && res->seen >= mo->count)) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct timespec ts = { .tv_sec = 1 };
		const char *text;
		int rc, type;
		long n;

		if (deadline) {
			long long left = deadline - now_ms();

			if (left <= 0) {
				res->timed_out = 1;
				break;
			}
			if (left < 1000) {
				ts.tv_sec = 0;
				ts.tv_nsec = left * 1000000;
			}
		}
		rc = ppoll(&pfd, 1, &ts, &orig);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0) {
			ret = -errno;
			snprintf(res->err, sizeof(res->err), "poll: %s", strerror(-ret));
			break;
		}
		if (rc == 0)
			continue;
		n = uc_auditnl_recv(fd, buf, sizeof(buf), &type, &text);
		if (n == -EINTR || n == -EAGAIN || n == 0)
			continue;
		if (n == -ENOBUFS) {
			if (mo->warn)
				fprintf(mo->warn, UC_NAME ": warning: audit records were lost (receive buffer overrun)\n");
			continue;
		}
		if (n < 0) {
			ret = (int)n;
			socket_error(res, ret, "cannot receive audit records");
			break;
		}
		rc = handle_message(mo, parser, type, text, (size_t)n, res->seen);
		if (rc < 0) {
			ret = rc;
			snprintf(res->err, sizeof(res->err), "write error: %s",
				 strerror(-rc));
			break;
		}
		res->seen += (unsigned long)rc;
	}
	sigprocmask(SIG_SETMASK, &orig, NULL);
	close(fd);
	uc_parser_free(parser);
	return ret;
}
