/*
 * Fuzz target of the audit log parsing (records.c): libauparse, fed one
 * line at a time from a buffer (AUSOURCE_BUFFER, auparse_new_buffer),
 * and the code around it.  One input is a piece of a log: it is split
 * into lines as uc_reader_next() does, and each line is parsed.  Built
 * with clang -fsanitize=fuzzer,address,undefined as a libFuzzer target,
 * or with -DUC_FUZZ_DRIVER (gcc, ASan/UBSan) as a program that replays a
 * corpus and then mutates it for some seconds:
 *
 *	fuzz SECONDS FILE...
 *
 * See "make fuzz".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "usercopyctl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static void touch(const char *s)
{
	if (s)
		sink += strlen(s);
}

static void one_line(struct uc_parser *p, const char *line, size_t len)
{
	struct uc_filter f = { .kinds = UC_INCIDENT | UC_MODE_CHANGE,
			       .has_uid = 1, .uid = 1000 };
	struct uc_record r, c;
	char why[192];
	int rc;

	rc = uc_parse_line(p, line, len, &r, why, sizeof(why));
	if (rc < 0) {
		touch(why);
	} else if (rc > 0) {
		touch(r.exe);
		touch(r.comm);
		if (uc_record_copy(&c, &r) == 0) {
			touch(c.op);
			touch(c.region);
			touch(c.cache);
			touch(c.comm);
			touch(c.exe);
			touch(c.subj);
			touch(c.site);
			touch(c.old_mode);
			touch(c.new_mode);
			sink += (size_t)uc_filter_match(&f, &c);
			uc_record_free(&c);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* One parser for all inputs, as one for a whole log. */
	static struct uc_parser *p;
	const char *s, *end, *nl;
	char *line;

	if (!p && !(p = uc_parser_new()))
		abort();
	/* A copy of exactly @size bytes: ASan sees any read beyond it. */
	line = malloc(size ? size : 1);
	if (!line)
		return 0;
	memcpy(line, data, size);
	s = line;
	end = line + size;
	for (; s < end; s = nl + 1) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl)
			nl = end;
		if (nl > s)
			one_line(p, s, (size_t)(nl - s));
	}
	free(line);
	return 0;
}

#ifdef UC_FUZZ_DRIVER
struct input {
	unsigned char *data;
	size_t size;
};

static unsigned long long rng = 88172645463325252ULL;

static unsigned long long next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static const char *const tokens[] = {
	"\"", "'", "=", " ", "res=", "res=2", "pid=", "len=18446744073709551615",
	"len=18446744073709551616", "uid=4294967296", "exe=\"", "comm=",
	"op=exposure", "op=usercopy-mode", "type=UNKNOWN[1790] msg=audit(",
	"type=CONFIG_CHANGE msg=audit(", "1733270000.123:45): ", "node=x ",
	"\xff", "\xc3", "\xed\xa0\x80", "(null)", "00", "41", ")", ":",
	"\n", "\x1d", "exe=\"/tmp/x y\"", "comm=2F746D70", "type=ANOM_USERCOPY",
	"type=1790", "node= ", "msg=audit(0.000:0): ", "msg='",
};

/* One random change of @in into @out (of capacity @cap). */
static size_t mutate(const struct input *in, const struct input *other,
		     unsigned char *out, size_t cap)
{
	size_t n = in->size < cap ? in->size : cap, pos, len;
	const char *t;

	memcpy(out, in->data, n);
	pos = n ? next_rand() % (n + 1) : 0;
	switch (next_rand() % 6) {
	case 0:		/* flip a bit */
		if (n)
			out[pos % n] ^= (unsigned char)(1u << (next_rand() % 8));
		break;
	case 1:		/* random byte */
		if (n)
			out[pos % n] = (unsigned char)next_rand();
		break;
	case 2:		/* delete a run */
		len = n - pos ? next_rand() % (n - pos + 1) : 0;
		memmove(out + pos, out + pos + len, n - pos - len);
		n -= len;
		break;
	case 3:		/* insert a token */
		t = tokens[next_rand() % (sizeof(tokens) / sizeof(tokens[0]))];
		len = strlen(t);
		if (n + len > cap)
			break;
		memmove(out + pos + len, out + pos, n - pos);
		memcpy(out + pos, t, len);
		n += len;
		break;
	case 4:		/* splice with another input */
		len = other->size ? next_rand() % other->size : 0;
		if (pos + other->size - len > cap)
			break;
		memcpy(out + pos, other->data + len, other->size - len);
		n = pos + other->size - len;
		break;
	default:	/* repeat a run (long fields) */
		len = n - pos ? next_rand() % (n - pos + 1) : 0;
		while (len && n + len <= cap && next_rand() % 4) {
			memmove(out + pos + len, out + pos, n - pos);
			n += len;
		}
		break;
	}
	return n;
}

int main(int argc, char **argv)
{
	static unsigned char buf[1 << 18];
	struct input *in;
	size_t nin = 0, i;
	unsigned long long runs = 0;
	time_t end;
	int a;

	if (argc < 3) {
		fprintf(stderr, "usage: %s SECONDS FILE...\n", argv[0]);
		return 2;
	}
	end = time(NULL) + atoi(argv[1]);
	in = calloc((size_t)argc, sizeof(*in));
	if (!in)
		return 2;
	for (a = 2; a < argc; a++) {
		FILE *f = fopen(argv[a], "rb");
		size_t n;

		if (!f)
			continue;
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		in[nin].data = malloc(n ? n : 1);
		if (!in[nin].data)
			return 2;
		memcpy(in[nin].data, buf, n);
		in[nin++].size = n;
	}
	if (!nin) {
		fprintf(stderr, "no corpus\n");
		return 2;
	}
	for (i = 0; i < nin; i++)
		LLVMFuzzerTestOneInput(in[i].data, in[i].size);
	printf("replayed %zu inputs\n", nin);
	while (time(NULL) < end) {
		for (i = 0; i < 1000; i++) {
			const struct input *x = &in[next_rand() % nin];
			const struct input *y = &in[next_rand() % nin];
			struct input m = { buf, mutate(x, y, buf, sizeof(buf)) };
			int k = (int)(next_rand() % 4);

			/* stack a few mutations */
			while (k-- > 0) {
				static unsigned char tmp[sizeof(buf)];

				memcpy(tmp, m.data, m.size);
				struct input t = { tmp, m.size };
				m.size = mutate(&t, y, buf, sizeof(buf));
			}
			LLVMFuzzerTestOneInput(buf, m.size);
			runs++;
		}
	}
	printf("%llu mutated inputs, no crash\n", runs);
	for (i = 0; i < nin; i++)
		free(in[i].data);
	free(in);
	return 0;
}
#endif
