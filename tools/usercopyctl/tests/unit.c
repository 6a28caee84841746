/*
 * Unit tests of usercopyctl's parts that need no kernel: time parsing,
 * filters, columns, kernel config and boot parameter parsing, the
 * persist file.  Prints "ok - ..." / "not ok - ..." lines; tests/run.sh
 * numbers them.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "usercopyctl.h"

static int failed;

void uc_err(const char *fmt, ...)
{
	va_list ap;

	fputs("# err: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

void uc_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("# warn: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

static void check(int cond, const char *fmt, ...)
{
	va_list ap;

	fputs(cond ? "ok - " : "not ok - ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	if (!cond)
		failed = 1;
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
				 .pid = 42, .uid = 1000, .auid = 0 };
	struct uc_record mc = { .kind = UC_MODE_CHANGE, .sec = 100, .auid = 1000 };
	struct uc_filter f = { .incidents = 1, .changes = 1 };

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
	f.has_uid = 0;
	f.changes = 0;
	check(uc_filter_match(&f, &inc) && !uc_filter_match(&f, &mc),
	      "filter: incidents only");
}

static void test_columns(void)
{
	struct uc_output o;

	memset(&o, 0, sizeof(o));
	uc_columns_default(&o);
	check(o.ncols == 12, "columns: 12 by default (%zu)", o.ncols);
	check(uc_columns_parse(&o, "pid,COMM") == 0 && o.ncols == 2,
	      "columns: list, any case");
	check(uc_columns_parse(&o, "+EVENT") == 0 && o.ncols == 3,
	      "columns: +LIST adds");
	check(uc_columns_parse(&o, "PID,NOPE") < 0, "columns: unknown refused");
	check(uc_columns_parse(&o, "PID,,COMM") < 0, "columns: empty name refused");
	uc_columns_all(&o);
	check(o.ncols == 16, "columns: all (%zu)", o.ncols);
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
	      strcmp(uc_kconfig_frames(&kc), "stack bounds only (ORC)") == 0 &&
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
		      strcmp(uc_kconfig_frames(&kc), "stack bounds only (ORC)") == 0,
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

	snprintf(path, sizeof(path), "%s/cmdline", tmp);
	setenv("USERCOPYCTL_CMDLINE", path, 1);
	write_file(path, "console=ttyS0 usercopy_mode=log quiet\n");
	check(uc_boot_mode(buf, sizeof(buf)) && strcmp(buf, "log") == 0,
	      "boot: usercopy_mode=log");
	write_file(path, "usercopy_mode=log hardened_usercopy=off\n");
	check(uc_boot_mode(buf, sizeof(buf)) && strcmp(buf, "off") == 0,
	      "boot: hardened_usercopy=off means off, last wins");
	write_file(path, "usercopy_mode=bogus root=/dev/vda\n");
	check(uc_boot_mode(buf, sizeof(buf)) == NULL, "boot: invalid mode ignored");
	unsetenv("USERCOPYCTL_CMDLINE");
}

static void test_persist(const char *tmp)
{
	struct uc_persist p;
	char path[512];
	const char *s;
	struct stat st;

	snprintf(path, sizeof(path), "%s/90-usercopy.conf", tmp);
	write_file(path, "old\n");
	check(uc_persist_prepare(&p, path, "log") == 0 &&
	      strcmp(read_file(path), "old\n") == 0 && access(p.tmp, F_OK) == 0,
	      "persist: prepare leaves the old file alone");
	uc_persist_abort(&p);
	check(strcmp(read_file(path), "old\n") == 0, "persist: abort keeps the old file");
	check(uc_persist_prepare(&p, path, "enforce") == 0 &&
	      uc_persist_commit(&p) == 0, "persist: commit");
	s = read_file(path);
	check(s && strstr(s, "\nkernel.usercopy.mode = enforce\n") &&
	      stat(path, &st) == 0 && (st.st_mode & 0777) == 0644,
	      "persist: sysctl.d line, mode 0644");
	snprintf(path, sizeof(path), "%s/no/such/dir/x.conf", tmp);
	check(uc_persist_prepare(&p, path, "log") < 0, "persist: missing directory fails");
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
	test_kconfig(tmp);
	test_boot(tmp);
	test_persist(tmp);
	return failed;
}
