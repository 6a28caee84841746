/*
 * usercopyctl: the audit side -- usercopy records from the audit log or
 * the audit netlink multicast group, filters, tables and JSON.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <auparse.h>
#include <libaudit.h>
#include <libsmartcols.h>
#include <linux/netlink.h>

#include "usercopyctl.h"

#define MAX_WARNINGS	20

/* ---- records ----------------------------------------------------------- */

void uc_record_clear(struct uc_record *r)
{
	free(r->op);
	free(r->region);
	free(r->cache);
	free(r->comm);
	free(r->exe);
	free(r->subj);
	free(r->old_mode);
	free(r->new_mode);
	memset(r, 0, sizeof(*r));
}

void uc_records_free(struct uc_records *rs)
{
	size_t i;

	for (i = 0; i < rs->n; i++)
		uc_record_clear(&rs->v[i]);
	free(rs->v);
	memset(rs, 0, sizeof(*rs));
}

static void records_push(struct uc_records *rs, struct uc_record *r)
{
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 16;
		struct uc_record *v = realloc(rs->v, cap * sizeof(*v));

		if (!v) {
			uc_err("out of memory");
			exit(UC_EXIT_FAILURE);
		}
		rs->v = v;
		rs->cap = cap;
	}
	rs->v[rs->n++] = *r;
	memset(r, 0, sizeof(*r));
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d) {
		uc_err("out of memory");
		exit(UC_EXIT_FAILURE);
	}
	return d;
}

static int parse_ulong(const char *s, unsigned long *v)
{
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno || *end ? -1 : 0;
}

static int parse_bool(const char *s, int *v)
{
	if (!s || (strcmp(s, "0") != 0 && strcmp(s, "1") != 0))
		return -1;
	*v = *s == '1';
	return 0;
}

/*
 * Fill @r from the current auparse record.  Returns 1 for a usercopy
 * record, 0 for a record of no interest, -1 for a usercopy record that is
 * malformed or truncated (with a reason in @why).
 */
static int parse_record(auparse_state_t *au, struct uc_record *r,
			const char **why)
{
	int type = auparse_get_type(au);
	int have_res = 0, have_len = 0, have_pid = 0, have_offset = 0;
	int bad = 0;

	memset(r, 0, sizeof(*r));
	if (type != UC_AUDIT_ANOM_USERCOPY && type != UC_AUDIT_CONFIG_CHANGE)
		return 0;
	r->kind = type == UC_AUDIT_ANOM_USERCOPY ? UC_INCIDENT : UC_MODE_CHANGE;
	r->sec = auparse_get_time(au);
	r->msec = auparse_get_milli(au);
	r->serial = auparse_get_serial(au);
	r->offset = r->len = r->pid = UC_UNSET;
	r->uid = r->gid = r->auid = r->ses = UC_UNSET;
	r->permissive = r->res = r->old_lock = r->new_lock = -1;

	if (auparse_first_field(au) <= 0)
		goto malformed;
	do {
		const char *name = auparse_get_field_name(au);
		const char *val = auparse_get_field_str(au);
		int ok = 0;

		if (!name || !val)
			continue;
		if (strcmp(name, "op") == 0) {
			free(r->op);
			r->op = xstrdup(val);
			ok = 1;
		} else if (strcmp(name, "auid") == 0) {
			ok = !parse_ulong(val, &r->auid);
		} else if (strcmp(name, "ses") == 0) {
			ok = !parse_ulong(val, &r->ses);
		} else if (strcmp(name, "res") == 0) {
			ok = !parse_bool(val, &r->res);
			have_res = ok;
		} else if (r->kind == UC_MODE_CHANGE) {
			if (strcmp(name, "old") == 0 && !r->old_mode)
				r->old_mode = xstrdup(val);
			else if (strcmp(name, "new") == 0 && !r->new_mode)
				r->new_mode = xstrdup(val);
			else if (strcmp(name, "old_lock") == 0 &&
				 parse_bool(val, &r->old_lock))
				bad = 1;
			else if (strcmp(name, "new_lock") == 0 &&
				 parse_bool(val, &r->new_lock))
				bad = 1;
			continue;
		} else if (strcmp(name, "region") == 0) {
			free(r->region);
			r->region = xstrdup(val);
			ok = 1;
		} else if (strcmp(name, "cache") == 0) {
			free(r->cache);
			r->cache = xstrdup(val);
			ok = 1;
		} else if (strcmp(name, "offset") == 0) {
			ok = have_offset = !parse_ulong(val, &r->offset);
		} else if (strcmp(name, "len") == 0) {
			ok = have_len = !parse_ulong(val, &r->len);
		} else if (strcmp(name, "uid") == 0) {
			ok = !parse_ulong(val, &r->uid);
		} else if (strcmp(name, "gid") == 0) {
			ok = !parse_ulong(val, &r->gid);
		} else if (strcmp(name, "pid") == 0) {
			ok = have_pid = !parse_ulong(val, &r->pid);
		} else if (strcmp(name, "permissive") == 0) {
			ok = !parse_bool(val, &r->permissive);
		} else if (strcmp(name, "subj") == 0) {
			free(r->subj);
			r->subj = xstrdup(val);
			ok = 1;
		} else if (strcmp(name, "comm") == 0 || strcmp(name, "exe") == 0) {
			/* Quoted, or hex if the kernel found odd characters. */
			const char *s = auparse_interpret_field(au);
			char **dst = name[0] == 'c' ? &r->comm : &r->exe;

			free(*dst);
			*dst = xstrdup(s ? s : val);
			ok = 1;
		} else {
			ok = 1;	/* a field added later: ignore it */
		}
		if (!ok)
			bad = 1;
	} while (auparse_next_field(au) > 0);

	if (r->kind == UC_MODE_CHANGE) {
		if (!r->op || strcmp(r->op, "usercopy-mode") != 0) {
			uc_record_clear(r);
			return 0;	/* some other configuration change */
		}
		if (!have_res) {
			*why = "incomplete mode change record (no res=)";
			goto fail;
		}
		if (bad || !r->old_mode || !r->new_mode) {
			*why = "malformed mode change record";
			goto fail;
		}
		return 1;
	}
	if (!have_res) {
		*why = "incomplete usercopy record (no res=)";
		goto fail;
	}
	if (bad || !r->op || (strcmp(r->op, "exposure") != 0 &&
			      strcmp(r->op, "overwrite") != 0) ||
	    !r->region || !have_len || !have_pid || !have_offset)
		goto malformed;
	if (!r->cache)
		r->cache = xstrdup("?");
	if (!r->comm)
		r->comm = xstrdup("?");
	if (!r->exe)
		r->exe = xstrdup("?");
	return 1;
malformed:
	*why = "malformed usercopy record";
fail:
	uc_record_clear(r);
	return -1;
}

/* ---- filters and time -------------------------------------------------- */

int uc_filter_match(const struct uc_filter *f, const struct uc_record *r)
{
	long long ms = (long long)r->sec * 1000 + r->msec;

	if (r->kind == UC_INCIDENT && !f->incidents)
		return 0;
	if (r->kind == UC_MODE_CHANGE && !f->changes)
		return 0;
	if (f->has_since && ms < f->since_ms)
		return 0;
	if (f->has_until && ms > f->until_ms)
		return 0;
	if (f->has_pid && (r->kind != UC_INCIDENT || r->pid != f->pid))
		return 0;
	if (f->has_uid && r->auid != f->uid &&
	    (r->kind != UC_INCIDENT || r->uid != f->uid))
		return 0;
	return 1;
}

static long long local_midnight(time_t t, int days_back)
{
	struct tm tm;

	localtime_r(&t, &tm);
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_mday -= days_back;
	tm.tm_isdst = -1;
	return (long long)mktime(&tm) * 1000;
}

/*
 * "YYYY-MM-DD[ HH:MM[:SS]]" (also with a 'T'), in local time; "@SECONDS"
 * since the epoch; "now", "today", "yesterday".  0 or -1.
 */
int uc_parse_time(const char *s, long long *ms)
{
	int y, mo, d, h = 0, mi = 0, sec = 0, n = 0, m = 0;
	struct tm tm;
	time_t t;

	if (s[0] == '@') {
		unsigned long v;

		if (parse_ulong(s + 1, &v) || v > (unsigned long)1 << 40)
			return -1;
		*ms = (long long)v * 1000;
		return 0;
	}
	if (strcmp(s, "now") == 0) {
		*ms = (long long)time(NULL) * 1000;
		return 0;
	}
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

/* ---- the log file ------------------------------------------------------ */

/*
 * Returns the record's type word if @line looks like an audit record:
 * "[node=N ]type=T msg=audit(SEC.MS:SERIAL): ...".
 */
static const char *line_type(const char *line, size_t *tlen)
{
	const char *p = line, *t;

	if (strncmp(p, "node=", 5) == 0) {
		p += strcspn(p, " ");
		if (*p++ != ' ')
			return NULL;
	}
	if (strncmp(p, "type=", 5) != 0)
		return NULL;
	t = p + 5;
	*tlen = strcspn(t, " ");
	if (*tlen == 0)
		return NULL;
	p = t + *tlen;
	if (strncmp(p, " msg=audit(", 11) != 0)
		return NULL;
	p += 11;
	if (!isdigit((unsigned char)*p))
		return NULL;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p++ != '.' || !isdigit((unsigned char)*p))
		return NULL;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p++ != ':' || !isdigit((unsigned char)*p))
		return NULL;
	while (isdigit((unsigned char)*p))
		p++;
	if (strncmp(p, "):", 2) != 0)
		return NULL;
	return t;
}

static int type_wanted(const char *t, size_t len)
{
	static const char *const names[] = {
		"UNKNOWN[1790]", "ANOM_USERCOPY", "CONFIG_CHANGE", "1790", "1305"
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && strncmp(t, names[i], len) == 0)
			return 1;
	return 0;
}

static auparse_state_t *new_parser(ausource_t src, int json)
{
	auparse_state_t *au = auparse_init(src, src == AUSOURCE_BUFFER ? "\n" : NULL);

	if (!au) {
		uc_err("cannot initialise the audit parser: %s", strerror(errno));
		exit(UC_EXIT_FAILURE);
	}
	/* The tables escape for the terminal; JSON needs the real bytes. */
	auparse_set_escape_mode(au, json ? AUPARSE_ESC_RAW : AUPARSE_ESC_TTY);
	return au;
}

/*
 * Append the usercopy records of @path ("-" for standard input) that
 * pass @f to @out.  Lines that are not audit records, and usercopy
 * records that are cut short or malformed, are skipped with a warning
 * naming the line.  Returns 0, or -1 if the file cannot be read.
 */
int uc_read_log(const char *path, const struct uc_filter *f,
		struct uc_records *out, int flags)
{
	FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "re");
	auparse_state_t *au;
	char *line = NULL, *buf = NULL;
	size_t cap = 0, bufcap = 0, tlen;
	unsigned long lineno = 0, nwarn = 0;
	ssize_t len;
	int ret = 0;

	if (!fp) {
		uc_err("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	au = new_parser(AUSOURCE_BUFFER, flags & UC_READ_JSON);

	while ((len = getline(&line, &cap, fp)) >= 0) {
		const char *why = NULL, *t;
		struct uc_record r;
		int rc;

		lineno++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len == 0)
			continue;
		if (strlen(line) != (size_t)len) {
			why = "line contains a NUL byte";
			goto warn;
		}
		t = line_type(line, &tlen);
		if (!t) {
			why = "not an audit record";
			goto warn;
		}
		if (!type_wanted(t, tlen))
			continue;
		if (bufcap < (size_t)len + 2) {
			char *nb = realloc(buf, (size_t)len + 2);

			if (!nb) {
				uc_err("out of memory");
				exit(UC_EXIT_FAILURE);
			}
			buf = nb;
			bufcap = (size_t)len + 2;
		}
		memcpy(buf, line, (size_t)len);
		buf[len] = '\n';
		buf[len + 1] = '\0';
		if (auparse_new_buffer(au, buf, (size_t)len + 1) != 0 ||
		    auparse_next_event(au) <= 0 || auparse_first_record(au) <= 0) {
			why = "unparsable audit record";
			goto warn;
		}
		rc = parse_record(au, &r, &why);
		if (rc < 0)
			goto warn;
		if (rc > 0) {
			if (uc_filter_match(f, &r))
				records_push(out, &r);
			else
				uc_record_clear(&r);
		}
		continue;
warn:
		if (++nwarn <= MAX_WARNINGS && !(flags & UC_READ_QUIET))
			uc_warn("%s:%lu: %s, skipped", path, lineno, why);
	}
	if (ferror(fp)) {
		uc_err("cannot read %s: %s", path, strerror(errno));
		ret = -1;
	}
	if (nwarn > MAX_WARNINGS && !(flags & UC_READ_QUIET))
		uc_warn("%s: %lu more bad lines skipped", path,
			nwarn - MAX_WARNINGS);
	free(line);
	free(buf);
	auparse_destroy(au);
	if (fp != stdin)
		fclose(fp);
	return ret;
}

/* ---- columns ----------------------------------------------------------- */

enum {
	COL_TIME, COL_EVENT, COL_DIRECTION, COL_REGION, COL_CACHE, COL_OFFSET,
	COL_LENGTH, COL_PID, COL_UID, COL_AUID, COL_GID, COL_SES, COL_COMM,
	COL_EXE, COL_SUBJ, COL_ACTION
};

struct colinfo {
	const char *name;
	double whint;
	int flags;
	int json_type;
	int dflt;
	const char *help;
};

static const struct colinfo columns[] = {
	[COL_TIME]	= { "TIME", 19, 0, SCOLS_JSON_STRING, 1, "when it happened (local time)" },
	[COL_EVENT]	= { "EVENT", 20, 0, SCOLS_JSON_STRING, 0, "audit event id (for ausearch -a)" },
	[COL_DIRECTION]	= { "DIRECTION", 9, 0, SCOLS_JSON_STRING, 1, "exposure (to user) or overwrite (from user)" },
	[COL_REGION]	= { "REGION", 6, 0, SCOLS_JSON_STRING, 1, "kind of kernel memory involved" },
	[COL_CACHE]	= { "CACHE", 12, 0, SCOLS_JSON_STRING, 1, "slab cache name, or ?" },
	[COL_OFFSET]	= { "OFFSET", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, 1, "offset of the copy in the object" },
	[COL_LENGTH]	= { "LENGTH", 6, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, 1, "length of the copy" },
	[COL_PID]	= { "PID", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, 1, "process id" },
	[COL_UID]	= { "UID", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, 1, "user id" },
	[COL_AUID]	= { "AUID", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, 1, "login (audit) user id" },
	[COL_GID]	= { "GID", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, 0, "group id" },
	[COL_SES]	= { "SES", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, 0, "audit session id" },
	[COL_COMM]	= { "COMM", 10, 0, SCOLS_JSON_STRING, 1, "command name" },
	[COL_EXE]	= { "EXE", 0.3, SCOLS_FL_TRUNC, SCOLS_JSON_STRING, 1, "executable" },
	[COL_SUBJ]	= { "SUBJ", 0.2, SCOLS_FL_TRUNC, SCOLS_JSON_STRING, 0, "LSM security context, if any" },
	[COL_ACTION]	= { "ACTION", 7, 0, SCOLS_JSON_STRING, 1, "blocked (enforce) or logged (log)" },
};
#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

void uc_columns_default(struct uc_output *o)
{
	size_t i;

	o->ncols = 0;
	for (i = 0; i < NCOLUMNS; i++)
		if (columns[i].dflt)
			o->cols[o->ncols++] = (int)i;
}

void uc_columns_all(struct uc_output *o)
{
	size_t i;

	o->ncols = 0;
	for (i = 0; i < NCOLUMNS; i++)
		o->cols[o->ncols++] = (int)i;
}

/* "LIST" replaces the columns, "+LIST" adds to the default ones. */
int uc_columns_parse(struct uc_output *o, const char *list)
{
	const char *p = list;

	if (*p == '+')
		p++;
	else
		o->ncols = 0;
	while (*p) {
		size_t len = strcspn(p, ","), i;

		for (i = 0; i < NCOLUMNS; i++)
			if (strlen(columns[i].name) == len &&
			    strncasecmp(columns[i].name, p, len) == 0)
				break;
		if (i == NCOLUMNS || len == 0) {
			uc_err("unknown column: %.*s", (int)len, p);
			return -1;
		}
		if (o->ncols == sizeof(o->cols) / sizeof(o->cols[0])) {
			uc_err("too many columns");
			return -1;
		}
		o->cols[o->ncols++] = (int)i;
		p += len;
		if (*p == ',')
			p++;
	}
	if (o->ncols == 0) {
		uc_err("no columns");
		return -1;
	}
	return 0;
}

void uc_columns_help(FILE *out)
{
	size_t i;

	for (i = 0; i < NCOLUMNS; i++)
		fprintf(out, " %10s  %s\n", columns[i].name, columns[i].help);
}

static void fmt_time(char *buf, size_t size, time_t t)
{
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, size, "@%lld", (long long)t);
}

static const char *fmt_num(char *buf, size_t size, unsigned long v)
{
	if (v == UC_UNSET)
		return NULL;
	snprintf(buf, size, "%lu", v);
	return buf;
}

/* The text of one cell, NULL if unknown. */
static const char *cell(const struct uc_record *r, int col, char *buf,
			size_t size)
{
	switch (col) {
	case COL_TIME:
		fmt_time(buf, size, r->sec);
		return buf;
	case COL_EVENT:
		snprintf(buf, size, "%lld.%03u:%lu", (long long)r->sec, r->msec,
			 r->serial);
		return buf;
	case COL_DIRECTION:	return r->op;
	case COL_REGION:	return r->region;
	case COL_CACHE:		return r->cache;
	case COL_OFFSET:	return fmt_num(buf, size, r->offset);
	case COL_LENGTH:	return fmt_num(buf, size, r->len);
	case COL_PID:		return fmt_num(buf, size, r->pid);
	case COL_UID:		return fmt_num(buf, size, r->uid);
	case COL_AUID:		return fmt_num(buf, size, r->auid);
	case COL_GID:		return fmt_num(buf, size, r->gid);
	case COL_SES:		return fmt_num(buf, size, r->ses);
	case COL_COMM:		return r->comm;
	case COL_EXE:		return r->exe;
	case COL_SUBJ:		return r->subj;
	case COL_ACTION:	return r->res == 0 ? "blocked" : "logged";
	}
	return NULL;
}

/* Mode change table: fixed columns. */
enum { MC_TIME, MC_OLD, MC_NEW, MC_OLD_LOCK, MC_NEW_LOCK, MC_AUID, MC_SES,
       MC_RESULT };
static const struct colinfo mc_columns[] = {
	[MC_TIME]	= { "TIME", 19, 0, SCOLS_JSON_STRING, 1, NULL },
	[MC_OLD]	= { "OLD", 7, 0, SCOLS_JSON_STRING, 1, NULL },
	[MC_NEW]	= { "NEW", 7, 0, SCOLS_JSON_STRING, 1, NULL },
	[MC_OLD_LOCK]	= { "OLD-LOCK", 1, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, 1, NULL },
	[MC_NEW_LOCK]	= { "NEW-LOCK", 1, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, 1, NULL },
	[MC_AUID]	= { "AUID", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, 1, NULL },
	[MC_SES]	= { "SES", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, 1, NULL },
	[MC_RESULT]	= { "RESULT", 8, 0, SCOLS_JSON_STRING, 1, NULL },
};
#define NMC (sizeof(mc_columns) / sizeof(mc_columns[0]))

static const char *mc_cell(const struct uc_record *r, int col, char *buf,
			   size_t size)
{
	switch (col) {
	case MC_TIME:
		fmt_time(buf, size, r->sec);
		return buf;
	case MC_OLD:		return r->old_mode;
	case MC_NEW:		return r->new_mode;
	case MC_OLD_LOCK:
		return r->old_lock < 0 ? NULL : r->old_lock ? "1" : "0";
	case MC_NEW_LOCK:
		return r->new_lock < 0 ? NULL : r->new_lock ? "1" : "0";
	case MC_AUID:		return fmt_num(buf, size, r->auid);
	case MC_SES:		return fmt_num(buf, size, r->ses);
	case MC_RESULT:		return r->res ? "accepted" : "refused";
	}
	return NULL;
}

static struct libscols_table *new_table(const struct uc_output *o,
					const char *name,
					const struct colinfo *ci,
					const int *ids, size_t n)
{
	struct libscols_table *tb = scols_new_table();
	size_t i;

	if (!tb) {
		uc_err("out of memory");
		exit(UC_EXIT_FAILURE);
	}
	scols_table_set_name(tb, name);
	scols_table_enable_json(tb, o->json);
	scols_table_enable_raw(tb, o->raw);
	scols_table_enable_noheadings(tb, o->noheadings);
	for (i = 0; i < n; i++) {
		const struct colinfo *c = &ci[ids ? ids[i] : (int)i];
		struct libscols_column *cl;

		cl = scols_table_new_column(tb, c->name, c->whint, c->flags);
		if (!cl) {
			uc_err("out of memory");
			exit(UC_EXIT_FAILURE);
		}
		scols_column_set_json_type(cl, c->json_type);
	}
	return tb;
}

static void add_line(struct libscols_table *tb, const struct uc_record *r,
		     const int *ids, size_t n, int mode_change)
{
	struct libscols_line *ln = scols_table_new_line(tb, NULL);
	char buf[64];
	size_t i;

	if (!ln) {
		uc_err("out of memory");
		exit(UC_EXIT_FAILURE);
	}
	for (i = 0; i < n; i++) {
		const char *s = mode_change ? mc_cell(r, (int)i, buf, sizeof(buf))
					    : cell(r, ids[i], buf, sizeof(buf));

		if (s && scols_line_set_data(ln, i, s) != 0) {
			uc_err("out of memory");
			exit(UC_EXIT_FAILURE);
		}
	}
}

/*
 * One JSON object with both tables: libsmartcols prints each table as an
 * object of its own, so take out the inner parts and join them.
 */
static void print_json_pair(struct libscols_table *a, struct libscols_table *b)
{
	struct libscols_table *tb[2] = { a, b };
	int i;

	fputs("{\n", stdout);
	for (i = 0; i < 2; i++) {
		char *s = NULL, *start, *end;

		if (scols_print_table_to_string(tb[i], &s) != 0 || !s) {
			uc_err("cannot format the output");
			exit(UC_EXIT_FAILURE);
		}
		start = strchr(s, '\n');
		end = strrchr(s, '}');
		if (!start || !end || end < start) {
			free(s);
			uc_err("cannot format the output");
			exit(UC_EXIT_FAILURE);
		}
		/* drop the newline before the closing brace */
		while (end > start && (end[-1] == '\n' || end[-1] == ' '))
			end--;
		fwrite(start + 1, 1, (size_t)(end - start - 1), stdout);
		fputs(i == 0 ? ",\n" : "\n", stdout);
		free(s);
	}
	fputs("}\n", stdout);
}

int uc_print_report(const struct uc_output *o, const struct uc_records *rs,
		    const struct uc_filter *f)
{
	struct libscols_table *inc = NULL, *mc = NULL;
	size_t i, nmc = 0;

	if (f->incidents)
		inc = new_table(o, "incidents", columns, o->cols, o->ncols);
	if (f->changes)
		mc = new_table(o, "mode-changes", mc_columns, NULL, NMC);

	for (i = 0; i < rs->n; i++) {
		const struct uc_record *r = &rs->v[i];

		if (r->kind == UC_INCIDENT && inc)
			add_line(inc, r, o->cols, o->ncols, 0);
		else if (r->kind == UC_MODE_CHANGE && mc) {
			add_line(mc, r, NULL, NMC, 1);
			nmc++;
		}
	}

	if (o->json && inc && mc) {
		print_json_pair(inc, mc);
	} else {
		if (inc)
			scols_print_table(inc);
		/* In text, a mode change table only if there is something in it. */
		if (mc && (nmc || o->json || !inc)) {
			if (inc)
				fputc('\n', stdout);
			scols_print_table(mc);
		}
	}
	scols_unref_table(inc);
	scols_unref_table(mc);
	return fflush(stdout) == 0 ? 0 : -1;
}

void uc_json_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', out);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '\t')
			fputs("\\t", out);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

/* One incident as a JSON object on one line, with the chosen columns. */
void uc_print_json_row(FILE *out, const struct uc_output *o,
		       const struct uc_record *r)
{
	char buf[64], name[32];
	size_t i, j;

	fputc('{', out);
	for (i = 0; i < o->ncols; i++) {
		const struct colinfo *c = &columns[o->cols[i]];
		const char *s = cell(r, o->cols[i], buf, sizeof(buf));

		for (j = 0; c->name[j] && j + 1 < sizeof(name); j++)
			name[j] = (char)tolower((unsigned char)c->name[j]);
		name[j] = '\0';
		fprintf(out, "%s\"%s\": ", i ? ", " : "", name);
		if (!s)
			fputs("null", out);
		else if (c->json_type == SCOLS_JSON_NUMBER)
			fputs(s, out);
		else
			uc_json_string(out, s);
	}
	fputs("}", out);
}

/* ---- live monitoring --------------------------------------------------- */

struct monitor {
	const struct uc_monitor_opts *mo;
	struct libscols_table *tb;
	unsigned long seen;
	int printed_header;
};

static void monitor_event(auparse_state_t *au, auparse_cb_event_t type,
			  void *data)
{
	struct monitor *m = data;
	const struct uc_monitor_opts *mo = m->mo;

	if (type != AUPARSE_CB_EVENT_READY || auparse_first_record(au) <= 0)
		return;
	do {
		const char *why = NULL;
		struct uc_record r;

		if (mo->count && m->seen >= mo->count)
			return;
		if (parse_record(au, &r, &why) < 0) {
			uc_warn("%s, skipped", why);
			continue;
		}
		if (r.kind != UC_INCIDENT || !uc_filter_match(&mo->filter, &r)) {
			uc_record_clear(&r);
			continue;
		}
		if (mo->out.json) {
			uc_print_json_row(stdout, &mo->out, &r);
			fputc('\n', stdout);
		} else {
			/* One table per row, with the header only once. */
			scols_table_enable_noheadings(m->tb,
				mo->out.noheadings || m->printed_header);
			scols_table_remove_lines(m->tb);
			add_line(m->tb, &r, mo->out.cols, mo->out.ncols, 0);
			scols_print_table(m->tb);
			m->printed_header = 1;
		}
		fflush(stdout);
		m->seen++;
		uc_record_clear(&r);
	} while (auparse_next_record(au) > 0);
}

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* Feed one netlink audit message to auparse as the line auditd would log. */
static void feed_message(auparse_state_t *au, int type, const char *data,
			 size_t len)
{
	char tname[32], line[MAX_AUDIT_MESSAGE_LENGTH + 128];
	const char *name, *end;
	int n;

	if (type != UC_AUDIT_ANOM_USERCOPY && type != UC_AUDIT_CONFIG_CHANGE)
		return;
	while (len > 0 && (data[len - 1] == '\0' || data[len - 1] == '\n'))
		len--;
	if (len > MAX_AUDIT_MESSAGE_LENGTH)
		len = MAX_AUDIT_MESSAGE_LENGTH;
	name = audit_msg_type_to_name(type);
	if (!name) {
		snprintf(tname, sizeof(tname), "UNKNOWN[%d]", type);
		name = tname;
	}
	n = snprintf(line, sizeof(line), "type=%s msg=%.*s\n", name, (int)len, data);
	if (n <= 0 || (size_t)n >= sizeof(line))
		return;
	auparse_feed(au, line, (size_t)n);

	/*
	 * A usercopy record is complete in itself: close its event right
	 * away with an end-of-event record for the same stamp, instead of
	 * waiting for auparse to age it out.
	 */
	end = memchr(data, ')', len);
	if (end && strncmp(data, "audit(", 6) == 0) {
		n = snprintf(line, sizeof(line), "type=EOE msg=%.*s): \n",
			     (int)(end - data), data);
		if (n > 0 && (size_t)n < sizeof(line))
			auparse_feed(au, line, (size_t)n);
	}
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int uc_monitor(const struct uc_monitor_opts *mo)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK };
	struct monitor m = { .mo = mo };
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block, orig;
	auparse_state_t *au;
	long long deadline = 0;
	static char buf[MAX_AUDIT_MESSAGE_LENGTH + NLMSG_HDRLEN + 64];
	int fd, ret = UC_EXIT_OK;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (fd < 0) {
		uc_err("cannot open an audit netlink socket: %s%s", strerror(errno),
		       errno == EPROTONOSUPPORT ? " (kernel without audit support)" : "");
		return UC_EXIT_FAILURE;
	}
	addr.nl_groups = 1U << (AUDIT_NLGRP_READLOG - 1);
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
		int e = errno;

		if (e == EPERM || e == EACCES)
			uc_err("cannot read audit records live: CAP_AUDIT_READ is needed (run as root)");
		else
			uc_err("cannot join the audit log multicast group: %s", strerror(e));
		close(fd);
		return UC_EXIT_FAILURE;
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	au = new_parser(AUSOURCE_FEED, mo->out.json);
	auparse_add_callback(au, monitor_event, &m, NULL);
	if (!mo->out.json)
		m.tb = new_table(&mo->out, "incidents", columns, mo->out.cols,
				 mo->out.ncols);

	/* Signals are only let in while waiting, so none is missed. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &orig);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (mo->timeout > 0)
		deadline = now_ms() + (long long)(mo->timeout * 1000);

	while (!stop_signal && !(mo->count && m.seen >= mo->count)) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct timespec ts = { .tv_sec = 1 };
		struct nlmsghdr *nlh;
		ssize_t n;
		int rc;

		if (deadline) {
			long long left = deadline - now_ms();

			if (left <= 0)
				break;
			if (left < 1000) {
				ts.tv_sec = 0;
				ts.tv_nsec = left * 1000000;
			}
		}
		rc = ppoll(&pfd, 1, &ts, &orig);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0) {
			uc_err("poll: %s", strerror(errno));
			ret = UC_EXIT_FAILURE;
			break;
		}
		if (rc == 0) {
			auparse_feed_age_events(au);
			continue;
		}
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			if (errno == ENOBUFS) {
				uc_warn("audit records were lost (receive buffer overrun)");
				continue;
			}
			if (errno == EPERM || errno == EACCES)
				uc_err("cannot read audit records live: CAP_AUDIT_READ is needed (run as root)");
			else
				uc_err("cannot receive audit records: %s", strerror(errno));
			ret = UC_EXIT_FAILURE;
			break;
		}
		/*
		 * The audit multicast group sends one record per datagram,
		 * and the kernel sets nlmsg_len to the length of the payload
		 * alone (an old quirk auditd relies on too), so the NLMSG_NEXT
		 * walk does not apply: take the one message and trust no
		 * length beyond what was received.
		 */
		if ((size_t)n < NLMSG_HDRLEN)
			continue;
		nlh = (struct nlmsghdr *)buf;
		if (nlh->nlmsg_type == NLMSG_DONE ||
		    nlh->nlmsg_type == NLMSG_ERROR)
			continue;
		feed_message(au, nlh->nlmsg_type, NLMSG_DATA(nlh),
			     nlh->nlmsg_len < (size_t)n - NLMSG_HDRLEN ?
			     nlh->nlmsg_len : (size_t)n - NLMSG_HDRLEN);
	}
	auparse_flush_feed(au);
	sigprocmask(SIG_SETMASK, &orig, NULL);
	auparse_destroy(au);
	scols_unref_table(m.tb);
	close(fd);
	/* Asked for N incidents and the time ran out first. */
	if (ret == UC_EXIT_OK && mo->count && m.seen < mo->count && !stop_signal)
		ret = UC_EXIT_FAILURE;
	return ret;
}
