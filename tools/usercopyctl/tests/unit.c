/*
 * Unit tests of usercopyctl's library parts (no stubs: they never call
 * back into the command line): the record parser, time parsing,
 * filters, columns, UTF-8 sanitizing, mode names, kernel config and
 * boot parameter parsing, the persist file.  Prints KTAP (tests/lib/ktap.h),
 * as part of the document of tests/run.sh.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "usercopyctl.h"

static void write_file(const char *path, const char *text);

static void check(int cond, const char *fmt, ...)
{
	char desc[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
	ktap_test_result(cond, "unit: %s", desc);
}

static void test_time(void)
{
	long long ms;

	setenv("TZ", "UTC", 1);
	tzset();
	check(uc_parse_time("@1733270000", &ms) == 0 && ms == 1733270000000LL,
	      "time: @epoch");
	check(uc_parse_time("2024-12-03", &ms) == 0 && ms == 1733184000000LL,
	      "time: date alone is midnight");
	check(uc_parse_time("2024-12-03 23:53", &ms) == 0 && ms == 1733269980000LL,
	      "time: date and HH:MM");
	check(uc_parse_time("2024-12-03 23:53:20", &ms) == 0 && ms == 1733270000000LL,
	      "time: date and HH:MM:SS");
	check(uc_parse_time("2024-12-03T23:53:20", &ms) == 0 && ms == 1733270000000LL,
	      "time: ISO 8601 'T' separator");
	check(uc_parse_time("now", &ms) == 0 && ms > 1733270000000LL, "time: now");
	check(uc_parse_time("recent", &ms) == 0 &&
	      ms <= (long long)time(NULL) * 1000 - 600000 &&
	      ms > (long long)time(NULL) * 1000 - 602000, "time: recent is 10 minutes ago");
	check(uc_parse_time("today", &ms) == 0 && ms % 86400000 == 0, "time: today");
	check(uc_parse_time("2024-02-30", &ms) < 0, "time: February 30 refused");
	check(uc_parse_time("2024-12-03 25:00", &ms) < 0, "time: hour 25 refused");
	check(uc_parse_time("2024-12-3", &ms) < 0, "time: short day refused");
	check(uc_parse_time("2024-12-03 10:00:00x", &ms) < 0, "time: trailing junk refused");
	check(uc_parse_time("@", &ms) < 0 && uc_parse_time("@-5", &ms) < 0 &&
	      uc_parse_time("", &ms) < 0 && uc_parse_time("yesterday-ish", &ms) < 0,
	      "time: junk refused");
}

static void test_filter(void)
{
	struct uc_record inc = { .kind = UC_INCIDENT, .sec = 100, .msec = 500,
				 .pid = 42, .uid = 1000, .auid = 0,
				 .has = UC_HAS_PID | UC_HAS_UID | UC_HAS_AUID };
	struct uc_record mc = { .kind = UC_MODE_CHANGE, .sec = 100, .auid = 1000,
				.has = UC_HAS_AUID };
	struct uc_filter f = { .kinds = UC_INCIDENT | UC_MODE_CHANGE };

	check(uc_filter_match(&f, &inc) && uc_filter_match(&f, &mc),
	      "filter: empty filter keeps all");
	f.has_since = 1;
	f.since_ms = 100500;
	check(uc_filter_match(&f, &inc), "filter: since is inclusive");
	f.since_ms = 100501;
	check(!uc_filter_match(&f, &inc), "filter: since excludes earlier");
	f.has_since = 0;
	f.has_until = 1;
	f.until_ms = 100499;
	check(!uc_filter_match(&f, &inc) && uc_filter_match(&f, &mc),
	      "filter: until excludes later");
	f.has_until = 0;
	f.has_pid = 1;
	f.pid = 42;
	check(uc_filter_match(&f, &inc) && !uc_filter_match(&f, &mc),
	      "filter: pid keeps that process, drops mode changes");
	f.has_pid = 0;
	f.has_uid = 1;
	f.uid = 1000;
	check(uc_filter_match(&f, &inc) && uc_filter_match(&f, &mc),
	      "filter: uid matches uid or auid");
	f.uid = 0;
	check(uc_filter_match(&f, &inc) && !uc_filter_match(&f, &mc),
	      "filter: uid 0 matches an incident by auid only");
	f.uid = 1000;
	inc.has &= ~UC_HAS_UID;
	check(!uc_filter_match(&f, &inc), "filter: a record without uid= has no uid");
	f.has_uid = 0;
	f.kinds = UC_INCIDENT;
	check(uc_filter_match(&f, &inc) && !uc_filter_match(&f, &mc),
	      "filter: incidents only");
}

static void test_columns(void)
{
	struct uc_output o;
	char bad[80];

	memset(&o, 0, sizeof(o));
	uc_columns_default(&o);
	check(o.ninc == 13 && o.nmc == 8 && o.nal == 5,
	      "columns: 13, 8 and 5 by default (%zu, %zu, %zu)", o.ninc, o.nmc, o.nal);
	check(uc_columns_parse(&o, "pid,COMM", bad, sizeof(bad)) == 0 && o.ninc == 2 &&
	      o.nmc == 8, "columns: list, any case; mode changes keep their defaults");
	check(uc_columns_parse(&o, "+EVENT", bad, sizeof(bad)) == 0 && o.ninc == 3 &&
	      o.nmc == 9, "columns: +LIST adds (to both kinds)");
	check(uc_columns_parse(&o, "TIME,NEW,RESULT", bad, sizeof(bad)) == 0 &&
	      o.nmc == 3 && o.ninc == 1, "columns: -o for the mode change columns");
	check(uc_columns_parse(&o, "PID,NOPE", bad, sizeof(bad)) < 0 &&
	      strcmp(bad, "NOPE") == 0, "columns: unknown refused, named");
	check(uc_columns_parse(&o, "PID,,COMM", bad, sizeof(bad)) < 0, "columns: empty name refused");
	check(uc_columns_parse(&o, "PID,", bad, sizeof(bad)) < 0, "columns: trailing comma refused");
	check(uc_column_find("TYPE") < 0 && uc_column_find("COUNT") < 0,
	      "columns: internal columns are not for -o");
	uc_columns_all(&o);
	check(o.ninc == 19 && o.nmc == 10 && o.nal == 7, "columns: all (%zu, %zu, %zu)",
	      o.ninc, o.nmc, o.nal);
}

/* Parse @text: the result of uc_parse_line, the record in @r. */
static struct uc_parser *parser;
static char pbuf[200000];
static char why[192];

static int parse(const char *text, struct uc_record *r)
{
	return uc_parse_line(parser, text, strlen(text), r, why, sizeof(why));
}

#define INC_HEAD "type=UNKNOWN[1790] msg=audit(1733270000.123:45): "
#define INC_GOOD INC_HEAD "op=exposure region=slab cache=kmalloc-64 offset=0 len=128 " \
	"auid=4294967295 uid=0 gid=0 ses=4294967295 pid=123 comm=\"uc-victim\" " \
	"exe=\"/usr/bin/uc-victim\" permissive=0 res=0"

static void test_parser(void)
{
	struct uc_record r, c;
	char *big;

	parser = uc_parser_new();
	if (!parser) {
		check(0, "parser: uc_parser_new");
		return;
	}
	check(parse(INC_GOOD, &r) == 1 && r.kind == UC_INCIDENT && r.sec == 1733270000 &&
	      r.msec == 123 && r.serial == 45 && strcmp(r.op, "exposure") == 0 &&
	      r.len == 128 && r.pid == 123 && r.auid == 4294967295UL &&
	      strcmp(r.comm, "uc-victim") == 0 && r.res == 0,
	      "parser: a good incident");
	check(parse("node=h1 " INC_GOOD, &r) == 1, "parser: node= prefix");
	check(parse("type=SYSCALL msg=audit(1.000:1): pid=1", &r) == 0,
	      "parser: other record types are of no interest");
	check(parse("type=CONFIG_CHANGE msg=audit(1.000:1): op=set audit_backlog_limit=1 old=2 res=1", &r) == 0,
	      "parser: other configuration changes are of no interest");
	check(parse("type=CONFIG_CHANGE msg=audit(1.000:1): op=usercopy-mode old=log new=enforce "
		    "old_lock=0 new_lock=1 auid=0 ses=3 res=1", &r) == 1 &&
	      r.kind == UC_MODE_CHANGE && strcmp(r.new_mode, "enforce") == 0 &&
	      r.new_lock == 1 && (r.has & UC_HAS_NEW_LOCK), "parser: a mode change");

	/* defect: a quoted value with a space was lost */
	check(parse(INC_HEAD "op=exposure region=slab offset=0 len=1 pid=5 "
		    "comm=\"x y\" exe=\"/tmp/x y/pwn\" res=1", &r) == 1 &&
	      strcmp(r.exe, "/tmp/x y/pwn") == 0 && strcmp(r.comm, "x y") == 0,
	      "parser: quoted exe with a space kept whole");
	check(parse(INC_HEAD "op=exposure region=slab offset=0 len=1 pid=5 "
		    "comm=7563207669637469 exe=2F746D702F78 res=1", &r) == 1 &&
	      strcmp(r.comm, "uc victi") == 0 && strcmp(r.exe, "/tmp/x") == 0,
	      "parser: hex comm and exe decoded");
	check(parse(INC_HEAD "op=exposure region=slab offset=0 len=1 pid=5 exe=(null) res=1", &r) == 1 &&
	      strcmp(r.exe, "(null)") == 0 && strcmp(r.comm, "?") == 0,
	      "parser: exe=(null), no comm");

	/* defect: the "unset" marker collided with real values */
	check(parse(INC_HEAD "op=exposure region=slab offset=0 len=18446744073709551615 "
		    "ses=18446744073709551615 pid=5 res=1", &r) == 1 &&
	      (r.has & UC_HAS_LEN) && r.len == 18446744073709551615ULL &&
	      (r.has & UC_HAS_SES) && r.ses == 18446744073709551615ULL,
	      "parser: len= and ses= of 2^64-1 are values, not unset");
	check(parse(INC_HEAD "op=exposure region=slab offset=0 len=18446744073709551616 pid=5 res=1", &r) < 0 &&
	      strstr(why, "len=18446744073709551616"), "parser: len= of 2^64 refused (%s)", why);
	check(parse(INC_HEAD "op=exposure region=slab offset=0 len=1 pid=5 res=1", &r) == 1 &&
	      !(r.has & UC_HAS_UID) && !(r.has & UC_HAS_SES), "parser: absent fields are absent");

	/* defect: res=2 / res=-1 reported as "no res=" */
	check(parse(INC_HEAD "op=exposure region=slab offset=0 len=1 pid=5 res=2", &r) < 0 &&
	      strstr(why, "res=2") && !strstr(why, "no res="), "parser: res=2 named (%s)", why);
	check(parse(INC_HEAD "op=exposure region=slab offset=0 len=1 pid=5 res=-1", &r) < 0 &&
	      strstr(why, "res=-1") && !strstr(why, "no res="), "parser: res=-1 named (%s)", why);
	check(parse(INC_HEAD "op=exposure region=slab offset=0 len=1 pid=5", &r) < 0 &&
	      strstr(why, "no res="), "parser: missing res= (%s)", why);

	/* defect: out of range pid=/uid= accepted silently */
	check(parse(INC_HEAD "op=exposure region=slab offset=0 len=1 pid=4294967296 res=1", &r) < 0 &&
	      strstr(why, "pid=4294967296"), "parser: pid= of 2^32 refused (%s)", why);
	check(parse(INC_HEAD "op=exposure region=slab offset=0 len=1 pid=1 uid=4294967296 res=1", &r) < 0 &&
	      strstr(why, "uid=4294967296"), "parser: uid= of 2^32 refused (%s)", why);
	check(parse(INC_HEAD "op=exposure region=slab offset=0 len=1 pid=1 uid=4294967295 res=1", &r) == 1 &&
	      r.uid == 4294967295UL, "parser: uid= of 2^32-1 accepted");
	check(parse(INC_HEAD "op=exposure region=slab offset=0 len=1 pid=+1 res=1", &r) < 0 &&
	      parse(INC_HEAD "op=exposure region=slab offset=0 len=1 pid= res=1", &r) < 0,
	      "parser: signs and empty numbers refused");

	check(parse(INC_HEAD "op=exposure region=slab offset=0 len=1 pid=1 comm=\"abc res=1", &r) < 0,
	      "parser: unterminated quote (%s)", why);
	memcpy(pbuf, INC_GOOD, sizeof(INC_GOOD));
	pbuf[60] = '\0';
	check(uc_parse_line(parser, pbuf, sizeof(INC_GOOD) - 1, &r, why, sizeof(why)) < 0 &&
	      strstr(why, "NUL"), "parser: NUL byte (%s)", why);
	check(parse("type=UNKNOWN[1790] msg=audit(99999999999999999999.000:1): res=1", &r) < 0 &&
	      parse("type=UNKNOWN[1790] msg=audit(1.1000:1): res=1", &r) < 0 &&
	      parse("type=UNKNOWN[1790] msg=audit(1.000:99999999999999999999): res=1", &r) < 0 &&
	      parse("type=UNKNOWN[1790] msg=audit(1.000:1) res=1", &r) < 0 &&
	      parse("type= msg=audit(1.000:1): res=1", &r) < 0,
	      "parser: bad headers refused");

	/* what libauparse reads besides */
	check(parse("type=ANOM_USERCOPY msg=audit(1.000:1): op=exposure region=slab "
		    "offset=0 len=1 pid=5 res=1", &r) == 1 && r.kind == UC_INCIDENT,
	      "parser: the type by name");
	check(parse(INC_HEAD "op=exposure region=slab offset=0 len=1 pid=5 uid=0 "
		    "exe=\"/x y\" res=1\x1d" "AUID=\"unset\" UID=\"root\"", &r) == 1 &&
	      strcmp(r.exe, "/x y") == 0 && (r.has & UC_HAS_UID) && r.uid == 0,
	      "parser: an enriched record (ausearch --format enriched)");
	check(parse("x msg=audit(1.000:1): x", &r) < 0 && strstr(why, "not an audit record") &&
	      parse("type= msg=audit(1.000:1): x", &r) < 0,
	      "parser: a record with no fields (leaks nothing, under valgrind)");
	check(parse(INC_HEAD "op=exposure region=slab offset=0 len=1 pid=5 res=1 "
		    "usercopyctl_eol=x", &r) == 1,
	      "parser: a field of an unknown name is ignored");

	/* the call site: quoted, or hex-encoded (a module's, with a space) */
	check(parse(INC_HEAD "op=exposure region=slab offset=0 len=1 "
		    "site=\"usercopy_test_foo+0x12/0x80\" suppressed=0 pid=5 res=1", &r) == 1 &&
	      strcmp(r.site, "usercopy_test_foo+0x12/0x80") == 0 && (r.has & UC_HAS_SUPPRESSED),
	      "parser: quoted site=");
	check(parse(INC_HEAD "op=exposure region=slab offset=0 len=1 site=6E6F776C5F72656164"
		    "2B307831612F30783430205B75635F62756767795D pid=5 res=1", &r) == 1 &&
	      strcmp(r.site, "nowl_read+0x1a/0x40 [uc_buggy]") == 0,
	      "parser: hex site= decoded (%s)", r.site ? r.site : "NULL");
	check(parse(INC_GOOD, &r) == 1 && r.site == NULL, "parser: a record without site=");
	check(parse("type=CONFIG_CHANGE msg=audit(1.000:1): op=usercopy-allow "
		    "cache=\"uc_buggy_nowl\" auid=0 ses=3 res=1", &r) == 1 &&
	      r.kind == UC_ALLOW_CHANGE && strcmp(r.cache, "uc_buggy_nowl") == 0 &&
	      r.res == 1 && r.ses == 3, "parser: an allow change");
	check(parse("type=CONFIG_CHANGE msg=audit(1.000:1): op=usercopy-allow "
		    "cache=6120620A auid=0 ses=3 res=0", &r) == 1 &&
	      strcmp(r.cache, "a b\n") == 0 && r.res == 0, "parser: an allow change, hex cache=");
	check(parse("type=CONFIG_CHANGE msg=audit(1.000:1): op=usercopy-allow auid=0 ses=3 res=0",
		    &r) < 0 && strstr(why, "no cache="), "parser: an allow change without cache= (%s)",
	      why);

	big = malloc(70000 + sizeof(INC_GOOD) + 16);
	if (big) {
		sprintf(big, INC_HEAD "op=exposure region=slab offset=0 len=1 pid=1 res=1 exe=\"");
		size_t at = strlen(big);

		memset(big + at, 'A', 70000);
		strcpy(big + at + 70000, "\"");
		check(parse(big, &r) == 1 && strlen(r.exe) == 70000,
		      "parser: a field over 64 KiB");
		free(big);
	}

	check(parse(INC_HEAD "op=exposure region=slab offset=0 len=1 pid=5 "
		    "exe=\"/tmp/x y\" subj=unconfined res=1", &r) == 1 &&
	      uc_record_copy(&c, &r) == 0, "record: copy");
	/* the parser's memory is reused for the next line */
	check(parse(INC_GOOD, &r) == 1 && strcmp(r.exe, "/usr/bin/uc-victim") == 0 &&
	      strcmp(c.exe, "/tmp/x y") == 0 && strcmp(c.subj, "unconfined") == 0 &&
	      strcmp(c.cache, "?") == 0, "record: the copy owns its strings");
	uc_record_free(&c);
	uc_parser_free(parser);
	parser = NULL;
}

static void test_utf8(void)
{
	char *s;
	int err;

	check(uc_utf8_sanitize("plain /usr/bin/\xc3\xa9t\xc3\xa9", &err) == NULL && !err,
	      "utf8: valid text left alone");
	s = uc_utf8_sanitize("a\xff" "b\xc3", &err);
	check(s && strcmp(s, "a\\xffb\\xc3") == 0, "utf8: invalid bytes as \\xNN (%s)", s ? s : "NULL");
	free(s);
	s = uc_utf8_sanitize("\xed\xa0\x80\xc0\xaf", &err);
	check(s && strcmp(s, "\\xed\\xa0\\x80\\xc0\\xaf") == 0,
	      "utf8: surrogates and overlong forms are invalid");
	free(s);
}

static void test_time_format(void)
{
	char buf[64];

	setenv("TZ", "UTC", 1);
	tzset();
	check(strcmp(uc_format_time(buf, sizeof(buf), 1733270000, 123, UC_TIME_ISO),
		     "2024-12-03T23:53:20.123+00:00") == 0, "time format: iso (%s)", buf);
	check(strcmp(uc_format_time(buf, sizeof(buf), 1733270000, 5, UC_TIME_RAW),
		     "1733270000.005") == 0, "time format: raw");
	setenv("TZ", "CET-1", 1);
	tzset();
	check(strcmp(uc_format_time(buf, sizeof(buf), 1733270000, 123, UC_TIME_ISO),
		     "2024-12-04T00:53:20.123+01:00") == 0, "time format: iso with the zone (%s)", buf);
	setenv("TZ", "UTC", 1);
	tzset();
}

static void test_modes(const char *tmp)
{
	struct uc_modes m;
	char path[512], buf[128];

	snprintf(path, sizeof(path), "%s/sys", tmp);
	mkdir(path, 0755);
	setenv("USERCOPYCTL_SYSCTL_DIR", path, 1);
	snprintf(path, sizeof(path), "%s/sys/modes_avail", tmp);
	write_file(path, "off log enforce paranoid\n");
	uc_modes_read(&m);
	check(m.from_kernel && m.n == 4 && uc_mode_valid(&m, "paranoid") &&
	      !uc_mode_valid(&m, "sideways"), "modes: read from modes_avail");
	check(strcmp(uc_modes_join(&m, ", ", " or ", buf, sizeof(buf)),
		     "off, log, enforce or paranoid") == 0, "modes: joined (%s)", buf);
	unlink(path);
	uc_modes_read(&m);
	check(!m.from_kernel && m.n == 3 && uc_mode_valid(&m, "enforce"),
	      "modes: the fallback table");
	unsetenv("USERCOPYCTL_SYSCTL_DIR");
}

static void test_boot_time(const char *tmp)
{
	char path[512];
	long long ms;

	snprintf(path, sizeof(path), "%s/stat", tmp);
	write_file(path, "cpu 1 2 3\nbtime 1733260000\nprocesses 5\n");
	setenv("USERCOPYCTL_STAT", path, 1);
	check(uc_parse_time("boot", &ms) == 0 && ms == 1733260000000LL, "time: boot");
	write_file(path, "cpu 1 2 3\n");
	check(uc_parse_time("boot", &ms) < 0, "time: boot unknown refused");
	unsetenv("USERCOPYCTL_STAT");
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

static char *read_file(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_kconfig(const char *tmp)
{
	struct uc_kconfig kc;
	char path[512];

	snprintf(path, sizeof(path), "%s/config-orc", tmp);
	write_file(path, "CONFIG_HARDENED_USERCOPY=y\nCONFIG_UNWINDER_ORC=y\n"
		   "# CONFIG_UNWINDER_FRAME_POINTER is not set\nCONFIG_SLUB=y\n"
		   "CONFIG_HARDENED_USERCOPY_DEFAULT_ON=y\n");
	setenv("USERCOPYCTL_KCONFIG", path, 1);
	uc_kconfig_read(&kc);
	check(strcmp(kc.source, path) == 0 &&
	      strcmp(uc_kconfig_hardened(&kc), "yes") == 0 &&
	      strcmp(uc_kconfig_frames(&kc), "frame (ORC)") == 0 &&
	      strcmp(uc_kconfig_allocator(&kc), "SLUB") == 0 &&
	      strcmp(uc_kconfig_whitelisting(&kc), "active") == 0,
	      "kconfig: ORC and SLUB");

	snprintf(path, sizeof(path), "%s/config-fp", tmp);
	write_file(path, "CONFIG_HARDENED_USERCOPY=y\nCONFIG_UNWINDER_FRAME_POINTER=y\n"
		   "CONFIG_SLAB=y\n# CONFIG_SLUB is not set\n");
	setenv("USERCOPYCTL_KCONFIG", path, 1);
	uc_kconfig_read(&kc);
	check(strcmp(uc_kconfig_frames(&kc), "frame (frame pointer)") == 0 &&
	      strcmp(uc_kconfig_allocator(&kc), "SLAB") == 0,
	      "kconfig: frame pointer and SLAB");

	snprintf(path, sizeof(path), "%s/config-none", tmp);
	write_file(path, "# CONFIG_HARDENED_USERCOPY is not set\nCONFIG_SLUB=y\n"
		   "CONFIG_UNWINDER_GUESS=y\n");
	setenv("USERCOPYCTL_KCONFIG", path, 1);
	uc_kconfig_read(&kc);
	check(strcmp(uc_kconfig_hardened(&kc), "no") == 0 &&
	      strcmp(uc_kconfig_frames(&kc), "no") == 0 &&
	      strcmp(uc_kconfig_whitelisting(&kc), "inactive") == 0,
	      "kconfig: hardened usercopy off");

	snprintf(path, sizeof(path), "%s/config-bounds", tmp);
	write_file(path, "CONFIG_HARDENED_USERCOPY=y\nCONFIG_UNWINDER_GUESS=y\nCONFIG_SLUB=y\n");
	setenv("USERCOPYCTL_KCONFIG", path, 1);
	uc_kconfig_read(&kc);
	check(strcmp(uc_kconfig_frames(&kc), "stack bounds only") == 0,
	      "kconfig: no frame unwinder means stack bounds only");

	snprintf(path, sizeof(path), "%s/config-orc.gz", tmp);
	if (system("cd \"$UNIT_TMP\" && gzip -c config-orc > config-orc.gz") == 0) {
		setenv("USERCOPYCTL_KCONFIG", path, 1);
		uc_kconfig_read(&kc);
		check(strcmp(kc.source, path) == 0 &&
		      strcmp(uc_kconfig_frames(&kc), "frame (ORC)") == 0,
		      "kconfig: gzipped config");
	} else {
		check(1, "# SKIP no gzip");
	}

	snprintf(path, sizeof(path), "%s/not-there", tmp);
	setenv("USERCOPYCTL_KCONFIG", path, 1);
	uc_kconfig_read(&kc);
	check(kc.source[0] == '\0' && strcmp(uc_kconfig_frames(&kc), "unknown") == 0 &&
	      strcmp(uc_kconfig_allocator(&kc), "unknown") == 0,
	      "kconfig: no config means unknown");

	snprintf(path, sizeof(path), "%s/persisted", tmp);
	write_file(path, "just some text\n");
	setenv("USERCOPYCTL_KCONFIG", path, 1);
	uc_kconfig_read(&kc);
	check(kc.source[0] == '\0' && strcmp(uc_kconfig_hardened(&kc), "unknown") == 0,
	      "kconfig: a file that is no config means unknown");
	unsetenv("USERCOPYCTL_KCONFIG");
}

static void test_boot(const char *tmp)
{
	char path[512], buf[16];
	struct uc_modes mm, *m = &mm;

	unsetenv("USERCOPYCTL_SYSCTL_DIR");
	setenv("USERCOPYCTL_SYSCTL_DIR", "/nonexistent", 1);
	uc_modes_read(m);

	snprintf(path, sizeof(path), "%s/cmdline", tmp);
	setenv("USERCOPYCTL_CMDLINE", path, 1);
	write_file(path, "console=ttyS0 usercopy_mode=log quiet\n");
	check(uc_boot_mode(m, buf, sizeof(buf)) && strcmp(buf, "log") == 0,
	      "boot: usercopy_mode=log");
	write_file(path, "usercopy_mode=log hardened_usercopy=off\n");
	check(uc_boot_mode(m, buf, sizeof(buf)) && strcmp(buf, "off") == 0,
	      "boot: hardened_usercopy=off means off, last wins");
	write_file(path, "usercopy_mode=bogus root=/dev/vda\n");
	check(uc_boot_mode(m, buf, sizeof(buf)) == NULL, "boot: invalid mode ignored");
	unsetenv("USERCOPYCTL_CMDLINE");
}

static void test_persist(const char *tmp)
{
	struct uc_persist p;
	char path[512];
	const char *s;
	struct stat st;
	struct uc_modes mm, *m = &mm;

	uc_modes_read(m);

	snprintf(path, sizeof(path), "%s/90-usercopy.conf", tmp);
	write_file(path, "old\n");
	check(uc_persist_prepare(&p, path, "log", m) == 0 &&
	      strcmp(read_file(path), "old\n") == 0 && access(p.tmp, F_OK) == 0,
	      "persist: prepare leaves the old file alone");
	uc_persist_abort(&p);
	check(strcmp(read_file(path), "old\n") == 0, "persist: abort keeps the old file");
	check(uc_persist_prepare(&p, path, "enforce", m) == 0 &&
	      uc_persist_commit(&p) == 0, "persist: commit");
	s = read_file(path);
	check(s && strstr(s, "\nkernel.usercopy.mode = enforce\n") &&
	      stat(path, &st) == 0 && (st.st_mode & 0777) == 0644,
	      "persist: sysctl.d line, mode 0644");
	snprintf(path, sizeof(path), "%s/no/such/dir/x.conf", tmp);
	check(uc_persist_prepare(&p, path, "log", m) < 0, "persist: missing directory fails");
}

int main(void)
{
	const char *tmp = getenv("UNIT_TMP");

	if (!tmp) {
		fprintf(stderr, "UNIT_TMP not set\n");
		return 2;
	}
	test_time();
	test_filter();
	test_columns();
	test_parser();
	test_utf8();
	test_time_format();
	test_modes(tmp);
	test_boot_time(tmp);
	test_kconfig(tmp);
	test_boot(tmp);
	test_persist(tmp);
	return ktap_finished();
}
