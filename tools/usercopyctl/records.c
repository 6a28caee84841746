/*
 * usercopyctl: the record model -- usercopy audit records parsed from the
 * lines of an audit log with libauparse, reading a log as a stream,
 * filters and time parsing.  No output, no exit: errors are returned.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <auparse.h>

#include "usercopyctl.h"

/* ---- small parsers ----------------------------------------------------- */

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Decimal digits only, no sign, not above @max: 0 or -1. */
static int parse_u64(const char *s, unsigned long long max,
		     unsigned long long *v)
{
	unsigned long long x = 0;

	if (!is_digit(*s))
		return -1;
	for (; *s; s++) {
		if (!is_digit(*s))
			return -1;
		if (x > (max - (unsigned)(*s - '0')) / 10)
			return -1;
		x = x * 10 + (unsigned)(*s - '0');
	}
	*v = x;
	return 0;
}

static int parse_u32(const char *s, unsigned long *v)
{
	unsigned long long x;

	if (parse_u64(s, UINT32_MAX, &x))
		return -1;
	*v = (unsigned long)x;
	return 0;
}

static int parse_bool(const char *s, int *v)
{
	if ((s[0] != '0' && s[0] != '1') || s[1])
		return -1;
	*v = s[0] == '1';
	return 0;
}

static void why_set(char *why, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void why_set(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
}

/* ---- the parser: libauparse, one line at a time ------------------------ */

/*
 * Each line is handed to libauparse as a buffer of its own
 * (AUSOURCE_BUFFER, auparse_new_buffer), which splits it into its event,
 * record and fields, reads the time stamp and the type, and decodes the
 * strings the kernel logs quoted or hex-encoded.  Going line by line
 * keeps the line number of every record (for warnings), lets a line that
 * auparse cannot read at all be reported instead of silently skipped,
 * and keeps memory flat however long the log.  All a usercopy record or
 * mode change says is in its own line: the SYSCALL and PROCTITLE records
 * it may share an event with are not needed.
 */
struct uc_parser {
	auparse_state_t *au;
	char *buf;		/* the line as given to auparse */
	size_t bufcap;
	char *str;		/* the record's strings, see keep() */
	size_t strcap, strlen;
};

struct uc_parser *uc_parser_new(void)
{
	struct uc_parser *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	/* AUSOURCE_BUFFER: every line is given by auparse_new_buffer(). */
	p->au = auparse_init(AUSOURCE_BUFFER, "");
	if (!p->au) {
		int err = errno ? errno : ENOMEM;

		free(p);
		errno = err;
		return NULL;
	}
	/* The real bytes: output.c escapes them for tables and JSON. */
	auparse_set_escape_mode(p->au, AUPARSE_ESC_RAW);
	return p;
}

void uc_parser_free(struct uc_parser *p)
{
	if (!p)
		return;
	auparse_destroy(p->au);
	free(p->buf);
	free(p->str);
	free(p);
}

static int grow(char **buf, size_t *cap, size_t need)
{
	char *n;

	if (need <= *cap)
		return 0;
	n = realloc(*buf, need);
	if (!n)
		return -ENOMEM;
	*buf = n;
	*cap = need;
	return 0;
}

/*
 * A field added to every line given to auparse.  libauparse (3.0.9 at
 * least) leaks the field list of a record in which it keeps no field at
 * all, as in "x msg=audit(1.000:1): x": with this one, no record is
 * without fields.  Its name is no field of the kernel's.
 */
#define SENTINEL	" usercopyctl_eol=1"

/*
 * Copy @line into p->buf for auparse, ending it with SENTINEL and the
 * newline that auparse needs to see the end of a record.
 *
 * auparse splits a record at every space, inside double quotes too: the
 * kernel never logs a quoted value with a space (audit_log_untrustedstring
 * hex-encodes any string that has one), but other writers of audit logs
 * may.  Such a value is given to auparse hex-encoded, the kernel's own
 * way, so that it stays one field and auparse_interpret_field() gives
 * back its text.  *unterminated tells whether a quoted value is never
 * closed.  0 or -ENOMEM.
 */
static int prepare(struct uc_parser *p, const char *line, size_t len,
		   size_t *outlen, int *unterminated)
{
	static const char hex[] = "0123456789ABCDEF";
	const char *s = line, *end, *q, *close;
	char *o;

	/* Hex-encoding at most doubles the line. */
	if (len > ((size_t)-1 - sizeof(SENTINEL) - 2) / 2 ||
	    grow(&p->buf, &p->bufcap, 2 * len + sizeof(SENTINEL) + 2))
		return -ENOMEM;
	o = p->buf;
	*unterminated = 0;
	/* The fields: not what follows the separator of the interpretations
	 * in an enriched log (AUDIT_INTERP_SEPARATOR). */
	end = memchr(line, 0x1d, len);
	if (!end)
		end = line + len;
	while ((q = memchr(s, '"', (size_t)(end - s)))) {
		memcpy(o, s, (size_t)(q - s));
		o += q - s;
		s = q;
		close = memchr(q + 1, '"', (size_t)(end - q - 1));
		if (q == line || q[-1] != '=' || !close) {
			/* not the start of a value, or never closed */
			if (q != line && q[-1] == '=')
				*unterminated = 1;
			*o++ = *s++;
			continue;
		}
		if (memchr(q + 1, ' ', (size_t)(close - q - 1))) {
			/* hex, without the quotes */
			for (s = q + 1; s < close; s++) {
				*o++ = hex[(unsigned char)*s >> 4];
				*o++ = hex[(unsigned char)*s & 0xf];
			}
		} else {
			memcpy(o, q, (size_t)(close + 1 - q));
			o += close + 1 - q;
		}
		s = close + 1;
	}
	memcpy(o, s, (size_t)(end - s));
	o += end - s;
	memcpy(o, SENTINEL, sizeof(SENTINEL) - 1);
	o += sizeof(SENTINEL) - 1;
	memcpy(o, end, (size_t)(line + len - end));
	o += line + len - end;
	*o++ = '\n';
	*o = '\0';
	*outlen = (size_t)(o - p->buf);
	return 0;
}

/*
 * A copy of @s (@n bytes) in p->str, which holds the strings of the
 * current record.  p->str is made big enough for all of them before the
 * fields are read (they are parts of the line), so this never moves it.
 */
static const char *keep(struct uc_parser *p, const char *s, size_t n)
{
	char *d;

	if (n >= p->strcap - p->strlen)
		return NULL;
	d = p->str + p->strlen;
	memcpy(d, s, n);
	d[n] = '\0';
	p->strlen += n + 1;
	return d;
}

/* A value as logged, without the double quotes around it if any. */
static const char *keep_plain(struct uc_parser *p, const char *val)
{
	size_t n = strlen(val);

	if (n >= 2 && val[0] == '"' && val[n - 1] == '"')
		return keep(p, val + 1, n - 2);
	return keep(p, val, n);
}

/* comm= and exe=: quoted, or hex-encoded if the kernel found odd bytes in
 * them, "(null)" or "?": the text as auparse interprets it. */
static const char *keep_escaped(struct uc_parser *p, const char *val)
{
	const char *s = auparse_interpret_field(p->au);

	if (!s)
		s = val;
	return keep(p, s, strlen(s));
}

/*
 * A string the kernel logged with audit_log_untrustedstring(), under a
 * field name that libauparse does not know (so auparse_interpret_field()
 * gives it back as it is): "quoted", or hex-encoded if it has a space, a
 * quote or a control character (also what prepare() makes of a quoted
 * value with a space).  Anything else is kept as logged.
 */
static const char *keep_untrusted(struct uc_parser *p, const char *val)
{
	size_t n = strlen(val), i;
	char *d;

	if (n >= 2 && val[0] == '"' && val[n - 1] == '"')
		return keep(p, val + 1, n - 2);
	if (n == 0 || n % 2 || strspn(val, "0123456789ABCDEFabcdef") != n)
		return keep(p, val, n);
	/* decoded in place: half as long as the text */
	d = (char *)keep(p, val, n);
	if (!d)
		return NULL;
	for (i = 0; i < n / 2; i++) {
		unsigned hi = (unsigned)(is_digit(val[2 * i]) ? val[2 * i] - '0' :
					 (val[2 * i] | 0x20) - 'a' + 10);
		unsigned lo = (unsigned)(is_digit(val[2 * i + 1]) ? val[2 * i + 1] - '0' :
					 (val[2 * i + 1] | 0x20) - 'a' + 10);

		d[i] = (char)(hi << 4 | lo);
	}
	d[n / 2] = '\0';
	return d;
}

#define MAX_SECONDS	999999999999999LL

/* The first of each field counts; a bad value anywhere makes the record
 * bad.  0, or -1 for a bad value. */
static int set_str(struct uc_parser *p, const char **dst, const char *val)
{
	if (!*dst)
		*dst = keep_plain(p, val);
	return 0;
}

static int set_escaped(struct uc_parser *p, const char **dst, const char *val)
{
	if (!*dst)
		*dst = keep_escaped(p, val);
	return 0;
}

static int set_untrusted(struct uc_parser *p, const char **dst, const char *val)
{
	if (!*dst)
		*dst = keep_untrusted(p, val);
	return 0;
}

static int set_u64(struct uc_record *r, unsigned long long *dst,
		   unsigned int flag, const char *val)
{
	unsigned long long v;

	if (parse_u64(val, UINT64_MAX, &v))
		return -1;
	if (!(r->has & flag)) {
		*dst = v;
		r->has |= flag;
	}
	return 0;
}

static int set_u32(struct uc_record *r, unsigned long *dst,
		   unsigned int flag, const char *val)
{
	unsigned long v;

	if (parse_u32(val, &v))
		return -1;
	if (!(r->has & flag)) {
		*dst = v;
		r->has |= flag;
	}
	return 0;
}

static int set_bool(struct uc_record *r, int *dst, unsigned int flag,
		    const char *val)
{
	int v;

	if (parse_bool(val, &v))
		return -1;
	if (!(r->has & flag)) {
		*dst = v;
		r->has |= flag;
	}
	return 0;
}

/*
 * One field (as auparse split it) of a record of @kind into @r: 0, or -1
 * if its value is bad.  Mode changes have op, old, new, old_lock,
 * new_lock, auid, ses and res, allow changes op, cache, auid, ses and res
 * (both are CONFIG_CHANGE records, told apart by op once all is read);
 * the other fields are the incidents'.
 */
static int take_field(struct uc_parser *p, struct uc_record *r, int kind,
		      const char *name, const char *val)
{
	int mc = kind == UC_MODE_CHANGE;

#define IS(n)	(strcmp(name, n) == 0)
	switch (name[0]) {
	case 'a':
		if (IS("auid"))
			return set_u32(r, &r->auid, UC_HAS_AUID, val);
		break;
	case 'c':
		if (IS("cache"))
			return mc ? set_untrusted(p, &r->cache, val) :
				    set_str(p, &r->cache, val);
		if (!mc && IS("comm"))
			return set_escaped(p, &r->comm, val);
		break;
	case 'e':
		if (!mc && IS("exe"))
			return set_escaped(p, &r->exe, val);
		break;
	case 'g':
		if (!mc && IS("gid"))
			return set_u32(r, &r->gid, UC_HAS_GID, val);
		break;
	case 'l':
		if (!mc && IS("len"))
			return set_u64(r, &r->len, UC_HAS_LEN, val);
		break;
	case 'n':
		if (mc && IS("new"))
			return set_str(p, &r->new_mode, val);
		if (mc && IS("new_lock"))
			return set_bool(r, &r->new_lock, UC_HAS_NEW_LOCK, val);
		break;
	case 'o':
		if (IS("op"))
			return set_str(p, &r->op, val);
		if (!mc && IS("offset"))
			return set_u64(r, &r->offset, UC_HAS_OFFSET, val);
		if (mc && IS("old"))
			return set_str(p, &r->old_mode, val);
		if (mc && IS("old_lock"))
			return set_bool(r, &r->old_lock, UC_HAS_OLD_LOCK, val);
		break;
	case 'p':
		if (!mc && IS("pid"))
			return set_u32(r, &r->pid, UC_HAS_PID, val);
		if (!mc && IS("permissive"))
			return set_bool(r, &r->permissive, UC_HAS_PERMISSIVE, val);
		break;
	case 'r':
		if (IS("res"))
			return set_bool(r, &r->res, UC_HAS_RES, val);
		if (!mc && IS("region"))
			return set_str(p, &r->region, val);
		break;
	case 's':
		if (!mc && IS("suppressed"))
			return set_u64(r, &r->suppressed, UC_HAS_SUPPRESSED, val);
		if (IS("ses"))
			return set_u64(r, &r->ses, UC_HAS_SES, val);
		if (!mc && IS("subj"))
			return set_str(p, &r->subj, val);
		if (!mc && IS("site"))
			return set_untrusted(p, &r->site, val);
		break;
	case 'u':
		if (!mc && IS("uid"))
			return set_u32(r, &r->uid, UC_HAS_UID, val);
		break;
	}
#undef IS
	/* type=, node=, SENTINEL, or a field added later: ignored */
	return 0;
}

static void record_init(struct uc_record *r)
{
	memset(r, 0, sizeof(*r));
	r->res = r->permissive = r->old_lock = r->new_lock = -1;
}

/* The kind of the current record, 0, or -1 if it has no type. */
static int record_kind(auparse_state_t *au)
{
	const char *t;

	switch (auparse_get_type(au)) {
	case UC_AUDIT_ANOM_USERCOPY:
		return UC_INCIDENT;
	case UC_AUDIT_CONFIG_CHANGE:
		return UC_MODE_CHANGE;
	case 0:
		return -1;	/* "type=" without a type */
	case -1:
		/* A type name this libaudit does not know (yet). */
		t = auparse_find_field(au, "type");
		if (t && strcmp(t, "ANOM_USERCOPY") == 0)
			return UC_INCIDENT;
		return 0;
	default:
		return 0;
	}
}

int uc_parse_line(struct uc_parser *p, const char *line, size_t len,
		  struct uc_record *r, char *why, size_t whysize)
{
	auparse_state_t *au = p->au;
	const au_event_t *ev;
	const char *kindname;
	const char *bad = NULL;
	char badbuf[96];
	size_t blen;
	int kind, truncated;

	record_init(r);
	if (memchr(line, '\0', len)) {
		why_set(why, whysize, "line contains a NUL byte");
		return -1;
	}
	if (prepare(p, line, len, &blen, &truncated) ||
	    grow(&p->str, &p->strcap, blen + 64)) {
		why_set(why, whysize, "out of memory");
		return -1;
	}
	p->strlen = 0;
	if (auparse_new_buffer(au, p->buf, blen) != 0) {
		why_set(why, whysize, "cannot parse it: %s", strerror(errno ? errno : ENOMEM));
		return -1;
	}
	/*
	 * One line, one record: auparse makes it an event of its own.  Its
	 * time stamp in range: seconds of at most 15 digits (the time
	 * filters count in milliseconds).
	 */
	if (auparse_next_event(au) <= 0 || auparse_first_record(au) <= 0 ||
	    !(ev = auparse_get_timestamp(au)) || ev->sec < 0 ||
	    (long long)ev->sec > MAX_SECONDS || ev->milli > 999 ||
	    (kind = record_kind(au)) < 0) {
		why_set(why, whysize, "not an audit record");
		return -1;
	}
	if (!kind)
		return 0;
	r->kind = (enum uc_kind)kind;
	r->sec = (long long)ev->sec;
	r->msec = ev->milli;
	r->serial = ev->serial;
	kindname = kind == UC_INCIDENT ? "usercopy record" : "mode change record";

	if (auparse_first_field(au) > 0) do {
		const char *name = auparse_get_field_name(au);
		const char *val = auparse_get_field_str(au);

		if (name && val && take_field(p, r, kind, name, val) && !bad) {
			snprintf(badbuf, sizeof(badbuf), "%s=%.40s%s", name, val,
				 strlen(val) > 40 ? "..." : "");
			bad = badbuf;
		}
	} while (auparse_next_field(au) > 0);

	if (kind == UC_MODE_CHANGE && r->op && strcmp(r->op, "usercopy-allow") == 0) {
		kind = UC_ALLOW_CHANGE;
		r->kind = UC_ALLOW_CHANGE;
		kindname = "allow record";
	} else if (kind == UC_MODE_CHANGE &&
		   (!r->op || strcmp(r->op, "usercopy-mode") != 0)) {
		return 0;	/* some other configuration change */
	}
	if (!(r->has & UC_HAS_RES) && !bad) {
		why_set(why, whysize, "incomplete %s (no res=)", kindname);
		return -1;
	}
	if (bad) {
		why_set(why, whysize, "malformed %s (bad value %s)", kindname, bad);
		return -1;
	}
	if (truncated) {
		why_set(why, whysize, "malformed %s (unterminated quote)", kindname);
		return -1;
	}
	if (kind == UC_ALLOW_CHANGE) {
		if (!r->cache) {
			why_set(why, whysize, "malformed allow record (no cache=)");
			return -1;
		}
		return 1;
	}
	if (kind == UC_MODE_CHANGE) {
		if (!r->old_mode || !r->new_mode) {
			why_set(why, whysize, "malformed mode change record (no %s=)",
				r->old_mode ? "new" : "old");
			return -1;
		}
		return 1;
	}
	if (!r->op || (strcmp(r->op, "exposure") != 0 &&
		       strcmp(r->op, "overwrite") != 0)) {
		why_set(why, whysize, "malformed usercopy record (op=%.20s)",
			r->op ? r->op : "missing");
		return -1;
	}
	if (!r->region || !(r->has & UC_HAS_LEN) || !(r->has & UC_HAS_PID) ||
	    !(r->has & UC_HAS_OFFSET)) {
		why_set(why, whysize, "malformed usercopy record (no %s=)",
			!r->region ? "region" : !(r->has & UC_HAS_LEN) ? "len" :
			!(r->has & UC_HAS_PID) ? "pid" : "offset");
		return -1;
	}
	if (!r->cache)
		r->cache = "?";
	if (!r->comm)
		r->comm = "?";
	if (!r->exe)
		r->exe = "?";
	return 1;
}

/* ---- owned copies ------------------------------------------------------ */

int uc_record_copy(struct uc_record *dst, const struct uc_record *src)
{
	const char *const *from[] = {
		&src->op, &src->region, &src->cache, &src->comm, &src->exe,
		&src->subj, &src->site, &src->old_mode, &src->new_mode,
	};
	const char **to[] = {
		&dst->op, &dst->region, &dst->cache, &dst->comm, &dst->exe,
		&dst->subj, &dst->site, &dst->old_mode, &dst->new_mode,
	};
	size_t i, total = 0, off = 0, n = sizeof(from) / sizeof(from[0]);
	char *mem;

	for (i = 0; i < n; i++)
		if (*from[i])
			total += strlen(*from[i]) + 1;
	mem = malloc(total ? total : 1);
	if (!mem)
		return -ENOMEM;
	*dst = *src;
	for (i = 0; i < n; i++) {
		if (!*from[i])
			continue;
		size_t len = strlen(*from[i]) + 1;

		memcpy(mem + off, *from[i], len);
		*to[i] = mem + off;
		off += len;
	}
	dst->mem = mem;
	return 0;
}

void uc_record_free(struct uc_record *r)
{
	free(r->mem);
	memset(r, 0, sizeof(*r));
}

/* ---- a log file -------------------------------------------------------- */

int uc_reader_open(struct uc_reader *rd, const char *path)
{
	int err;

	memset(rd, 0, sizeof(*rd));
	rd->path = path;
	rd->parser = uc_parser_new();
	if (!rd->parser)
		return -(errno ? errno : ENOMEM);
	rd->fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "re");
	if (!rd->fp) {
		err = errno;
		uc_parser_free(rd->parser);
		rd->parser = NULL;
		return -err;
	}
	return 0;
}

int uc_reader_next(struct uc_reader *rd, struct uc_record *r)
{
	ssize_t len;

	while ((len = getline(&rd->line, &rd->cap, rd->fp)) >= 0) {
		int rc;

		rd->lineno++;
		if (len > 0 && rd->line[len - 1] == '\n')
			rd->line[--len] = '\0';
		if (len == 0)
			continue;
		rc = uc_parse_line(rd->parser, rd->line, (size_t)len, r,
				   rd->why, sizeof(rd->why));
		if (rc == 0)
			continue;
		if (rc > 0)
			r->seq = rd->seq++;
		return rc;
	}
	if (ferror(rd->fp)) {
		rd->err = errno ? errno : EIO;
		return -2;
	}
	return 0;
}

void uc_reader_close(struct uc_reader *rd)
{
	free(rd->line);
	uc_parser_free(rd->parser);
	if (rd->fp && rd->fp != stdin)
		fclose(rd->fp);
	memset(rd, 0, sizeof(*rd));
}

/* ---- filters ----------------------------------------------------------- */

int uc_filter_match(const struct uc_filter *f, const struct uc_record *r)
{
	long long ms = r->sec * 1000 + r->msec;

	if (!(f->kinds & (int)r->kind))
		return 0;
	if (f->has_since && ms < f->since_ms)
		return 0;
	if (f->has_until && ms > f->until_ms)
		return 0;
	if (f->has_pid && (r->kind != UC_INCIDENT || !(r->has & UC_HAS_PID) ||
			   r->pid != f->pid))
		return 0;
	if (f->has_uid && !((r->has & UC_HAS_AUID) && r->auid == f->uid) &&
	    !(r->kind == UC_INCIDENT && (r->has & UC_HAS_UID) && r->uid == f->uid))
		return 0;
	return 1;
}

/* ---- time -------------------------------------------------------------- */

static long long local_midnight(time_t t, int days_back)
{
	struct tm tm;

	localtime_r(&t, &tm);
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_mday -= days_back;
	tm.tm_isdst = -1;
	return (long long)mktime(&tm) * 1000;
}

int uc_boot_time(long long *ms)
{
	const char *env = getenv("USERCOPYCTL_STAT");
	FILE *f = fopen(env && *env ? env : "/proc/stat", "re");
	char line[256];
	unsigned long long v;
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "btime ", 6) == 0) {
			line[strcspn(line, "\n")] = '\0';
			if (parse_u64(line + 6, 1ULL << 40, &v) == 0) {
				*ms = (long long)v * 1000;
				ret = 0;
			}
			break;
		}
	}
	fclose(f);
	return ret;
}

int uc_parse_time(const char *s, long long *ms)
{
	int y, mo, d, h = 0, mi = 0, sec = 0, n = 0, m = 0;
	struct tm tm;
	time_t t;

	if (s[0] == '@') {
		unsigned long long v;

		if (parse_u64(s + 1, 1ULL << 40, &v))
			return -1;
		*ms = (long long)v * 1000;
		return 0;
	}
	if (strcmp(s, "now") == 0) {
		*ms = (long long)time(NULL) * 1000;
		return 0;
	}
	if (strcmp(s, "recent") == 0) {
		*ms = ((long long)time(NULL) - 600) * 1000;
		return 0;
	}
	if (strcmp(s, "boot") == 0)
		return uc_boot_time(ms) == 0 ? 0 : -1;
	if (strcmp(s, "today") == 0 || strcmp(s, "yesterday") == 0) {
		*ms = local_midnight(time(NULL), s[0] == 'y');
		return 0;
	}
	if (sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10)
		return -1;
	if (s[n] == ' ' || s[n] == 'T') {
		const char *p = s + n + 1;

		if (sscanf(p, "%2d:%2d%n", &h, &mi, &m) != 2 || m != 5)
			return -1;
		p += m;
		if (*p == ':') {
			if (sscanf(p + 1, "%2d%n", &sec, &m) != 1 || m != 2)
				return -1;
			p += 3;
		}
		if (*p)
			return -1;
	} else if (s[n]) {
		return -1;
	}
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
	    mi > 59 || sec > 60 || h < 0 || mi < 0 || sec < 0)
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	tm.tm_isdst = -1;
	t = mktime(&tm);
	if (t == (time_t)-1 || tm.tm_mday != d || tm.tm_mon != mo - 1)
		return -1;	/* such as February 30 */
	*ms = (long long)t * 1000;
	return 0;
}
