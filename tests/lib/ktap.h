/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap.h: KTAP output for the C tests, after the kernel's
 * tools/testing/selftests/kselftest.h.  Header only: the guest programs
 * are single static binaries.
 *
 *	ktap_print_header();
 *	ktap_test_result(cond, "description %d", x);
 *	ktap_test_pass(...), ktap_test_fail(...);
 *	ktap_test_skip("reason", "description %d", x);
 *	ktap_print_msg("text %s", s);		one "# text" line
 *	ktap_diag(text);			every line of text as "# ..."
 *	return ktap_finished();			plan and totals; 1 if a test failed
 *
 * The plan "1..N" comes last: the number of tests is known only then.
 * When KTAP_STATE names a file, the program writes part of a document
 * begun by another (the guest's /init, tests/lib/ktap.sh): it numbers on
 * from the counts in that file, keeps them there, and prints neither
 * header nor plan.
 */
#ifndef KTAP_H
#define KTAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KTAP_PASS, KTAP_FAIL, KTAP_SKIP };
static unsigned int ktap_cnt[3];
/* The failures of this program alone: its exit status when it writes
 * part of another's document. */
static unsigned int ktap_own_failures;

static inline void ktap_state(int save)
{
	const char *path = getenv("KTAP_STATE");
	FILE *f;

	if (!path || !*path)
		return;
	f = fopen(path, save ? "w" : "r");
	if (!f)
		return;
	if (save)
		fprintf(f, "%u %u %u\n", ktap_cnt[KTAP_PASS],
			ktap_cnt[KTAP_FAIL], ktap_cnt[KTAP_SKIP]);
	else if (fscanf(f, "%u %u %u", &ktap_cnt[KTAP_PASS],
			&ktap_cnt[KTAP_FAIL], &ktap_cnt[KTAP_SKIP]) != 3)
		memset(ktap_cnt, 0, sizeof(ktap_cnt));
	fclose(f);
}

static inline int ktap_nested(void)
{
	const char *path = getenv("KTAP_STATE");

	return path && *path;
}

static inline void ktap_print_header(void)
{
	if (!ktap_nested())
		printf("TAP version 13\n");
	fflush(stdout);
}

static inline void ktap_print_msg(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static inline void ktap_print_msg(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static inline void ktap_diag(const char *text)
{
	const char *p = text;

	while (*p) {
		int len = (int)strcspn(p, "\n");

		printf("# %.*s\n", len, p);
		p += len + (p[len] == '\n');
	}
	fflush(stdout);
}

static inline void ktap_vresult(int kind, const char *skip_reason,
				const char *fmt, va_list ap)
{
	ktap_state(0);
	ktap_cnt[kind]++;
	ktap_state(1);
	ktap_own_failures += kind == KTAP_FAIL;
	printf("%s %u ", kind == KTAP_FAIL ? "not ok" : "ok",
	       ktap_cnt[KTAP_PASS] + ktap_cnt[KTAP_FAIL] + ktap_cnt[KTAP_SKIP]);
	vprintf(fmt, ap);
	if (skip_reason)
		printf(" # SKIP %s", skip_reason);
	printf("\n");
	fflush(stdout);
}

static inline void ktap_test_result(int pass, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void ktap_test_result(int pass, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ktap_vresult(pass ? KTAP_PASS : KTAP_FAIL, NULL, fmt, ap);
	va_end(ap);
}

#define ktap_test_pass(...) ktap_test_result(1, __VA_ARGS__)
#define ktap_test_fail(...) ktap_test_result(0, __VA_ARGS__)

static inline void ktap_test_skip(const char *reason, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void ktap_test_skip(const char *reason, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ktap_vresult(KTAP_SKIP, reason, fmt, ap);
	va_end(ap);
}

static inline int ktap_finished(void)
{
	if (ktap_nested())
		return ktap_own_failures != 0;
	printf("1..%u\n", ktap_cnt[KTAP_PASS] + ktap_cnt[KTAP_FAIL] +
	       ktap_cnt[KTAP_SKIP]);
	printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:%u error:0\n",
	       ktap_cnt[KTAP_PASS], ktap_cnt[KTAP_FAIL], ktap_cnt[KTAP_SKIP]);
	fflush(stdout);
	return ktap_cnt[KTAP_FAIL] != 0;
}

#endif /* KTAP_H */
