/*
 * usercopyctl - inspect and control the kernel's usercopy hardening
 *
 * The command line and the commands status, mode, lock, report and
 * monitor.  See usercopyctl(8).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "usercopyctl.h"

#define STATUS_INCIDENTS	5

static void vmessage(const char *kind, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: %s", UC_NAME, kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void uc_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
}

void uc_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("warning: ", fmt, ap);
	va_end(ap);
}

static void __attribute__((noreturn)) bad_usage(const char *fmt, ...)
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

static void __attribute__((noreturn)) usage(void)
{
	FILE *out = stdout;

	fputs("\nUsage:\n"
	      " " UC_NAME " [options] status\n"
	      " " UC_NAME " [options] mode [off|log|enforce]\n"
	      " " UC_NAME " [options] lock\n"
	      " " UC_NAME " [options] report\n"
	      " " UC_NAME " [options] monitor\n", out);
	fputs("\nShow and control the kernel's usercopy hardening, and list what it caught.\n", out);
	fputs("\nCommands:\n"
	      " status                  mode, lock, violations, active checks, latest incidents\n"
	      " mode [<mode>]           show the mode, or set it to off, log or enforce\n"
	      " lock                    keep the mode as it is until the next reboot\n"
	      " report                  incidents and mode changes from the audit log\n"
	      " monitor                 incidents as the kernel reports them\n", out);
	fputs("\nOptions:\n"
	      " -J, --json              use JSON output format\n"
	      " -n, --noheadings        don't print headings\n"
	      " -r, --raw               use the raw output format\n"
	      " -o, --output <list>     the incident columns to print (+<list> adds)\n"
	      "     --output-all        print all incident columns\n"
	      " -f, --file <file>       audit log to read (default " UC_AUDIT_LOG ")\n"
	      "     --since <time>      only what happened at or after <time>\n"
	      "     --until <time>      only what happened at or before <time>\n"
	      "     --pid <pid>         only incidents of this process\n"
	      "     --uid <user>        only what this user did (uid or login uid)\n"
	      "     --incidents         report: only the incidents\n"
	      "     --mode-changes      report: only the mode changes\n"
	      "     --persist[=<file>]  mode: also set it for the next boots, in\n"
	      "                           " UC_SYSCTL_D "/" UC_PERSIST_NAME "\n"
	      " -y, --yes               lock: don't ask for confirmation\n"
	      " -c, --count <n>         monitor: exit after <n> incidents\n"
	      " -t, --timeout <sec>     monitor: exit after <sec> seconds\n", out);
	fputs("\n -h, --help              display this help\n"
	      " -V, --version           display version\n", out);
	fputs("\n<time> is YYYY-MM-DD[ HH:MM[:SS]] in local time, @<seconds since\n"
	      "the epoch>, now, today or yesterday.\n", out);
	fputs("\nAvailable output columns:\n", out);
	uc_columns_help(out);
	fputs("\nFor more details see " UC_NAME "(8).\n", out);
	exit(UC_EXIT_OK);
}

/* ---- options ----------------------------------------------------------- */

enum {
	OPT_OUTPUT_ALL = 0x100, OPT_SINCE, OPT_UNTIL, OPT_PID, OPT_UID,
	OPT_PERSIST, OPT_INCIDENTS, OPT_CHANGES
};

/* Which command may use an option. */
enum { C_STATUS = 1, C_MODE = 2, C_LOCK = 4, C_REPORT = 8, C_MONITOR = 16 };

struct opts {
	struct uc_output out;
	struct uc_filter filter;
	const char *files[16];
	size_t nfiles;
	int persist;
	const char *persist_file;
	int yes;
	unsigned long count;
	double timeout;
	struct {
		const char *name;
		unsigned cmds;	/* C_* of the commands it goes with */
	} used[32];
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

static unsigned long parse_number(const char *s, const char *what)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (!*s || *end || errno || *s == '-' || *s == '+')
		bad_usage("invalid %s: '%s'", what, s);
	return v;
}

static unsigned long parse_user(const char *s)
{
	struct passwd *pw;

	if (*s >= '0' && *s <= '9')
		return parse_number(s, "user id");
	pw = getpwnam(s);
	if (!pw)
		bad_usage("unknown user: '%s'", s);
	return pw->pw_uid;
}

static const char *cmd_names[] = { "status", "mode", "lock", "report", "monitor" };

static int parse_command(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(cmd_names) / sizeof(cmd_names[0]); i++)
		if (strcmp(s, cmd_names[i]) == 0)
			return 1 << i;
	return 0;
}

/* ---- status ------------------------------------------------------------ */

static void unsupported_line(void)
{
	printf("usercopy: the running kernel has no usercopy control (%s is missing)\n",
	       uc_sysctl_dir());
}

static int need_kernel(void)
{
	if (uc_supported())
		return 0;
	uc_err("the running kernel has no usercopy control (%s is missing)",
	       uc_sysctl_dir());
	return UC_EXIT_UNSUPPORTED;
}

/* Read "locked": 1, 0, or -1 if unreadable. */
static int read_locked(void)
{
	char buf[16];

	if (uc_sysctl_read("locked", buf, sizeof(buf)) != 0)
		return -1;
	return strcmp(buf, "1") == 0;
}

static int cmd_status(struct opts *o)
{
	char mode[32] = "?", avail[64] = "", viol[32] = "", boot[16];
	const char *bootmode, *log = o->nfiles ? o->files[o->nfiles - 1] : UC_AUDIT_LOG;
	struct uc_filter f = { .incidents = 1 };
	struct uc_records rs = { 0 };
	struct uc_kconfig kc;
	int locked, have_mode, have_viol, log_ok, log_errno = 0;
	size_t first, i;

	if (!uc_supported()) {
		if (o->out.json)
			printf("{\"supported\": false, \"sysctl-dir\": \"%s\"}\n",
			       uc_sysctl_dir());
		else
			unsupported_line();
		return UC_EXIT_UNSUPPORTED;
	}
	have_mode = uc_sysctl_read("mode", mode, sizeof(mode)) == 0;
	locked = read_locked();
	have_viol = uc_sysctl_read("violations", viol, sizeof(viol)) == 0 &&
		    viol[0] && strspn(viol, "0123456789") == strlen(viol);
	if (uc_sysctl_read("modes_avail", avail, sizeof(avail)) != 0)
		avail[0] = '\0';
	bootmode = uc_boot_mode(boot, sizeof(boot));
	uc_kconfig_read(&kc);

	log_ok = access(log, R_OK) == 0;
	if (!log_ok)
		log_errno = errno;
	else if (uc_read_log(log, &f, &rs, UC_READ_QUIET |
			     (o->out.json ? UC_READ_JSON : 0)) != 0)
		log_ok = 0;
	first = rs.n > STATUS_INCIDENTS ? rs.n - STATUS_INCIDENTS : 0;

	if (o->out.json) {
		char *tok, *save = NULL;
		int n = 0;

		printf("{\n   \"supported\": true,\n   \"mode\": ");
		if (have_mode)
			uc_json_string(stdout, mode);
		else
			fputs("null", stdout);
		printf(",\n   \"locked\": %s,\n",
		       locked < 0 ? "null" : locked ? "true" : "false");
		printf("   \"violations\": %s,\n", have_viol ? viol : "null");
		fputs("   \"modes-available\": [", stdout);
		for (tok = strtok_r(avail, " ", &save); tok;
		     tok = strtok_r(NULL, " ", &save)) {
			fputs(n++ ? ", " : "", stdout);
			uc_json_string(stdout, tok);
		}
		fputs("],\n   \"boot-mode\": ", stdout);
		if (bootmode)
			uc_json_string(stdout, bootmode);
		else
			fputs("null", stdout);
		fputs(",\n   \"kernel-config\": ", stdout);
		if (kc.source[0])
			uc_json_string(stdout, kc.source);
		else
			fputs("null", stdout);
		printf(",\n   \"checks\": {\"hardened-usercopy\": \"%s\", "
		       "\"stack-frames\": \"%s\", \"slab-allocator\": \"%s\", "
		       "\"whitelisting\": \"%s\"},\n",
		       uc_kconfig_hardened(&kc), uc_kconfig_frames(&kc),
		       uc_kconfig_allocator(&kc), uc_kconfig_whitelisting(&kc));
		fputs("   \"audit-log\": ", stdout);
		uc_json_string(stdout, log);
		fputs(",\n   \"audit-log-error\": ", stdout);
		if (log_errno)
			uc_json_string(stdout, strerror(log_errno));
		else
			fputs(log_ok ? "null" : "\"unreadable\"", stdout);
		fputs(",\n   \"incidents\": [", stdout);
		for (i = first; i < rs.n; i++) {
			fputs(i == first ? "\n      " : ",\n      ", stdout);
			uc_print_json_row(stdout, &o->out, &rs.v[i]);
		}
		fputs(rs.n ? "\n   ]\n}\n" : "]\n}\n", stdout);
	} else {
		printf("Mode:            %s%s\n", have_mode ? mode : "unknown",
		       have_mode && strcmp(mode, "off") == 0 ? " (no checks are made)" :
		       have_mode && strcmp(mode, "log") == 0 ? " (violations are logged, not blocked)" : "");
		printf("Locked:          %s\n",
		       locked < 0 ? "unknown" : locked ? "yes, until reboot" : "no");
		printf("Violations:      %s%s\n", have_viol ? viol : "unknown",
		       have_viol ? " since boot" : "");
		if (avail[0])
			printf("Modes available: %s\n", avail);
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
		if (!log_ok)
			printf("\nLatest incidents: %s is not readable%s%s%s\n", log,
			       log_errno ? " (" : "", log_errno ? strerror(log_errno) : "",
			       log_errno ? ")" : "");
		else if (!rs.n)
			printf("\nLatest incidents: none in %s\n", log);
		else {
			struct uc_records last = { .v = rs.v + first, .n = rs.n - first };

			printf("\nLatest incidents (%s):\n", log);
			fflush(stdout);
			uc_print_report(&o->out, &last, &f);
		}
	}
	uc_records_free(&rs);
	return UC_EXIT_OK;
}

/* ---- mode -------------------------------------------------------------- */

static void refused(int err, const char *what)
{
	if (err == -EPERM || err == -EACCES) {
		if (read_locked() == 1)
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

static int cmd_mode(struct opts *o, const char *want)
{
	char cur[32], path[4096], what[64];
	struct uc_persist p = { .tmp = "" };
	int rc, locked;

	if (want && !uc_mode_valid(want)) {
		uc_err("invalid mode '%s' (use off, log or enforce)", want);
		return UC_EXIT_FAILURE;
	}
	if ((rc = need_kernel()))
		return rc;
	rc = uc_sysctl_read("mode", cur, sizeof(cur));
	if (rc) {
		uc_err("cannot read %s/mode: %s", uc_sysctl_dir(), strerror(-rc));
		return UC_EXIT_FAILURE;
	}
	locked = read_locked();
	if (!want) {
		if (o->out.json)
			printf("{\"mode\": \"%s\", \"locked\": %s}\n", cur,
			       locked < 0 ? "null" : locked ? "true" : "false");
		else
			printf("%s\n", cur);
		return UC_EXIT_OK;
	}

	snprintf(what, sizeof(what), "set the mode to %s", want);
	if (o->persist_file)
		snprintf(path, sizeof(path), "%s", o->persist_file);
	else
		uc_persist_default(path, sizeof(path));

	if (locked == 1 && strcmp(cur, want) != 0) {
		uc_err("cannot %s: the mode is locked (%s) until reboot", what, cur);
		return UC_EXIT_FAILURE;
	}
	if (locked != 1) {
		char mpath[PATH_MAX];

		snprintf(mpath, sizeof(mpath), "%s/mode", uc_sysctl_dir());
		if (access(mpath, W_OK) != 0) {
			refused(-errno, what);
			return UC_EXIT_FAILURE;
		}
	}
	if (o->persist) {
		rc = uc_persist_prepare(&p, path, want);
		if (rc) {
			uc_err("cannot %s: cannot write %s: %s", what, path,
			       strerror(-rc));
			return UC_EXIT_FAILURE;
		}
	}
	if (locked == 1) {
		/* Already in that mode: nothing for the kernel to do. */
		printf("mode is already %s (locked until reboot)\n", cur);
	} else {
		rc = uc_sysctl_write("mode", want);
		if (rc) {
			uc_persist_abort(&p);
			refused(rc, what);
			return UC_EXIT_FAILURE;
		}
		if (strcmp(cur, want) == 0)
			printf("mode is %s (unchanged)\n", want);
		else
			printf("mode changed from %s to %s\n", cur, want);
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

/* ---- lock -------------------------------------------------------------- */

static int confirm(const char *mode)
{
	char answer[16];

	fprintf(stderr, "Lock the usercopy mode (%s) until the next reboot? "
		"This cannot be undone. [y/N] ", mode);
	fflush(stderr);
	if (!fgets(answer, sizeof(answer), stdin))
		return 0;
	return strcmp(answer, "y\n") == 0 || strcmp(answer, "Y\n") == 0 ||
	       strcmp(answer, "yes\n") == 0 || strcmp(answer, "YES\n") == 0;
}

static int cmd_lock(struct opts *o)
{
	char cur[32];
	int rc, locked;

	if ((rc = need_kernel()))
		return rc;
	rc = uc_sysctl_read("mode", cur, sizeof(cur));
	if (rc) {
		uc_err("cannot read %s/mode: %s", uc_sysctl_dir(), strerror(-rc));
		return UC_EXIT_FAILURE;
	}
	locked = read_locked();
	if (locked == 1) {
		printf("mode is already locked (%s) until reboot\n", cur);
		return UC_EXIT_OK;
	}
	if (!o->yes) {
		if (!isatty(STDIN_FILENO)) {
			uc_err("not locking without confirmation: standard input is not a terminal (use --yes)");
			return UC_EXIT_FAILURE;
		}
		if (!confirm(cur)) {
			printf("not locked\n");
			return UC_EXIT_FAILURE;
		}
	}
	rc = uc_sysctl_write("locked", "1");
	if (rc) {
		refused(rc, "lock the mode");
		return UC_EXIT_FAILURE;
	}
	printf("mode locked (%s) until reboot\n", cur);
	if (strcmp(cur, "enforce") != 0)
		uc_warn("the locked mode is %s: violations are not blocked", cur);
	return UC_EXIT_OK;
}

/* ---- report and monitor ------------------------------------------------ */

static int cmd_report(struct opts *o)
{
	struct uc_records rs = { 0 };
	size_t i;
	int rc = UC_EXIT_OK;

	if (o->nfiles == 0)
		o->files[o->nfiles++] = UC_AUDIT_LOG;
	for (i = 0; i < o->nfiles; i++)
		if (uc_read_log(o->files[i], &o->filter, &rs,
				o->out.json ? UC_READ_JSON : 0) != 0)
			rc = UC_EXIT_FAILURE;
	if (rc == UC_EXIT_OK && uc_print_report(&o->out, &rs, &o->filter) != 0) {
		uc_err("write error");
		rc = UC_EXIT_FAILURE;
	}
	uc_records_free(&rs);
	return rc;
}

static int cmd_monitor(struct opts *o)
{
	struct uc_monitor_opts mo = {
		.out = o->out, .filter = o->filter,
		.count = o->count, .timeout = o->timeout,
	};

	mo.filter.incidents = 1;
	return uc_monitor(&mo);
}

/* ---- main -------------------------------------------------------------- */

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json",	  no_argument,	     NULL, 'J' },
		{ "noheadings",	  no_argument,	     NULL, 'n' },
		{ "raw",	  no_argument,	     NULL, 'r' },
		{ "output",	  required_argument, NULL, 'o' },
		{ "output-all",	  no_argument,	     NULL, OPT_OUTPUT_ALL },
		{ "file",	  required_argument, NULL, 'f' },
		{ "since",	  required_argument, NULL, OPT_SINCE },
		{ "until",	  required_argument, NULL, OPT_UNTIL },
		{ "pid",	  required_argument, NULL, OPT_PID },
		{ "uid",	  required_argument, NULL, OPT_UID },
		{ "incidents",	  no_argument,	     NULL, OPT_INCIDENTS },
		{ "mode-changes", no_argument,	     NULL, OPT_CHANGES },
		{ "persist",	  optional_argument, NULL, OPT_PERSIST },
		{ "yes",	  no_argument,	     NULL, 'y' },
		{ "count",	  required_argument, NULL, 'c' },
		{ "timeout",	  required_argument, NULL, 't' },
		{ "help",	  no_argument,	     NULL, 'h' },
		{ "version",	  no_argument,	     NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const unsigned TABLES = C_STATUS | C_REPORT | C_MONITOR;
	const unsigned LOGS = C_REPORT | C_MONITOR;
	struct opts o;
	const char *output = NULL;
	int c, cmd, output_all = 0;
	size_t i;
	char *end;

	memset(&o, 0, sizeof(o));
	o.filter.incidents = o.filter.changes = 1;
	uc_columns_default(&o.out);

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":Jnro:f:yc:t:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'J':
			o.out.json = 1;
			limit(&o, TABLES | C_MODE, "--json");
			break;
		case 'n':
			o.out.noheadings = 1;
			limit(&o, TABLES, "--noheadings");
			break;
		case 'r':
			o.out.raw = 1;
			limit(&o, TABLES, "--raw");
			break;
		case 'o':
			output = optarg;
			limit(&o, TABLES, "--output");
			break;
		case OPT_OUTPUT_ALL:
			output_all = 1;
			limit(&o, TABLES, "--output-all");
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
			o.filter.pid = parse_number(optarg, "process id");
			limit(&o, LOGS, "--pid");
			break;
		case OPT_UID:
			o.filter.has_uid = 1;
			o.filter.uid = parse_user(optarg);
			limit(&o, LOGS, "--uid");
			break;
		case OPT_INCIDENTS:
			o.filter.changes = 0;
			limit(&o, C_REPORT, "--incidents");
			break;
		case OPT_CHANGES:
			o.filter.incidents = 0;
			limit(&o, C_REPORT, "--mode-changes");
			break;
		case OPT_PERSIST:
			o.persist = 1;
			if (optarg && !*optarg)
				bad_usage("--persist= needs a file name");
			o.persist_file = optarg;
			limit(&o, C_MODE, "--persist");
			break;
		case 'y':
			o.yes = 1;
			limit(&o, C_LOCK, "--yes");
			break;
		case 'c':
			o.count = parse_number(optarg, "count");
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
	if (o.filter.incidents == 0 && o.filter.changes == 0)
		bad_usage("--incidents and --mode-changes exclude each other");
	if (optind >= argc)
		bad_usage("no command given");
	cmd = parse_command(argv[optind]);
	if (!cmd)
		bad_usage("unknown command '%s'", argv[optind]);
	for (i = 0; i < o.nused; i++)
		if (!(o.used[i].cmds & (unsigned)cmd))
			bad_usage("option %s does not go with the %s command",
				  o.used[i].name, argv[optind]);
	if (argc - optind > (cmd == C_MODE ? 2 : 1))
		bad_usage("too many arguments");
	if (o.persist && argc - optind < 2)
		bad_usage("--persist needs a mode to set");
	if (output_all)
		uc_columns_all(&o.out);
	if (output && uc_columns_parse(&o.out, output) != 0)
		bad_usage(NULL);
	if (o.out.json && (o.out.raw || o.out.noheadings))
		bad_usage("--json does not go with --raw or --noheadings");

	switch (cmd) {
	case C_STATUS:
		if (!output && !output_all)
			uc_columns_parse(&o.out, "TIME,DIRECTION,REGION,CACHE,LENGTH,PID,COMM,ACTION");
		return cmd_status(&o);
	case C_MODE:
		return cmd_mode(&o, argv[optind + 1]);
	case C_LOCK:
		return cmd_lock(&o);
	case C_REPORT:
		return cmd_report(&o);
	default:
		return cmd_monitor(&o);
	}
}
