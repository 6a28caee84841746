/*
 * usercopyctl - inspect and control the kernel's usercopy hardening
 *
 * The command line and the commands status, mode, lock, report, monitor,
 * whitelist, sites and allow.  This is the only file that prints errors or exits; see
 * usercopyctl.h for the other parts, and usercopyctl(8).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <locale.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "usercopyctl.h"

#define STATUS_INCIDENTS	5
#define MAX_WARNINGS		20

static void vmessage(const char *kind, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: %s", UC_NAME, kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static void __attribute__((format(printf, 1, 2))) uc_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
}

static void __attribute__((format(printf, 1, 2))) uc_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("warning: ", fmt, ap);
	va_end(ap);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
bad_usage(const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		fputs(UC_NAME ": ", stderr);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	fputs("Try '" UC_NAME " --help' for more information.\n", stderr);
	exit(UC_EXIT_FAILURE);
}

static void __attribute__((noreturn)) out_of_memory(void)
{
	uc_err("out of memory");
	exit(UC_EXIT_FAILURE);
}

static void __attribute__((noreturn)) usage(void)
{
	FILE *out = stdout;
	struct uc_modes m;
	char names[128];

	uc_modes_read(&m);
	uc_modes_join(&m, "|", "|", names, sizeof(names));
	fputs("\nUsage:\n", out);
	fprintf(out, " %s [options] status\n", UC_NAME);
	fprintf(out, " %s [options] mode [%s] [--persist[=<file>]]\n", UC_NAME, names);
	fprintf(out, " %s [options] lock [--yes]\n", UC_NAME);
	fprintf(out, " %s [options] report\n", UC_NAME);
	fprintf(out, " %s [options] monitor\n", UC_NAME);
	fprintf(out, " %s [options] whitelist [--origin <list>] [<cache>...]\n", UC_NAME);
	fprintf(out, " %s [options] sites\n", UC_NAME);
	fprintf(out, " %s [options] allow [<cache> [--yes]]\n", UC_NAME);
	fputs("\nShow and control the kernel's usercopy hardening, and list what it caught.\n", out);
	fputs("\nCommands:\n"
	      " status                  mode, lock, violations, active checks, latest incidents\n"
	      " mode [<mode>]           show the mode, or set it\n"
	      " lock                    keep the mode as it is until the next reboot\n"
	      " report                  incidents and mode changes from the audit log\n"
	      " monitor                 incidents as the kernel reports them\n"
	      " whitelist [<cache>...]  the usercopy whitelist of every kmem cache\n"
	      " sites                   the call sites of the violations since boot\n"
	      " allow [<cache>]         list the caches the admin whitelisted, or\n"
	      "                           whitelist one whole until the next reboot\n", out);
	uc_modes_join(&m, " ", " ", names, sizeof(names));
	fprintf(out, "\nModes: %s\n", names);
	fputs("\nOptions:\n"
	      " -J, --json              use JSON output format\n"
	      " -n, --noheadings        don't print headings\n"
	      " -r, --raw               use the raw output format\n"
	      " -P, --pairs             use key=\"value\" output format\n"
	      " -o, --output <list>     the columns to print (+<list> adds)\n"
	      "     --output-all        print all columns\n"
	      " -H, --list-columns      list the available columns\n"
	      "     --time-format <fmt> short, iso or raw (seconds since the epoch)\n"
	      " -f, --file <file>       audit log to read (default " UC_AUDIT_LOG ")\n"
	      "     --since <time>      only what happened at or after <time>\n"
	      "     --until <time>      only what happened at or before <time>\n"
	      "     --pid <pid>         only incidents of this process\n"
	      "     --uid <user>        only what this user did (uid or login uid)\n"
	      "     --incidents         report: only the incidents\n"
	      "     --mode-changes      report: only the mode changes\n"
	      "     --sort <column>     report: sort by <column>\n"
	      "     --summary           report: incidents counted by kind\n"
	      "     --suggest           report: logged incidents by call site, and\n"
	      "                           what to change in the whitelist\n"
	      "     --origin <list>     whitelist: only caches of these origins\n"
	      "                           (flag, kmalloc, admin, region, none)\n"
	      "     --persist[=<file>]  mode: also set it for the next boots, in\n"
	      "                           " UC_SYSCTL_D "/" UC_PERSIST_NAME "\n"
	      " -y, --yes               lock, allow: don't ask for confirmation\n"
	      " -c, --count <n>         monitor: exit after <n> incidents\n"
	      " -t, --timeout <sec>     monitor: exit after <sec> seconds\n", out);
	fputs("\n -h, --help              display this help\n"
	      " -V, --version           display version\n", out);
	fputs("\n<time> is YYYY-MM-DD[ HH:MM[:SS]] in local time, @<seconds since\n"
	      "the epoch>, now, recent (10 minutes ago), today, yesterday or boot.\n", out);
	fputs("\nAvailable output columns (of status, report and monitor; see\n"
	      "'" UC_NAME " -H whitelist', '-H sites', '-H report --suggest' for the others):\n", out);
	uc_columns_help(out);
	fputs("\nFor more details see " UC_NAME "(8).\n", out);
	exit(UC_EXIT_OK);
}

/* ---- options ----------------------------------------------------------- */

enum {
	OPT_OUTPUT_ALL = 0x100, OPT_SINCE, OPT_UNTIL, OPT_PID, OPT_UID,
	OPT_PERSIST, OPT_INCIDENTS, OPT_CHANGES, OPT_SORT, OPT_SUMMARY,
	OPT_TIME_FORMAT, OPT_SUGGEST, OPT_ORIGIN
};

/* Which command may use an option. */
enum {
	C_STATUS = 1, C_MODE = 2, C_LOCK = 4, C_REPORT = 8, C_MONITOR = 16,
	C_WHITELIST = 32, C_SITES = 64, C_ALLOW = 128
};

struct opts {
	struct uc_output out;
	struct uc_filter filter;
	const char *files[16];
	size_t nfiles;
	int persist;
	const char *persist_file;
	int yes, summary, suggest;
	const char *origins;		/* whitelist --origin */
	struct uc_cols cols;		/* whitelist, sites, report --suggest */
	unsigned long count;
	double timeout;
	struct {
		const char *name;
		unsigned cmds;	/* C_* of the commands it goes with */
	} used[40];
	size_t nused;
};

/* Remember an option and the commands it goes with. */
static void limit(struct opts *o, unsigned cmds, const char *name)
{
	size_t i;

	for (i = 0; i < o->nused; i++)
		if (o->used[i].name == name)
			return;
	if (o->nused < sizeof(o->used) / sizeof(o->used[0])) {
		o->used[o->nused].name = name;
		o->used[o->nused++].cmds = cmds;
	}
}

static unsigned long parse_number(const char *s, const char *what,
				  unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (!*s || *end || errno || *s == '-' || *s == '+' || v > max)
		bad_usage("invalid %s: '%s'", what, s);
	return v;
}

static unsigned long parse_user(const char *s)
{
	struct passwd *pw;

	if (*s >= '0' && *s <= '9')
		return parse_number(s, "user id", 4294967295UL);
	pw = getpwnam(s);
	if (!pw)
		bad_usage("unknown user: '%s'", s);
	return pw->pw_uid;
}

static const char *cmd_names[] = {
	"status", "mode", "lock", "report", "monitor", "whitelist", "sites", "allow"
};

static int parse_command(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(cmd_names) / sizeof(cmd_names[0]); i++)
		if (strcmp(s, cmd_names[i]) == 0)
			return 1 << i;
	return 0;
}

/* ---- reading logs ------------------------------------------------------ */

typedef int (*record_fn)(void *ctx, const struct uc_record *r);

/*
 * Read the records of @path that pass @f, handing each to @fn.  Bad
 * lines are skipped with a warning (at most MAX_WARNINGS) unless @quiet.
 * 0, or -1 after saying why.
 */
static int read_log(const char *path, const struct uc_filter *f, int quiet,
		    record_fn fn, void *ctx)
{
	struct uc_reader rd;
	struct uc_record r;
	unsigned long nwarn = 0;
	int rc, ret = 0;

	rc = uc_reader_open(&rd, path);
	if (rc) {
		uc_err("cannot open %s: %s", path, strerror(-rc));
		return -1;
	}
	while ((rc = uc_reader_next(&rd, &r)) != 0) {
		if (rc == -1) {
			if (++nwarn <= MAX_WARNINGS && !quiet)
				uc_warn("%s:%lu: %s, skipped", path, rd.lineno, rd.why);
			continue;
		}
		if (rc == -2) {
			uc_err("cannot read %s: %s", path, strerror(rd.err));
			ret = -1;
			break;
		}
		if (uc_filter_match(f, &r)) {
			rc = fn(ctx, &r);
			if (rc) {
				uc_err("cannot print the records: %s", strerror(-rc));
				ret = -1;
				break;
			}
		}
	}
	if (nwarn > MAX_WARNINGS && !quiet)
		uc_warn("%s: %lu more bad lines skipped", path, nwarn - MAX_WARNINGS);
	uc_reader_close(&rd);
	return ret;
}

/* ---- status ------------------------------------------------------------ */

/* The last STATUS_INCIDENTS incidents. */
struct latest {
	struct uc_record r[STATUS_INCIDENTS];
	size_t n, next;
};

static int keep_latest(void *ctx, const struct uc_record *r)
{
	struct latest *l = ctx;
	struct uc_record *slot = &l->r[l->next];

	if (l->n == STATUS_INCIDENTS)
		uc_record_free(slot);
	else
		l->n++;
	if (uc_record_copy(slot, r) != 0)
		out_of_memory();
	l->next = (l->next + 1) % STATUS_INCIDENTS;
	return 0;
}

/* The i-th oldest kept incident. */
static const struct uc_record *latest_at(const struct latest *l, size_t i)
{
	size_t first = l->n == STATUS_INCIDENTS ? l->next : 0;

	return &l->r[(first + i) % STATUS_INCIDENTS];
}

/* What status says of the whitelist: the caches by origin, the admin's. */
struct wl_summary {
	int known;			/* the whitelist could be read */
	unsigned long total, by_origin[8];
	int have_allowed;
	struct uc_allowed allowed;
};

static void wl_summary_read(struct wl_summary *ws)
{
	struct uc_whitelist wl;
	size_t i, k;

	memset(ws, 0, sizeof(*ws));
	if (uc_whitelist_read(&wl) != 0)
		return;
	ws->known = 1;
	for (i = 0; i < wl.n; i++)
		for (k = 0; uc_origins[k] && k < 8; k++)
			if (strcmp(wl.c[i].origin, uc_origins[k]) == 0)
				ws->by_origin[k]++;
	ws->total = wl.n;
	uc_whitelist_free(&wl);
	ws->have_allowed = uc_allowed_read(&ws->allowed) == 0;
}

/* "12 flag, 105 kmalloc, ..." */
static const char *wl_summary_text(const struct wl_summary *ws, char *buf, size_t size)
{
	size_t k, off = 0;

	buf[0] = '\0';
	for (k = 0; uc_origins[k] && k < 8 && off < size; k++)
		off += (size_t)snprintf(buf + off, size - off, "%s%lu %s", k ? ", " : "",
					ws->by_origin[k], uc_origins[k]);
	return buf;
}

static const char *allowed_list(const struct wl_summary *ws, const char *sep,
				char *buf, size_t size)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < ws->allowed.n && off < size; i++)
		off += (size_t)snprintf(buf + off, size - off, "%s%s", i ? sep : "",
					ws->allowed.name[i]);
	return buf;
}

static int status_json(const struct uc_state *st, const char *viol,
		       const struct uc_modes *m, const char *bootmode,
		       const struct uc_kconfig *kc, const struct wl_summary *ws,
		       const char *log, int log_ok, int log_errno,
		       const struct latest *l)
{
	struct uc_kv *kv = uc_kv_new("status");
	char list[256], ev[64], num[24], names[sizeof(ws->allowed.buf)];
	size_t i, off = 0;
	int rc;

	if (!kv)
		out_of_memory();
	uc_kv_add(kv, "supported", UC_V_BOOL, st ? "1" : "0");
	uc_kv_add(kv, "sysctl-dir", UC_V_STRING, uc_sysctl_dir());
	if (st) {
		uc_kv_add(kv, "mode", UC_V_STRING, st->have_mode ? st->mode : NULL);
		uc_kv_add(kv, "locked", UC_V_BOOL, st->locked < 0 ? NULL :
			  st->locked ? "1" : "0");
		uc_kv_add(kv, "violations", UC_V_NUMBER, viol);
		uc_kv_add(kv, "modes-available", UC_V_LIST,
			  m->from_kernel ? uc_modes_join(m, "\n", "\n", list, sizeof(list)) : NULL);
		uc_kv_add(kv, "boot-mode", UC_V_STRING, bootmode);
		uc_kv_add(kv, "kernel-config", UC_V_STRING, kc->source[0] ? kc->source : NULL);
		uc_kv_add(kv, "hardened-usercopy", UC_V_STRING, uc_kconfig_hardened(kc));
		uc_kv_add(kv, "stack-frames", UC_V_STRING, uc_kconfig_frames(kc));
		uc_kv_add(kv, "slab-allocator", UC_V_STRING, uc_kconfig_allocator(kc));
		uc_kv_add(kv, "whitelisting", UC_V_STRING, uc_kconfig_whitelisting(kc));
		snprintf(num, sizeof(num), "%lu", ws->total);
		uc_kv_add(kv, "whitelist-caches", UC_V_NUMBER, ws->known ? num : NULL);
		for (i = 0; uc_origins[i]; i++) {
			char key[32];

			snprintf(key, sizeof(key), "whitelist-%s", uc_origins[i]);
			snprintf(num, sizeof(num), "%lu", ws->by_origin[i]);
			uc_kv_add(kv, key, UC_V_NUMBER, ws->known ? num : NULL);
		}
		uc_kv_add(kv, "allowed-caches", UC_V_LIST, ws->known && ws->have_allowed ?
			  allowed_list(ws, "\n", names, sizeof(names)) : NULL);
		uc_kv_add(kv, "audit-log", UC_V_STRING, log);
		uc_kv_add(kv, "audit-log-error", UC_V_STRING, log_errno ? strerror(log_errno) :
			  log_ok ? NULL : "unreadable");
		list[0] = '\0';
		for (i = 0; i < l->n; i++) {
			const struct uc_record *r = latest_at(l, i);

			snprintf(ev, sizeof(ev), "%lld.%03u:%llu", r->sec, r->msec, r->serial);
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
						i ? "\n" : "", ev);
			if (off >= sizeof(list))
				break;
		}
		uc_kv_add(kv, "latest-incidents", UC_V_LIST, list);
	}
	rc = uc_kv_print_json(kv, stdout);
	uc_kv_free(kv);
	if (rc) {
		uc_err("cannot print the status: %s", strerror(-rc));
		return UC_EXIT_FAILURE;
	}
	return st ? UC_EXIT_OK : UC_EXIT_UNSUPPORTED;
}

static int cmd_status(struct opts *o)
{
	char viol[32] = "", boot[16];
	const char *bootmode, *log = o->nfiles ? o->files[o->nfiles - 1] : UC_AUDIT_LOG;
	struct uc_filter f = { .kinds = UC_INCIDENT };
	struct latest l = { .n = 0 };
	struct uc_state st;
	struct uc_modes m;
	struct uc_kconfig kc;
	struct wl_summary ws;
	int have_viol, log_ok, log_errno = 0, ret;
	size_t i;

	if (uc_state_read(&st) != 0) {
		if (o->out.json)
			return status_json(NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, NULL);
		printf("usercopy: the running kernel has no usercopy control (%s is missing)\n",
		       uc_sysctl_dir());
		return UC_EXIT_UNSUPPORTED;
	}
	have_viol = uc_sysctl_read("violations", viol, sizeof(viol)) == 0 &&
		    viol[0] && strspn(viol, "0123456789") == strlen(viol);
	uc_modes_read(&m);
	bootmode = uc_boot_mode(&m, boot, sizeof(boot));
	uc_kconfig_read(&kc);
	wl_summary_read(&ws);

	log_ok = access(log, R_OK) == 0;
	if (!log_ok)
		log_errno = errno;
	else if (read_log(log, &f, 1, keep_latest, &l) != 0)
		log_ok = 0;

	if (o->out.json) {
		ret = status_json(&st, have_viol ? viol : NULL, &m, bootmode, &kc, &ws,
				  log, log_ok, log_errno, &l);
		goto out;
	}
	printf("Mode:            %s%s\n", st.have_mode ? st.mode : "unknown",
	       st.have_mode && strcmp(st.mode, "off") == 0 ? " (no checks are made)" :
	       st.have_mode && strcmp(st.mode, "log") == 0 ? " (violations are logged, not blocked)" : "");
	printf("Locked:          %s\n",
	       st.locked < 0 ? "unknown" : st.locked ? "yes, until reboot" : "no");
	printf("Violations:      %s%s\n", have_viol ? viol : "unknown",
	       have_viol ? " since boot" : "");
	if (m.from_kernel) {
		char names[128];

		printf("Modes available: %s\n", uc_modes_join(&m, " ", " ", names, sizeof(names)));
	}
	if (bootmode)
		printf("Boot mode:       %s (kernel command line)\n", bootmode);
	printf("Kernel config:   %s\n", kc.source[0] ? kc.source : "unknown (not found)");
	printf("Checks:\n");
	printf("  hardened usercopy:  %s\n", uc_kconfig_hardened(&kc));
	printf("  stack frames:       %s\n", uc_kconfig_frames(&kc));
	printf("  slab allocator:     %s\n", uc_kconfig_allocator(&kc));
	printf("  whitelisting:       %s%s\n", uc_kconfig_whitelisting(&kc),
	       strcmp(uc_kconfig_whitelisting(&kc), "active") == 0 ?
	       " (usercopy whitelists of kmem caches)" : "");
	if (ws.known) {
		char text[256];

		printf("Whitelist:       %lu caches (%s)\n", ws.total,
		       wl_summary_text(&ws, text, sizeof(text)));
		if (ws.have_allowed && ws.allowed.n) {
			char names[sizeof(ws.allowed.buf)];

			printf("Allowed caches:  %s (whitelisted whole by the admin)\n",
			       allowed_list(&ws, " ", names, sizeof(names)));
		}
	}
	ret = UC_EXIT_OK;
	if (!log_ok) {
		printf("\nLatest incidents: %s is not readable%s%s%s\n", log,
		       log_errno ? " (" : "", log_errno ? strerror(log_errno) : "",
		       log_errno ? ")" : "");
	} else if (!l.n) {
		printf("\nLatest incidents: none in %s\n", log);
	} else {
		struct uc_report *rp;
		int rc = 0;

		printf("\nLatest incidents (%s):\n", log);
		fflush(stdout);
		rp = uc_report_new(&o->out, UC_INCIDENT, 0, stdout);
		if (!rp)
			out_of_memory();
		for (i = 0; i < l.n && rc == 0; i++)
			rc = uc_report_add(rp, latest_at(&l, i));
		if (rc == 0)
			rc = uc_report_finish(rp);
		uc_report_free(rp);
		if (rc) {
			uc_err("cannot print the incidents: %s", strerror(-rc));
			ret = UC_EXIT_FAILURE;
		}
	}
out:
	for (i = 0; i < l.n; i++)
		uc_record_free(&l.r[i]);
	return ret;
}

/* ---- mode and lock ----------------------------------------------------- */

static void refused(int err, const char *what)
{
	struct uc_state st;

	if (err == -EPERM || err == -EACCES) {
		if (uc_state_read(&st) == 0 && st.locked == 1)
			uc_err("cannot %s: the mode is locked until reboot", what);
		else
			uc_err("cannot %s: permission denied (CAP_SYS_ADMIN is needed; run as root)",
			       what);
	} else if (err == -EINVAL) {
		uc_err("cannot %s: the kernel refused the value", what);
	} else {
		uc_err("cannot %s: %s", what, strerror(-err));
	}
}

/* What mode and lock share: the kernel is there, its mode is readable. */
static int kernel_state(struct uc_state *st)
{
	if (uc_state_read(st) != 0) {
		uc_err("the running kernel has no usercopy control (%s is missing)",
		       uc_sysctl_dir());
		return UC_EXIT_UNSUPPORTED;
	}
	if (!st->have_mode) {
		uc_err("cannot read %s/mode: %s", uc_sysctl_dir(), strerror(-st->mode_err));
		return UC_EXIT_FAILURE;
	}
	return UC_EXIT_OK;
}

static int cmd_mode(struct opts *o, const char *want)
{
	char path[4096], what[64], names[128];
	struct uc_persist p = { .tmp = "" };
	struct uc_state st;
	struct uc_modes m;
	int rc;

	uc_modes_read(&m);
	if (want && !uc_mode_valid(&m, want)) {
		uc_err("invalid mode '%s' (use %s)", want,
		       uc_modes_join(&m, ", ", " or ", names, sizeof(names)));
		return UC_EXIT_FAILURE;
	}
	if ((rc = kernel_state(&st)))
		return rc;
	if (!want) {
		if (o->out.json) {
			struct uc_kv *kv = uc_kv_new("mode");

			if (!kv)
				out_of_memory();
			uc_kv_add(kv, "mode", UC_V_STRING, st.mode);
			uc_kv_add(kv, "locked", UC_V_BOOL, st.locked < 0 ? NULL :
				  st.locked ? "1" : "0");
			rc = uc_kv_print_json(kv, stdout);
			uc_kv_free(kv);
			if (rc) {
				uc_err("cannot print the mode: %s", strerror(-rc));
				return UC_EXIT_FAILURE;
			}
		} else {
			printf("%s\n", st.mode);
		}
		return UC_EXIT_OK;
	}

	snprintf(what, sizeof(what), "set the mode to %s", want);
	if (o->persist_file)
		snprintf(path, sizeof(path), "%s", o->persist_file);
	else
		uc_persist_default(path, sizeof(path));

	if (st.locked == 1 && strcmp(st.mode, want) != 0) {
		uc_err("cannot %s: the mode is locked (%s) until reboot", what, st.mode);
		return UC_EXIT_FAILURE;
	}
	if (st.locked != 1) {
		char mpath[PATH_MAX];

		snprintf(mpath, sizeof(mpath), "%s/mode", uc_sysctl_dir());
		if (access(mpath, W_OK) != 0) {
			refused(-errno, what);
			return UC_EXIT_FAILURE;
		}
	}
	if (o->persist) {
		rc = uc_persist_prepare(&p, path, want, &m);
		if (rc) {
			uc_err("cannot %s: cannot write %s: %s", what, path,
			       strerror(-rc));
			return UC_EXIT_FAILURE;
		}
	}
	if (st.locked == 1) {
		/* Already in that mode: nothing for the kernel to do. */
		printf("mode is already %s (locked until reboot)\n", st.mode);
	} else {
		rc = uc_sysctl_write("mode", want);
		if (rc) {
			uc_persist_abort(&p);
			refused(rc, what);
			return UC_EXIT_FAILURE;
		}
		if (strcmp(st.mode, want) == 0)
			printf("mode is %s (unchanged)\n", want);
		else
			printf("mode changed from %s to %s\n", st.mode, want);
	}
	if (o->persist) {
		rc = uc_persist_commit(&p);
		if (rc) {
			uc_err("mode %s is not persistent: cannot write %s: %s",
			       want, path, strerror(-rc));
			return UC_EXIT_FAILURE;
		}
		printf("mode %s will be set at boot by %s\n", want, path);
	}
	return UC_EXIT_OK;
}

static int confirm(const char *question)
{
	char answer[16];

	fputs(question, stderr);
	fflush(stderr);
	if (!fgets(answer, sizeof(answer), stdin))
		return 0;
	return strcmp(answer, "y\n") == 0 || strcmp(answer, "Y\n") == 0 ||
	       strcmp(answer, "yes\n") == 0 || strcmp(answer, "YES\n") == 0;
}

static int cmd_lock(struct opts *o)
{
	struct uc_state st;
	char question[128];
	int rc;

	if ((rc = kernel_state(&st)))
		return rc;
	if (st.locked == 1) {
		printf("mode is already locked (%s) until reboot\n", st.mode);
		return UC_EXIT_OK;
	}
	if (!o->yes) {
		if (!isatty(STDIN_FILENO)) {
			uc_err("not locking without confirmation: standard input is not a terminal (use --yes)");
			return UC_EXIT_FAILURE;
		}
		snprintf(question, sizeof(question), "Lock the usercopy mode (%s) until the "
			 "next reboot? This cannot be undone. [y/N] ", st.mode);
		if (!confirm(question)) {
			printf("not locked\n");
			return UC_EXIT_FAILURE;
		}
	}
	rc = uc_sysctl_write("locked", "1");
	if (rc) {
		refused(rc, "lock the mode");
		return UC_EXIT_FAILURE;
	}
	printf("mode locked (%s) until reboot\n", st.mode);
	if (strcmp(st.mode, "enforce") != 0)
		uc_warn("the locked mode is %s: violations are not blocked", st.mode);
	return UC_EXIT_OK;
}

/* ---- report and monitor ------------------------------------------------ */

static int report_add(void *ctx, const struct uc_record *r)
{
	return uc_report_add(ctx, r);
}

/* Was the same file given before (also by another name)? */
static int same_file_before(struct opts *o, size_t i, struct stat *st)
{
	struct stat sj;
	size_t j;

	if (strcmp(o->files[i], "-") == 0 || stat(o->files[i], st) != 0)
		return -1;
	for (j = 0; j < i; j++)
		if (strcmp(o->files[j], "-") != 0 && stat(o->files[j], &sj) == 0 &&
		    sj.st_dev == st->st_dev && sj.st_ino == st->st_ino)
			return (int)j;
	return -1;
}

/* Every log of -f (each file once), or the default one: an exit code. */
static int read_logs(struct opts *o, record_fn fn, void *ctx)
{
	struct stat st;
	size_t i;
	int rc = UC_EXIT_OK, j, stdin_used = 0;

	if (o->nfiles == 0)
		o->files[o->nfiles++] = UC_AUDIT_LOG;
	for (i = 0; i < o->nfiles; i++) {
		if (strcmp(o->files[i], "-") == 0) {
			if (stdin_used++) {
				uc_warn("standard input given twice, read once");
				continue;
			}
		} else if ((j = same_file_before(o, i, &st)) >= 0) {
			uc_warn("%s is %s again, read once", o->files[i], o->files[j]);
			continue;
		}
		if (read_log(o->files[i], &o->filter, 0, fn, ctx) != 0)
			rc = UC_EXIT_FAILURE;
	}
	return rc;
}

static int suggest_add(void *ctx, const struct uc_record *r)
{
	return uc_suggest_add(ctx, r);
}

static void proc_warn_bad(const char *path, const struct uc_proc_bad *bad);

static int cmd_suggest(struct opts *o)
{
	struct uc_whitelist wl;
	struct uc_suggest *sg;
	int rc, have_wl;

	rc = uc_whitelist_read(&wl);
	have_wl = rc == 0;
	if (have_wl)
		proc_warn_bad(wl.path, &wl.bad);
	else
		uc_warn("the origins of the caches are unknown: cannot read %s: %s",
			wl.path, rc == -EBADMSG ? "not in the format of this usercopyctl" :
			strerror(-rc));
	sg = uc_suggest_new(have_wl ? &wl : NULL);
	if (!sg)
		out_of_memory();
	o->filter.kinds = UC_INCIDENT;
	rc = read_logs(o, suggest_add, sg);
	if (rc == UC_EXIT_OK && (uc_suggest_groups(sg) || o->out.json)) {
		int e = uc_suggest_print(sg, &o->out, &o->cols, stdout);

		if (e) {
			uc_err("write error: %s", strerror(-e));
			rc = UC_EXIT_FAILURE;
		}
	}
	if (rc == UC_EXIT_OK && !uc_suggest_groups(sg)) {
		uc_err("no matching incidents of log mode (copies that were made)");
		rc = UC_EXIT_FAILURE;
	}
	uc_suggest_free(sg);
	if (have_wl)
		uc_whitelist_free(&wl);
	return rc;
}

static int cmd_report(struct opts *o)
{
	struct uc_report *rp;
	int rc;

	if (o->suggest)
		return cmd_suggest(o);
	rp = uc_report_new(&o->out, o->summary ? UC_INCIDENT : o->filter.kinds,
			   o->summary, stdout);
	if (!rp)
		out_of_memory();
	rc = read_logs(o, report_add, rp);
	if (rc == UC_EXIT_OK) {
		int e = uc_report_finish(rp);

		if (e) {
			uc_err("write error: %s", strerror(-e));
			rc = UC_EXIT_FAILURE;
		} else if (uc_report_count(rp) == 0) {
			uc_err("no matching %s",
			       o->summary || o->filter.kinds == UC_INCIDENT ? "incidents" :
			       o->filter.kinds == UC_MODE_CHANGE ? "mode changes" :
			       "incidents or mode changes");
			rc = UC_EXIT_FAILURE;
		}
	}
	uc_report_free(rp);
	return rc;
}

static int cmd_monitor(struct opts *o)
{
	struct uc_monitor_opts mo = {
		.out = o->out, .filter = o->filter,
		.count = o->count, .timeout = o->timeout, .warn = stderr,
	};
	struct uc_monitor_result res;

	mo.filter.kinds = UC_INCIDENT;
	if (uc_monitor(&mo, &res) != 0) {
		uc_err("%s", res.err);
		return UC_EXIT_FAILURE;
	}
	/* Asked for N incidents and the time ran out first. */
	if (res.timed_out && mo.count && res.seen < mo.count) {
		uc_err("timed out after %g s with %lu of %lu incidents", mo.timeout,
		       res.seen, mo.count);
		return UC_EXIT_FAILURE;
	}
	return UC_EXIT_OK;
}

/* ---- whitelist, sites and allow ------------------------------------------ */

/* Say why a /proc/usercopy file cannot be read: the exit code. */
static int proc_error(const char *path, int err, const char *what)
{
	if (err == -ENOENT) {
		uc_err("the running kernel does not show its %s (%s is missing)", what, path);
		return UC_EXIT_UNSUPPORTED;
	}
	if (err == -EACCES || err == -EPERM)
		uc_err("cannot read %s: permission denied (it is readable by root only)", path);
	else if (err == -EBADMSG)
		uc_err("cannot read %s: not in the format of this usercopyctl (first line)", path);
	else
		uc_err("cannot read %s: %s", path, strerror(-err));
	return UC_EXIT_FAILURE;
}

static void proc_warn_bad(const char *path, const struct uc_proc_bad *bad)
{
	unsigned long i;

	for (i = 0; i < bad->n && i < UC_PROC_BAD_KEPT; i++)
		uc_warn("%s:%lu: %s, skipped", path, bad->line[i], bad->why[i]);
	if (bad->n > UC_PROC_BAD_KEPT)
		uc_warn("%s: %lu more bad lines skipped", path, bad->n - UC_PROC_BAD_KEPT);
}

static const char *origin_description(const char *origin)
{
	static const struct {
		const char *origin, *text;
	} d[] = {
		{ "flag", "created with SLAB_USERCOPY: the whole object" },
		{ "kmalloc", "a kmalloc cache: the whole object" },
		{ "admin", "whitelisted whole by the admin (usercopyctl allow, usercopy_allow=)" },
		{ "region", "the region given to kmem_cache_create_usercopy()" },
		{ "none", "no whitelist: every copy refused" },
	};
	size_t i;

	for (i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		if (strcmp(origin, d[i].origin) == 0)
			return d[i].text;
	return NULL;
}

/* Is @origin in the comma-separated @list? */
static int in_list(const char *list, const char *origin)
{
	size_t len = strlen(origin);
	const char *p = list;

	for (;;) {
		size_t n = strcspn(p, ",");

		if (n == len && strncmp(p, origin, n) == 0)
			return 1;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

static int cmd_whitelist(struct opts *o, char **pattern, int npattern)
{
	struct uc_whitelist wl;
	struct uc_table *t;
	unsigned long shown = 0;
	size_t i;
	int rc, j;

	rc = uc_whitelist_read(&wl);
	if (rc)
		return proc_error(wl.path, rc, "usercopy whitelist");
	proc_warn_bad(wl.path, &wl.bad);
	t = uc_table_new(&o->out, stdout, "whitelist", uc_wl_cols, &o->cols);
	if (!t)
		out_of_memory();
	for (i = 0; i < wl.n && rc == 0; i++) {
		const struct uc_wl_cache *c = &wl.c[i];
		const char *cells[UC_WL_NCOLS];
		char size[24], off[24], usize[24];

		if (o->origins && !in_list(o->origins, c->origin))
			continue;
		for (j = 0; j < npattern; j++)
			if (fnmatch(pattern[j], c->name, 0) == 0)
				break;
		if (npattern && j == npattern)
			continue;
		snprintf(size, sizeof(size), "%llu", c->size);
		snprintf(off, sizeof(off), "%llu", c->useroffset);
		snprintf(usize, sizeof(usize), "%llu", c->usersize);
		cells[UC_WL_CACHE] = c->name;
		cells[UC_WL_SIZE] = size;
		cells[UC_WL_OFFSET] = off;
		cells[UC_WL_USERSIZE] = usize;
		cells[UC_WL_ORIGIN] = c->origin;
		cells[UC_WL_DESCRIPTION] = origin_description(c->origin);
		rc = uc_table_add(t, cells);
		shown++;
	}
	if (rc == 0 && (shown || o->out.json))
		rc = uc_table_print(t);
	uc_table_free(t);
	uc_whitelist_free(&wl);
	if (rc) {
		uc_err("cannot print the whitelist: %s", strerror(-rc));
		return UC_EXIT_FAILURE;
	}
	if (!shown) {
		uc_err("no matching caches");
		return UC_EXIT_FAILURE;
	}
	return UC_EXIT_OK;
}

static int cmd_sites(struct opts *o)
{
	struct uc_sites s;
	struct uc_table *t;
	size_t i;
	int rc;

	rc = uc_sites_read(&s);
	if (rc)
		return proc_error(s.path, rc, "call sites of violations");
	proc_warn_bad(s.path, &s.bad);
	t = uc_table_new(&o->out, stdout, "sites", uc_st_cols, &o->cols);
	if (!t)
		out_of_memory();
	for (i = 0; i < s.n && rc == 0; i++) {
		const struct uc_site *e = &s.s[i];
		const char *cells[UC_ST_NCOLS];
		char count[24];

		snprintf(count, sizeof(count), "%llu", e->count);
		cells[UC_ST_COUNT] = count;
		cells[UC_ST_REGION] = e->region;
		cells[UC_ST_CACHE] = e->cache;
		cells[UC_ST_SITE] = e->site;
		rc = uc_table_add(t, cells);
	}
	/* Also an empty table: its heading says what would be there. */
	if (rc == 0)
		rc = uc_table_print(t);
	uc_table_free(t);
	uc_sites_free(&s);
	if (rc) {
		uc_err("cannot print the sites: %s", strerror(-rc));
		return UC_EXIT_FAILURE;
	}
	return UC_EXIT_OK;
}

/* The admin's allow list for allow and status: 0, or an exit code after
 * saying why it cannot be read. */
static int read_allowed(struct uc_allowed *a)
{
	int rc = uc_allowed_read(a);

	if (rc == -ENOENT) {
		uc_err("the running kernel has no usercopy allow list (%s/allow is missing)",
		       uc_sysctl_dir());
		return UC_EXIT_UNSUPPORTED;
	}
	if (rc) {
		uc_err("cannot read %s/allow: %s", uc_sysctl_dir(), strerror(-rc));
		return UC_EXIT_FAILURE;
	}
	return 0;
}

static void allow_refused(int err, const char *name)
{
	struct uc_state st;

	if (err == -EPERM || err == -EACCES) {
		if (uc_state_read(&st) == 0 && st.locked == 1)
			uc_err("cannot allow %s: the usercopy configuration is locked until reboot",
			       name);
		else
			uc_err("cannot allow %s: permission denied (CAP_SYS_ADMIN in the initial "
			       "user namespace is needed; run as root)", name);
	} else if (err == -EINVAL) {
		uc_err("cannot allow %s: no cache named %s", name, name);
	} else if (err == -ENOSPC) {
		uc_err("cannot allow %s: the kernel has %d caches whitelisted by the admin "
		       "already, the most it takes", name, UC_MAX_ALLOWED);
	} else {
		uc_err("cannot allow %s: %s", name, strerror(-err));
	}
}

static int confirm(const char *question);

static int cmd_allow(struct opts *o, const char *name)
{
	char path[PATH_MAX], question[512];
	const struct uc_wl_cache *c = NULL;
	struct uc_whitelist wl;
	struct uc_allowed a;
	struct uc_state st;
	size_t i;
	int rc;

	if (name && !uc_cache_name_valid(name)) {
		uc_err("invalid cache name (empty, longer than %d bytes, or with a space "
		       "or a control character)", UC_CACHE_NAME_MAX);
		return UC_EXIT_FAILURE;
	}
	if ((rc = kernel_state(&st)))
		return rc;
	if ((rc = read_allowed(&a)))
		return rc;
	if (!name) {
		char list[sizeof(a.buf)];
		struct uc_kv *kv;
		size_t off = 0;

		if (!o->out.json) {
			for (i = 0; i < a.n; i++)
				printf("%s\n", a.name[i]);
			return UC_EXIT_OK;
		}
		list[0] = '\0';
		for (i = 0; i < a.n; i++)
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
						i ? "\n" : "", a.name[i]);
		kv = uc_kv_new("allow");
		if (!kv)
			out_of_memory();
		uc_kv_add(kv, "caches", UC_V_LIST, list);
		rc = uc_kv_print_json(kv, stdout);
		uc_kv_free(kv);
		if (rc) {
			uc_err("cannot print the allow list: %s", strerror(-rc));
			return UC_EXIT_FAILURE;
		}
		return UC_EXIT_OK;
	}

	/* Everything that can be known is checked before asking. */
	if (uc_allowed_has(&a, name)) {
		printf("cache %s is whitelisted by the admin already\n", name);
		return UC_EXIT_OK;
	}
	if (st.locked == 1) {
		uc_err("cannot allow %s: the usercopy configuration is locked until reboot", name);
		return UC_EXIT_FAILURE;
	}
	/* The whitelist, where it can be read (root): does the cache exist? */
	if (uc_whitelist_read(&wl) == 0) {
		c = uc_whitelist_find(&wl, name);
		if (!c) {
			uc_whitelist_free(&wl);
			allow_refused(-EINVAL, name);
			return UC_EXIT_FAILURE;
		}
		if (strcmp(c->origin, "region") != 0 && strcmp(c->origin, "none") != 0) {
			printf("cache %s is whitelisted whole already (%s)\n", name, c->origin);
			uc_whitelist_free(&wl);
			return UC_EXIT_OK;
		}
		uc_whitelist_free(&wl);
	}
	snprintf(path, sizeof(path), "%s/allow", uc_sysctl_dir());
	if (access(path, W_OK) != 0) {
		allow_refused(-errno, name);
		return UC_EXIT_FAILURE;
	}
	if (!o->yes) {
		if (!isatty(STDIN_FILENO)) {
			uc_err("not allowing %s without confirmation: standard input is not a "
			       "terminal (use --yes)", name);
			return UC_EXIT_FAILURE;
		}
		snprintf(question, sizeof(question),
			 "Allow every copy to and from the objects of cache %s until the next "
			 "reboot? This cannot be undone. [y/N] ", name);
		if (!confirm(question)) {
			printf("not allowed\n");
			return UC_EXIT_FAILURE;
		}
	}
	rc = uc_sysctl_write("allow", name);
	if (rc) {
		allow_refused(rc, name);
		return UC_EXIT_FAILURE;
	}
	printf("cache %s whitelisted whole until reboot\n", name);
	return UC_EXIT_OK;
}

/* ---- main -------------------------------------------------------------- */

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json",	  no_argument,	     NULL, 'J' },
		{ "noheadings",	  no_argument,	     NULL, 'n' },
		{ "raw",	  no_argument,	     NULL, 'r' },
		{ "pairs",	  no_argument,	     NULL, 'P' },
		{ "output",	  required_argument, NULL, 'o' },
		{ "output-all",	  no_argument,	     NULL, OPT_OUTPUT_ALL },
		{ "list-columns", no_argument,	     NULL, 'H' },
		{ "time-format",  required_argument, NULL, OPT_TIME_FORMAT },
		{ "file",	  required_argument, NULL, 'f' },
		{ "since",	  required_argument, NULL, OPT_SINCE },
		{ "until",	  required_argument, NULL, OPT_UNTIL },
		{ "pid",	  required_argument, NULL, OPT_PID },
		{ "uid",	  required_argument, NULL, OPT_UID },
		{ "incidents",	  no_argument,	     NULL, OPT_INCIDENTS },
		{ "mode-changes", no_argument,	     NULL, OPT_CHANGES },
		{ "sort",	  required_argument, NULL, OPT_SORT },
		{ "summary",	  no_argument,	     NULL, OPT_SUMMARY },
		{ "suggest",	  no_argument,	     NULL, OPT_SUGGEST },
		{ "origin",	  required_argument, NULL, OPT_ORIGIN },
		{ "persist",	  optional_argument, NULL, OPT_PERSIST },
		{ "yes",	  no_argument,	     NULL, 'y' },
		{ "count",	  required_argument, NULL, 'c' },
		{ "timeout",	  required_argument, NULL, 't' },
		{ "help",	  no_argument,	     NULL, 'h' },
		{ "version",	  no_argument,	     NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const unsigned RECORDS = C_STATUS | C_REPORT | C_MONITOR;
	const unsigned TABLES = RECORDS | C_WHITELIST | C_SITES;
	const unsigned LOGS = C_REPORT | C_MONITOR;
	const struct uc_coldef *defs = NULL;
	size_t ndefs = 0;
	struct opts o;
	const char *output = NULL, *sort = NULL;
	int c, cmd = 0, output_all = 0, list_columns = 0;
	size_t i;
	char *end, bad[80];

	setlocale(LC_ALL, "");
	memset(&o, 0, sizeof(o));
	o.filter.kinds = UC_ALL_KINDS;
	o.out.sort_col = -1;
	uc_columns_default(&o.out);

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":JnrPo:Hf:yc:t:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'J':
			o.out.json = 1;
			limit(&o, TABLES | C_MODE | C_ALLOW, "--json");
			break;
		case 'n':
			o.out.noheadings = 1;
			limit(&o, TABLES, "--noheadings");
			break;
		case 'r':
			o.out.raw = 1;
			limit(&o, TABLES, "--raw");
			break;
		case 'P':
			o.out.pairs = 1;
			limit(&o, TABLES, "--pairs");
			break;
		case 'o':
			output = optarg;
			limit(&o, TABLES, "--output");
			break;
		case OPT_OUTPUT_ALL:
			output_all = 1;
			limit(&o, TABLES, "--output-all");
			break;
		case 'H':
			list_columns = 1;
			break;
		case OPT_TIME_FORMAT:
			if (strcmp(optarg, "short") == 0)
				o.out.time_format = UC_TIME_SHORT;
			else if (strcmp(optarg, "iso") == 0)
				o.out.time_format = UC_TIME_ISO;
			else if (strcmp(optarg, "raw") == 0)
				o.out.time_format = UC_TIME_RAW;
			else
				bad_usage("invalid time format: '%s' (use short, iso or raw)", optarg);
			limit(&o, RECORDS, "--time-format");
			break;
		case 'f':
			if (o.nfiles == sizeof(o.files) / sizeof(o.files[0]))
				bad_usage("too many --file options");
			o.files[o.nfiles++] = optarg;
			limit(&o, C_STATUS | C_REPORT, "--file");
			break;
		case OPT_SINCE:
		case OPT_UNTIL: {
			long long ms;

			if (uc_parse_time(optarg, &ms) != 0)
				bad_usage("invalid time: '%s'", optarg);
			if (c == OPT_SINCE) {
				o.filter.has_since = 1;
				o.filter.since_ms = ms;
			} else {
				o.filter.has_until = 1;
				/* to the end of that second */
				o.filter.until_ms = ms + 999;
			}
			limit(&o, C_REPORT, c == OPT_SINCE ? "--since" : "--until");
			break;
		}
		case OPT_PID:
			o.filter.has_pid = 1;
			o.filter.pid = parse_number(optarg, "process id", 4294967295UL);
			limit(&o, LOGS, "--pid");
			break;
		case OPT_UID:
			o.filter.has_uid = 1;
			o.filter.uid = parse_user(optarg);
			limit(&o, LOGS, "--uid");
			break;
		case OPT_INCIDENTS:
			o.filter.kinds &= ~(UC_MODE_CHANGE | UC_ALLOW_CHANGE);
			limit(&o, C_REPORT, "--incidents");
			break;
		case OPT_CHANGES:
			o.filter.kinds &= ~(UC_INCIDENT | UC_ALLOW_CHANGE);
			limit(&o, C_REPORT, "--mode-changes");
			break;
		case OPT_SORT:
			sort = optarg;
			limit(&o, C_REPORT, "--sort");
			break;
		case OPT_SUMMARY:
			o.summary = 1;
			limit(&o, C_REPORT, "--summary");
			break;
		case OPT_SUGGEST:
			o.suggest = 1;
			limit(&o, C_REPORT, "--suggest");
			break;
		case OPT_ORIGIN: {
			const char *p = optarg;

			do {
				size_t n = strcspn(p, ",");
				char word[16];

				snprintf(word, sizeof(word), "%.*s", (int)(n < 15 ? n : 15), p);
				if (n >= sizeof(word) || !uc_origin_valid(word))
					bad_usage("invalid origin: '%.*s' (use flag, kmalloc, "
						  "admin, region or none)", (int)n, p);
				p += n;
			} while (*p++ == ',');
			o.origins = optarg;
			limit(&o, C_WHITELIST, "--origin");
			break;
		}
		case OPT_PERSIST:
			o.persist = 1;
			if (optarg && !*optarg)
				bad_usage("--persist= needs a file name");
			o.persist_file = optarg;
			limit(&o, C_MODE, "--persist");
			break;
		case 'y':
			o.yes = 1;
			limit(&o, C_LOCK | C_ALLOW, "--yes");
			break;
		case 'c':
			o.count = parse_number(optarg, "count", ULONG_MAX);
			if (!o.count)
				bad_usage("invalid count: '%s'", optarg);
			limit(&o, C_MONITOR, "--count");
			break;
		case 't':
			errno = 0;
			o.timeout = strtod(optarg, &end);
			if (!*optarg || *end || errno || !(o.timeout > 0) ||
			    o.timeout > 1e7)
				bad_usage("invalid timeout: '%s'", optarg);
			limit(&o, C_MONITOR, "--timeout");
			break;
		case 'h':
			usage();
		case 'V':
			printf("%s from %s %s\n", UC_NAME, UC_PACKAGE, UC_VERSION);
			return UC_EXIT_OK;
		case ':':
			bad_usage("option '%s' requires an argument", argv[optind - 1]);
		default:
			if (optopt)
				bad_usage("invalid option -- '%c'", optopt);
			bad_usage("unrecognized option '%s'", argv[optind - 1]);
		}
	}
	if (o.out.json + o.out.raw + o.out.pairs > 1)
		bad_usage("--json, --raw and --pairs exclude each other");
	if (o.out.json && o.out.noheadings)
		bad_usage("--json does not go with --noheadings");
	if (optind < argc) {
		cmd = parse_command(argv[optind]);
		if (!cmd)
			bad_usage("unknown command '%s'", argv[optind]);
	}
	/* The tables that are not of audit records have columns of their own. */
	if (cmd == C_WHITELIST) {
		defs = uc_wl_cols;
		ndefs = UC_WL_NCOLS;
	} else if (cmd == C_SITES) {
		defs = uc_st_cols;
		ndefs = UC_ST_NCOLS;
	} else if (cmd == C_REPORT && o.suggest) {
		defs = uc_sg_cols;
		ndefs = UC_SG_NCOLS;
	}
	if (list_columns) {
		int rc;

		if (cmd & (C_MODE | C_LOCK | C_ALLOW))
			bad_usage("--list-columns does not go with the %s command", argv[optind]);
		rc = defs ? uc_cols_list(&o.out, stdout, defs, ndefs) :
			    uc_columns_list(&o.out, stdout);
		if (rc) {
			uc_err("cannot list the columns: %s", strerror(-rc));
			return UC_EXIT_FAILURE;
		}
		return UC_EXIT_OK;
	}
	if (o.filter.kinds == 0)
		bad_usage("--incidents and --mode-changes exclude each other");
	if (!cmd)
		bad_usage("no command given");
	for (i = 0; i < o.nused; i++)
		if (!(o.used[i].cmds & (unsigned)cmd))
			bad_usage("option %s does not go with the %s command",
				  o.used[i].name, argv[optind]);
	if (cmd != C_WHITELIST && argc - optind > (cmd & (C_MODE | C_ALLOW) ? 2 : 1))
		bad_usage("too many arguments");
	if (o.yes && cmd == C_ALLOW && argc - optind < 2)
		bad_usage("--yes needs a cache to allow");
	if (o.persist && argc - optind < 2)
		bad_usage("--persist needs a mode to set");
	if (o.summary && (sort || (o.filter.kinds & UC_INCIDENT) == 0))
		bad_usage("--summary does not go with --sort or --mode-changes");
	if (o.suggest && (sort || o.summary || (o.filter.kinds & UC_INCIDENT) == 0))
		bad_usage("--suggest does not go with --sort, --summary or --mode-changes");

	if (defs) {
		if (output_all)
			uc_cols_all(&o.cols, ndefs);
		else
			uc_cols_default(&o.cols, defs, ndefs);
		if (output && uc_cols_parse(&o.cols, defs, ndefs, output, bad, sizeof(bad)) != 0)
			bad_usage("unknown column: %s", bad);
		output = NULL;
	} else if (output_all)
		uc_columns_all(&o.out);
	else if (!output && cmd == C_STATUS)
		uc_columns_parse(&o.out, "TIME,DIRECTION,REGION,CACHE,LENGTH,PID,COMM,ACTION",
				 bad, sizeof(bad));
	else if (!output && o.summary)
		uc_columns_parse(&o.out, "DIRECTION,REGION,CACHE,EXE,ACTION", bad, sizeof(bad));
	else if (!output && o.out.json)
		uc_columns_parse(&o.out, "+EPOCH", bad, sizeof(bad));
	if (output && uc_columns_parse(&o.out, output, bad, sizeof(bad)) != 0)
		bad_usage("unknown column: %s", bad);
	if (sort) {
		o.out.sort_col = uc_column_find(sort);
		if (o.out.sort_col < 0)
			bad_usage("unknown column: %s", sort);
	}

	switch (cmd) {
	case C_STATUS:
		return cmd_status(&o);
	case C_MODE:
		return cmd_mode(&o, argv[optind + 1]);
	case C_LOCK:
		return cmd_lock(&o);
	case C_REPORT:
		return cmd_report(&o);
	case C_MONITOR:
		return cmd_monitor(&o);
	case C_WHITELIST:
		return cmd_whitelist(&o, argv + optind + 1, argc - optind - 1);
	case C_SITES:
		return cmd_sites(&o);
	default:
		return cmd_allow(&o, argv[optind + 1]);
	}
}
