/*
 * usercopyctl: output -- the columns, and every table and JSON object
 * the tool prints, all through libsmartcols.  Tables are streamed in
 * chunks (flat memory) unless they must be held: JSON, --sort,
 * --summary.  Errors are returned as -errno.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <libsmartcols.h>

#include "usercopyctl.h"

/* Lines per chunk of a streamed table. */
#define CHUNK_LINES	2048

enum {
	COL_TIME, COL_EPOCH, COL_EVENT, COL_DIRECTION, COL_REGION, COL_CACHE,
	COL_OFFSET, COL_LENGTH, COL_PID, COL_UID, COL_AUID, COL_GID, COL_SES,
	COL_COMM, COL_EXE, COL_SUBJ, COL_ACTION, COL_SUPPRESSED, COL_SITE,
	COL_OLD, COL_NEW, COL_OLD_LOCK, COL_NEW_LOCK, COL_RESULT,
	/* not for -o: */
	COL_TYPE, COL_COUNT, COL_FIRST, COL_LAST,
	NCOLUMNS
};

#define INC	UC_INCIDENT
#define MC	UC_MODE_CHANGE
#define AL	UC_ALLOW_CHANGE
#define ALL	UC_ALL_KINDS
#define NUM	SCOLS_JSON_NUMBER
#define STRG	SCOLS_JSON_STRING
#define RIGHT	SCOLS_FL_RIGHT

struct colinfo {
	const char *name;
	double whint;
	int flags;
	int json_type;
	int kinds;	/* which records have it; 0: not for -o */
	int dflt;	/* for which kinds it is shown by default */
	const char *help;
};

static const struct colinfo columns[NCOLUMNS] = {
	[COL_TIME]	= { "TIME", 19, 0, STRG, ALL, ALL, "when it happened (local time)" },
	[COL_EPOCH]	= { "EPOCH", 14, RIGHT, NUM, ALL, 0, "when it happened, seconds since the epoch" },
	[COL_EVENT]	= { "EVENT", 20, 0, STRG, ALL, 0, "audit event id (for ausearch -a)" },
	[COL_DIRECTION]	= { "DIRECTION", 9, 0, STRG, INC, INC, "exposure (to user) or overwrite (from user)" },
	[COL_REGION]	= { "REGION", 6, 0, STRG, INC, INC, "kind of kernel memory involved" },
	[COL_CACHE]	= { "CACHE", 12, 0, STRG, INC | AL, INC | AL,
			    "slab cache name, or ?; allow change: the cache whitelisted" },
	[COL_OFFSET]	= { "OFFSET", 6, RIGHT, NUM, INC, INC, "offset of the copy in the object" },
	[COL_LENGTH]	= { "LENGTH", 6, RIGHT, NUM, INC, INC, "length of the copy" },
	[COL_PID]	= { "PID", 5, RIGHT, NUM, INC, INC, "process id" },
	[COL_UID]	= { "UID", 5, RIGHT, NUM, INC, INC, "user id" },
	[COL_AUID]	= { "AUID", 5, RIGHT, NUM, ALL, ALL, "login (audit) user id" },
	[COL_GID]	= { "GID", 5, RIGHT, NUM, INC, 0, "group id" },
	[COL_SES]	= { "SES", 5, RIGHT, NUM, ALL, MC | AL, "audit session id" },
	[COL_COMM]	= { "COMM", 10, 0, STRG, INC, INC, "command name" },
	[COL_EXE]	= { "EXE", 0.3, SCOLS_FL_TRUNC, STRG, INC, INC, "executable" },
	[COL_SUBJ]	= { "SUBJ", 0.2, SCOLS_FL_TRUNC, STRG, INC, 0, "LSM security context, if any" },
	[COL_ACTION]	= { "ACTION", 7, 0, STRG, INC, INC, "blocked (enforce) or logged (log)" },
	[COL_SUPPRESSED] = { "SUPPRESSED", 5, RIGHT, NUM, INC, 0,
			     "copies from the same call site left out of the audit log before this one" },
	[COL_SITE]	= { "SITE", 20, 0, STRG, INC, INC, "the kernel code that made the copy (function+offset [module])" },
	[COL_OLD]	= { "OLD", 7, 0, STRG, MC, MC, "mode change: the mode before" },
	[COL_NEW]	= { "NEW", 7, 0, STRG, MC, MC, "mode change: the mode asked for" },
	[COL_OLD_LOCK]	= { "OLD-LOCK", 1, RIGHT, NUM, MC, MC, "mode change: locked before (0 or 1)" },
	[COL_NEW_LOCK]	= { "NEW-LOCK", 1, RIGHT, NUM, MC, MC, "mode change: lock asked for (0 or 1)" },
	[COL_RESULT]	= { "RESULT", 8, 0, STRG, MC | AL, MC | AL, "mode or allow change: accepted or refused" },
	[COL_TYPE]	= { "TYPE", 12, 0, STRG, 0, 0, NULL },
	[COL_COUNT]	= { "COUNT", 5, RIGHT, NUM, 0, 0, NULL },
	[COL_FIRST]	= { "FIRST", 19, 0, STRG, 0, 0, NULL },
	[COL_LAST]	= { "LAST", 19, 0, STRG, 0, 0, NULL },
};

/* ---- column lists ------------------------------------------------------ */

static void defaults_of(int kind, int *cols, size_t *n)
{
	/* Mode changes: what changed first, who did it after. */
	static const int mc_order[] = {
		COL_TIME, COL_OLD, COL_NEW, COL_OLD_LOCK, COL_NEW_LOCK,
		COL_AUID, COL_SES, COL_RESULT,
	};
	size_t i;

	*n = 0;
	if (kind == MC) {
		for (i = 0; i < sizeof(mc_order) / sizeof(mc_order[0]); i++)
			cols[(*n)++] = mc_order[i];
		return;
	}
	for (i = 0; i < NCOLUMNS; i++)
		if (columns[i].dflt & kind)
			cols[(*n)++] = (int)i;
}

void uc_columns_default(struct uc_output *o)
{
	defaults_of(INC, o->inc, &o->ninc);
	defaults_of(MC, o->mc, &o->nmc);
	defaults_of(AL, o->al, &o->nal);
}

void uc_columns_all(struct uc_output *o)
{
	size_t i;

	o->ninc = o->nmc = o->nal = 0;
	for (i = 0; i < NCOLUMNS; i++) {
		if (columns[i].kinds & INC)
			o->inc[o->ninc++] = (int)i;
		if (columns[i].kinds & MC)
			o->mc[o->nmc++] = (int)i;
		if (columns[i].kinds & AL)
			o->al[o->nal++] = (int)i;
	}
}

int uc_column_find(const char *name)
{
	size_t i;

	for (i = 0; i < NCOLUMNS; i++)
		if (columns[i].kinds && strcasecmp(columns[i].name, name) == 0)
			return (int)i;
	return -1;
}

static void add_col(int *cols, size_t *n, int id)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (cols[i] == id)
			return;
	if (*n < UC_MAX_COLS)
		cols[(*n)++] = id;
}

int uc_columns_parse(struct uc_output *o, const char *list, char *bad,
		     size_t badsize)
{
	const char *p = list;

	if (*p == '+')
		p++;
	else
		o->ninc = o->nmc = o->nal = 0;
	do {
		size_t len = strcspn(p, ",");
		char name[32];
		int id = -1;

		if (len > 0 && len < sizeof(name)) {
			memcpy(name, p, len);
			name[len] = '\0';
			id = uc_column_find(name);
		}
		if (id < 0) {
			snprintf(bad, badsize, "%.*s", (int)(len < 64 ? len : 64), p);
			return -1;
		}
		if (columns[id].kinds & INC)
			add_col(o->inc, &o->ninc, id);
		if (columns[id].kinds & MC)
			add_col(o->mc, &o->nmc, id);
		if (columns[id].kinds & AL)
			add_col(o->al, &o->nal, id);
		p += len;
	} while (*p++ == ',');
	/* A list that names no column of one kind keeps its defaults. */
	if (o->ninc == 0)
		defaults_of(INC, o->inc, &o->ninc);
	if (o->nmc == 0)
		defaults_of(MC, o->mc, &o->nmc);
	if (o->nal == 0)
		defaults_of(AL, o->al, &o->nal);
	return 0;
}

void uc_columns_help(FILE *out)
{
	size_t i;

	for (i = 0; i < NCOLUMNS; i++)
		if (columns[i].kinds)
			fprintf(out, " %10s  %s\n", columns[i].name, columns[i].help);
}

/* ---- text -------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at @s, or 0. */
static size_t utf8_seq(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n, i;
	unsigned long cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

char *uc_utf8_sanitize(const char *s, int *err)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t bad = 0, n, len = 0;
	char *d, *q;

	*err = 0;
	for (p = (const unsigned char *)s; *p; p += n, len += n) {
		n = utf8_seq(p);
		if (!n) {
			bad++;
			n = 1;
		}
	}
	if (!bad)
		return NULL;
	d = malloc(len + bad * 3 + 1);
	if (!d) {
		*err = -ENOMEM;
		return NULL;
	}
	for (p = (const unsigned char *)s, q = d; *p; p += n) {
		n = utf8_seq(p);
		if (n) {
			memcpy(q, p, n);
			q += n;
		} else {
			q += sprintf(q, "\\x%02x", *p);
			n = 1;
		}
	}
	*q = '\0';
	return d;
}

const char *uc_format_time(char *buf, size_t size, long long sec,
			   unsigned msec, enum uc_time_format tf)
{
	time_t t = (time_t)sec;
	struct tm tm;
	char zone[8];

	if (tf == UC_TIME_RAW) {
		snprintf(buf, size, "%lld.%03u", sec, msec);
		return buf;
	}
	if (!localtime_r(&t, &tm)) {
		snprintf(buf, size, "@%lld", sec);
		return buf;
	}
	if (tf == UC_TIME_ISO) {
		char base[32];

		/* ISO 8601: 2024-12-03T23:53:20.123+00:00 */
		strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
		strftime(zone, sizeof(zone), "%z", &tm);
		snprintf(buf, size, "%s.%03u%.3s:%.2s", base, msec, zone,
			 zone[0] ? zone + 3 : "00");
		return buf;
	}
	if (!strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, size, "@%lld", sec);
	return buf;
}

/* The text of one cell, NULL if unknown or not applicable. */
static const char *cell(const struct uc_record *r, int col,
			enum uc_time_format tf, char *buf, size_t size)
{
	if (col < COL_TYPE && !(columns[col].kinds & (int)r->kind))
		return NULL;
#define NUMBER(flag, v) \
	((r->has & (flag)) ? (snprintf(buf, size, "%llu", \
				       (unsigned long long)(v)), buf) : NULL)
	switch (col) {
	case COL_TIME:
		return uc_format_time(buf, size, r->sec, r->msec, tf);
	case COL_EPOCH:
		return uc_format_time(buf, size, r->sec, r->msec, UC_TIME_RAW);
	case COL_EVENT:
		snprintf(buf, size, "%lld.%03u:%llu", r->sec, r->msec, r->serial);
		return buf;
	case COL_DIRECTION:	return r->op;
	case COL_REGION:	return r->region;
	case COL_CACHE:		return r->cache;
	case COL_OFFSET:	return NUMBER(UC_HAS_OFFSET, r->offset);
	case COL_LENGTH:	return NUMBER(UC_HAS_LEN, r->len);
	case COL_PID:		return NUMBER(UC_HAS_PID, r->pid);
	case COL_UID:		return NUMBER(UC_HAS_UID, r->uid);
	case COL_AUID:		return NUMBER(UC_HAS_AUID, r->auid);
	case COL_GID:		return NUMBER(UC_HAS_GID, r->gid);
	case COL_SES:		return NUMBER(UC_HAS_SES, r->ses);
	case COL_COMM:		return r->comm;
	case COL_EXE:		return r->exe;
	case COL_SUBJ:		return r->subj;
	case COL_ACTION:
		return !(r->has & UC_HAS_RES) ? NULL : r->res ? "logged" : "blocked";
	case COL_SUPPRESSED:	return NUMBER(UC_HAS_SUPPRESSED, r->suppressed);
	case COL_SITE:		return r->site;
	case COL_OLD:		return r->old_mode;
	case COL_NEW:		return r->new_mode;
	case COL_OLD_LOCK:	return NUMBER(UC_HAS_OLD_LOCK, r->old_lock);
	case COL_NEW_LOCK:	return NUMBER(UC_HAS_NEW_LOCK, r->new_lock);
	case COL_RESULT:
		return !(r->has & UC_HAS_RES) ? NULL : r->res ? "accepted" : "refused";
	case COL_TYPE:
		return r->kind == UC_INCIDENT ? "incident" :
		       r->kind == UC_MODE_CHANGE ? "mode-change" : "allow-change";
	}
#undef NUMBER
	return NULL;
}

/* ---- tables ------------------------------------------------------------ */

static void table_setup(struct libscols_table *tb, const struct uc_output *o,
			FILE *out)
{
	scols_table_set_stream(tb, out);
	scols_table_enable_json(tb, o->json);
	scols_table_enable_raw(tb, o->raw);
	if (o->pairs) {
		scols_table_enable_export(tb, 1);
		scols_table_enable_shellvar(tb, 1);
	}
	scols_table_enable_noheadings(tb, o->noheadings);
}

static struct libscols_table *new_table(const struct uc_output *o, FILE *out,
					const char *name, const int *ids, size_t n)
{
	struct libscols_table *tb = scols_new_table();
	size_t i;

	if (!tb)
		return NULL;
	if (scols_table_set_name(tb, name) != 0)
		goto fail;
	table_setup(tb, o, out);
	for (i = 0; i < n; i++) {
		const struct colinfo *c = &columns[ids[i]];
		struct libscols_column *cl;

		cl = scols_table_new_column(tb, c->name, c->whint, c->flags);
		if (!cl || scols_column_set_json_type(cl, c->json_type) != 0)
			goto fail;
	}
	return tb;
fail:
	scols_unref_table(tb);
	return NULL;
}

/* Set a cell; in JSON, only valid UTF-8 goes in. */
static int set_cell(struct libscols_line *ln, size_t i, const char *s, int json)
{
	char *safe;
	int err, rc;

	if (!s)
		return 0;
	if (!json)
		return scols_line_set_data(ln, i, s) ? -ENOMEM : 0;
	safe = uc_utf8_sanitize(s, &err);
	if (err)
		return err;
	rc = scols_line_set_data(ln, i, safe ? safe : s);
	free(safe);
	return rc ? -ENOMEM : 0;
}

static int add_line(struct libscols_table *tb, const struct uc_record *r,
		    const int *ids, size_t n, enum uc_time_format tf, int json)
{
	struct libscols_line *ln = scols_table_new_line(tb, NULL);
	char buf[64];
	size_t i;
	int rc;

	if (!ln)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		rc = set_cell(ln, i, cell(r, ids[i], tf, buf, sizeof(buf)), json);
		if (rc)
			return rc;
	}
	return 0;
}

static int print_table(struct libscols_table *tb)
{
	return scols_print_table(tb) ? -EIO : 0;
}

/* ---- reports ----------------------------------------------------------- */

struct group {
	char **keys;
	unsigned long long count, suppressed;
	long long first_ms, last_ms;
	size_t next;			/* hash chain, + 1 */
};

struct uc_report {
	struct uc_output o;
	int kinds, summary;
	FILE *out;
	enum uc_time_format tf;
	struct libscols_table *inc, *mc, *al, *all;
	int all_ids[3 * UC_MAX_COLS + 1];
	size_t nall;
	int inc_printed;	/* chunks of the incident table printed */
	unsigned long long count;
	/* --sort */
	struct uc_record *held;
	size_t nheld, capheld;
	/* --summary */
	int keys[UC_MAX_COLS];
	size_t nkeys;
	struct group *groups;
	size_t ngroups, capgroups;
	size_t *hash;		/* index + 1 of the first group of a bucket */
	size_t nbuckets;
};

struct uc_report *uc_report_new(const struct uc_output *o, int kinds,
				int summary, FILE *out)
{
	struct uc_report *rp = calloc(1, sizeof(*rp));
	size_t i, j, k;

	if (!rp)
		return NULL;
	rp->o = *o;
	rp->kinds = kinds;
	rp->summary = summary;
	rp->out = out;
	rp->tf = o->time_format != UC_TIME_DEFAULT ? o->time_format :
		 o->json ? UC_TIME_ISO : UC_TIME_SHORT;

	if (summary) {
		for (i = 0; i < o->ninc; i++)
			if (o->inc[i] != COL_TIME && o->inc[i] != COL_EPOCH &&
			    o->inc[i] != COL_EVENT)
				rp->keys[rp->nkeys++] = o->inc[i];
		rp->nbuckets = 1024;
		rp->hash = calloc(rp->nbuckets, sizeof(*rp->hash));
		if (!rp->hash)
			goto fail;
		return rp;
	}
	if (o->json && (kinds & (kinds - 1))) {
		/* One table of all kinds, each row with its type. */
		rp->all_ids[rp->nall++] = COL_TYPE;
		for (i = 0; i < o->ninc; i++)
			rp->all_ids[rp->nall++] = o->inc[i];
		for (k = 0; k < 2; k++) {
			const int *ids = k ? o->al : o->mc;
			size_t n = k ? o->nal : o->nmc;

			for (i = 0; i < n; i++) {
				for (j = 0; j < rp->nall; j++)
					if (rp->all_ids[j] == ids[i])
						break;
				if (j == rp->nall)
					rp->all_ids[rp->nall++] = ids[i];
			}
		}
		rp->all = new_table(o, out, "records", rp->all_ids, rp->nall);
		if (!rp->all)
			goto fail;
		return rp;
	}
	if (kinds & INC) {
		rp->inc = new_table(o, out, "incidents", o->inc, o->ninc);
		if (!rp->inc)
			goto fail;
	}
	if (kinds & MC) {
		rp->mc = new_table(o, out, "mode-changes", o->mc, o->nmc);
		if (!rp->mc)
			goto fail;
	}
	if (kinds & AL) {
		rp->al = new_table(o, out, "allow-changes", o->al, o->nal);
		if (!rp->al)
			goto fail;
	}
	return rp;
fail:
	uc_report_free(rp);
	return NULL;
}

/* Print the incident lines so far, keeping the widths for the next chunk. */
static int flush_incidents(struct uc_report *rp)
{
	struct libscols_column *cl;
	size_t i;
	int rc;

	if (scols_table_get_nlines(rp->inc) == 0)
		return 0;
	rc = print_table(rp->inc);
	if (rc)
		return rc;
	rp->inc_printed++;
	for (i = 0; i < rp->o.ninc; i++) {
		cl = scols_table_get_column(rp->inc, i);
		if (cl && (double)scols_column_get_width(cl) > scols_column_get_whint(cl))
			scols_column_set_whint(cl, (double)scols_column_get_width(cl));
	}
	scols_table_remove_lines(rp->inc);
	scols_table_enable_noheadings(rp->inc, 1);
	return 0;
}

static int emit(struct uc_report *rp, const struct uc_record *r)
{
	int rc;

	rp->count++;
	if (rp->all)
		return add_line(rp->all, r, rp->all_ids, rp->nall, rp->tf, 1);
	if (r->kind == UC_MODE_CHANGE)
		return rp->mc ? add_line(rp->mc, r, rp->o.mc, rp->o.nmc, rp->tf,
					 rp->o.json) : 0;
	if (r->kind == UC_ALLOW_CHANGE)
		return rp->al ? add_line(rp->al, r, rp->o.al, rp->o.nal, rp->tf,
					 rp->o.json) : 0;
	if (!rp->inc)
		return 0;
	rc = add_line(rp->inc, r, rp->o.inc, rp->o.ninc, rp->tf, rp->o.json);
	if (rc == 0 && !rp->o.json &&
	    scols_table_get_nlines(rp->inc) >= CHUNK_LINES)
		rc = flush_incidents(rp);
	return rc;
}

static size_t hash_str(size_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return (h ^ 0xff) * 16777619u;
}

static int summarize(struct uc_report *rp, const struct uc_record *r)
{
	char buf[UC_MAX_COLS][64];
	const char *k[UC_MAX_COLS];
	long long ms = r->sec * 1000 + r->msec;
	size_t i, h = 2166136261u, gi;
	struct group *g;

	if (r->kind != UC_INCIDENT)
		return 0;
	rp->count++;
	for (i = 0; i < rp->nkeys; i++) {
		k[i] = cell(r, rp->keys[i], rp->tf, buf[i], sizeof(buf[i]));
		if (!k[i])
			k[i] = "";
		h = hash_str(h, k[i]);
	}
	h %= rp->nbuckets;
	for (gi = rp->hash[h]; gi; gi = rp->groups[gi - 1].next) {
		g = &rp->groups[gi - 1];
		for (i = 0; i < rp->nkeys; i++)
			if (strcmp(g->keys[i], k[i]) != 0)
				break;
		if (i == rp->nkeys)
			goto found;
	}
	if (rp->ngroups == rp->capgroups) {
		size_t cap = rp->capgroups ? rp->capgroups * 2 : 16;
		struct group *v = realloc(rp->groups, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		rp->groups = v;
		rp->capgroups = cap;
	}
	g = &rp->groups[rp->ngroups];
	memset(g, 0, sizeof(*g));
	g->keys = calloc(rp->nkeys + 1, sizeof(char *));
	if (!g->keys)
		return -ENOMEM;
	for (i = 0; i < rp->nkeys; i++) {
		g->keys[i] = strdup(k[i]);
		if (!g->keys[i]) {
			while (i--)
				free(g->keys[i]);
			free(g->keys);
			return -ENOMEM;
		}
	}
	g->first_ms = g->last_ms = ms;
	g->next = rp->hash[h];
	rp->hash[h] = ++rp->ngroups;
found:
	g->count++;
	g->suppressed += r->suppressed;
	if (ms < g->first_ms)
		g->first_ms = ms;
	if (ms > g->last_ms)
		g->last_ms = ms;
	return 0;
}

int uc_report_add(struct uc_report *rp, const struct uc_record *r)
{
	if (rp->summary)
		return summarize(rp, r);
	if (rp->o.sort_col >= 0) {
		if (rp->nheld == rp->capheld) {
			size_t cap = rp->capheld ? rp->capheld * 2 : 64;
			struct uc_record *v = realloc(rp->held, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			rp->held = v;
			rp->capheld = cap;
		}
		if (uc_record_copy(&rp->held[rp->nheld], r) != 0)
			return -ENOMEM;
		rp->nheld++;
		return 0;
	}
	return emit(rp, r);
}

static int sort_col;

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_records(const void *pa, const void *pb)
{
	const struct uc_record *a = pa, *b = pb;
	char ba[64], bb[64];
	int c = 0;

	switch (sort_col) {
	case COL_TIME:
	case COL_EPOCH:
	case COL_EVENT:
		c = a->sec < b->sec ? -1 : a->sec > b->sec ? 1 :
		    a->msec < b->msec ? -1 : a->msec > b->msec ? 1 :
		    a->serial < b->serial ? -1 : a->serial > b->serial;
		break;
	default:
		if (columns[sort_col].json_type == SCOLS_JSON_NUMBER) {
			const char *sa = cell(a, sort_col, UC_TIME_RAW, ba, sizeof(ba));
			const char *sb = cell(b, sort_col, UC_TIME_RAW, bb, sizeof(bb));
			unsigned long long x = sa ? strtoull(sa, NULL, 10) : 0;
			unsigned long long y = sb ? strtoull(sb, NULL, 10) : 0;

			/* unknown values first */
			c = !sa != !sb ? (sa ? 1 : -1) : x < y ? -1 : x > y;
		} else {
			c = cmp_str(cell(a, sort_col, UC_TIME_RAW, ba, sizeof(ba)),
				    cell(b, sort_col, UC_TIME_RAW, bb, sizeof(bb)));
		}
	}
	if (c == 0)	/* stable: log order */
		c = a->seq < b->seq ? -1 : a->seq > b->seq;
	return c;
}

static int finish_summary(struct uc_report *rp)
{
	struct libscols_table *tb;
	int ids[UC_MAX_COLS + 4];
	size_t n = 0, i, j;
	int rc = 0;

	ids[n++] = COL_COUNT;
	for (i = 0; i < rp->nkeys; i++)
		ids[n++] = rp->keys[i];
	ids[n++] = COL_FIRST;
	ids[n++] = COL_LAST;
	ids[n++] = COL_SUPPRESSED;
	tb = new_table(&rp->o, rp->out, "summary", ids, n);
	if (!tb)
		return -ENOMEM;
	for (i = 0; i < rp->ngroups && rc == 0; i++) {
		struct group *g = &rp->groups[i];
		struct libscols_line *ln = scols_table_new_line(tb, NULL);
		char buf[64];

		if (!ln) {
			rc = -ENOMEM;
			break;
		}
		snprintf(buf, sizeof(buf), "%llu", g->count);
		rc = set_cell(ln, 0, buf, rp->o.json);
		for (j = 0; j < rp->nkeys && rc == 0; j++)
			rc = set_cell(ln, j + 1, g->keys[j], rp->o.json);
		if (rc == 0)
			rc = set_cell(ln, n - 3, uc_format_time(buf, sizeof(buf),
					g->first_ms / 1000, (unsigned)(g->first_ms % 1000),
					rp->tf), rp->o.json);
		if (rc == 0)
			rc = set_cell(ln, n - 2, uc_format_time(buf, sizeof(buf),
					g->last_ms / 1000, (unsigned)(g->last_ms % 1000),
					rp->tf), rp->o.json);
		if (rc == 0) {
			snprintf(buf, sizeof(buf), "%llu", g->suppressed);
			rc = set_cell(ln, n - 1, buf, rp->o.json);
		}
	}
	if (rc == 0 && (rp->ngroups || rp->o.json))
		rc = print_table(tb);
	scols_unref_table(tb);
	return rc;
}

int uc_report_finish(struct uc_report *rp)
{
	size_t i;
	int rc = 0, printed;

	if (rp->summary) {
		rc = finish_summary(rp);
		goto out;
	}
	if (rp->o.sort_col >= 0) {
		sort_col = rp->o.sort_col;
		qsort(rp->held, rp->nheld, sizeof(*rp->held), cmp_records);
		for (i = 0; i < rp->nheld && rc == 0; i++)
			rc = emit(rp, &rp->held[i]);
		if (rc)
			return rc;
	}
	if (rp->o.json) {
		/* JSON: always the table, also when it is empty. */
		rc = print_table(rp->all ? rp->all : rp->inc ? rp->inc :
				 rp->mc ? rp->mc : rp->al);
		goto out;
	}
	if (rp->inc) {
		rc = flush_incidents(rp);
		if (rc)
			return rc;
	}
	printed = rp->inc_printed;
	for (i = 0; i < 2 && rc == 0; i++) {
		struct libscols_table *tb = i ? rp->al : rp->mc;

		if (!tb || !scols_table_get_nlines(tb))
			continue;
		if (printed++)
			fputc('\n', rp->out);
		rc = print_table(tb);
	}
out:
	if (rc == 0 && fflush(rp->out) != 0)
		rc = -errno;
	return rc;
}

unsigned long long uc_report_count(const struct uc_report *rp)
{
	return rp->count;
}

void uc_report_free(struct uc_report *rp)
{
	size_t i, j;

	if (!rp)
		return;
	scols_unref_table(rp->inc);
	scols_unref_table(rp->mc);
	scols_unref_table(rp->al);
	scols_unref_table(rp->all);
	for (i = 0; i < rp->nheld; i++)
		uc_record_free(&rp->held[i]);
	free(rp->held);
	for (i = 0; i < rp->ngroups; i++) {
		for (j = 0; j < rp->nkeys; j++)
			free(rp->groups[i].keys[j]);
		free(rp->groups[i].keys);
	}
	free(rp->groups);
	free(rp->hash);
	free(rp);
}

/* ---- the list of columns ------------------------------------------------ */

/* "all", or the kinds of records that have a column, such as
 * "incidents,allow-changes". */
static const char *kinds_name(int kinds, char *buf, size_t size)
{
	static const char *const names[] = { "incidents", "mode-changes", "allow-changes" };
	size_t i, off = 0;

	if (kinds == ALL)
		return "all";
	buf[0] = '\0';
	for (i = 0; i < 3; i++)
		if (kinds & (1 << i))
			off += (size_t)snprintf(buf + off, size - off, "%s%s",
						off ? "," : "", names[i]);
	return buf;
}

int uc_columns_list(const struct uc_output *o, FILE *out)
{
	struct libscols_table *tb = scols_new_table();
	char buf[64];
	static const char *const names[] = { "NAME", "TYPE", "RECORDS", "DESCRIPTION" };
	size_t i;
	int rc = -ENOMEM;

	if (!tb)
		return -ENOMEM;
	scols_table_set_name(tb, "columns");
	table_setup(tb, o, out);
	for (i = 0; i < 4; i++)
		if (!scols_table_new_column(tb, names[i], 0, 0))
			goto out;
	for (i = 0; i < NCOLUMNS; i++) {
		const struct colinfo *c = &columns[i];
		struct libscols_line *ln;

		if (!c->kinds)
			continue;
		ln = scols_table_new_line(tb, NULL);
		if (!ln ||
		    scols_line_set_data(ln, 0, c->name) ||
		    scols_line_set_data(ln, 1, c->json_type == NUM ? "number" : "string") ||
		    scols_line_set_data(ln, 2, kinds_name(c->kinds, buf, sizeof(buf))) ||
		    scols_line_set_data(ln, 3, c->help))
			goto out;
	}
	rc = print_table(tb);
out:
	scols_unref_table(tb);
	return rc;
}

/* ---- the other tables ---------------------------------------------------- */

const struct uc_coldef uc_wl_cols[UC_WL_NCOLS] = {
	[UC_WL_CACHE]	 = { "CACHE", 20, 0, 0, 1, "kmem cache name" },
	[UC_WL_SIZE]	 = { "SIZE", 6, 1, 1, 1, "object size in bytes" },
	[UC_WL_OFFSET]	 = { "OFFSET", 6, 1, 1, 1, "start of the whitelisted region (useroffset)" },
	[UC_WL_USERSIZE] = { "USERSIZE", 8, 1, 1, 1, "size of the whitelisted region (usersize), 0: none" },
	[UC_WL_ORIGIN]	 = { "ORIGIN", 7, 0, 0, 1, "flag, kmalloc, admin, region or none" },
	[UC_WL_DESCRIPTION] = { "DESCRIPTION", 0.3, 0, 0, 0, "what the origin means" },
};

const struct uc_coldef uc_st_cols[UC_ST_NCOLS] = {
	[UC_ST_COUNT]	= { "COUNT", 6, 1, 1, 1, "violations from this call site and cache since boot" },
	[UC_ST_REGION]	= { "REGION", 6, 0, 0, 1, "kind of kernel memory involved" },
	[UC_ST_CACHE]	= { "CACHE", 12, 0, 0, 1, "slab cache name, if any" },
	[UC_ST_SITE]	= { "SITE", 30, 0, 0, 1, "the kernel code that made the copies, or (other)" },
};

const struct uc_coldef uc_sg_cols[UC_SG_NCOLS] = {
	[UC_SG_COUNT]	  = { "COUNT", 5, 1, 1, 1, "incidents (logged copies) from this call site" },
	[UC_SG_DIRECTION] = { "DIRECTION", 9, 0, 0, 1, "exposure, overwrite, or both" },
	[UC_SG_REGION]	  = { "REGION", 6, 0, 0, 1, "kind of kernel memory involved" },
	[UC_SG_CACHE]	  = { "CACHE", 12, 0, 0, 1, "slab cache name, if any" },
	[UC_SG_SITE]	  = { "SITE", 20, 0, 0, 1, "the kernel code that made the copies" },
	[UC_SG_START]	  = { "START", 5, 1, 1, 1, "lowest offset copied" },
	[UC_SG_END]	  = { "END", 5, 1, 1, 1, "highest offset + length copied" },
	[UC_SG_ORIGIN]	  = { "ORIGIN", 7, 0, 0, 1, "the cache's whitelist origin, or unknown" },
	[UC_SG_SUGGESTION] = { "SUGGESTION", 0.5, 0, 0, 1, "what to change" },
};

void uc_cols_default(struct uc_cols *c, const struct uc_coldef *defs, size_t ndefs)
{
	size_t i;

	c->n = 0;
	for (i = 0; i < ndefs && c->n < UC_MAX_COLS; i++)
		if (defs[i].dflt)
			c->id[c->n++] = (int)i;
}

void uc_cols_all(struct uc_cols *c, size_t ndefs)
{
	size_t i;

	c->n = 0;
	for (i = 0; i < ndefs && c->n < UC_MAX_COLS; i++)
		c->id[c->n++] = (int)i;
}

int uc_cols_parse(struct uc_cols *c, const struct uc_coldef *defs, size_t ndefs,
		  const char *list, char *bad, size_t badsize)
{
	const char *p = list;

	if (*p == '+')
		p++;
	else
		c->n = 0;
	do {
		size_t len = strcspn(p, ","), i;
		int id = -1;

		for (i = 0; i < ndefs && len; i++)
			if (strlen(defs[i].name) == len &&
			    strncasecmp(defs[i].name, p, len) == 0)
				id = (int)i;
		if (id < 0) {
			snprintf(bad, badsize, "%.*s", (int)(len < 64 ? len : 64), p);
			return -1;
		}
		add_col(c->id, &c->n, id);
		p += len;
	} while (*p++ == ',');
	return 0;
}

int uc_cols_list(const struct uc_output *o, FILE *out,
		 const struct uc_coldef *defs, size_t ndefs)
{
	static const struct uc_coldef meta[] = {
		{ "NAME", 0, 0, 0, 1, NULL }, { "TYPE", 0, 0, 0, 1, NULL },
		{ "DESCRIPTION", 0, 0, 0, 1, NULL },
	};
	struct uc_cols cols;
	struct uc_table *t;
	size_t i;
	int rc = 0;

	uc_cols_default(&cols, meta, 3);
	t = uc_table_new(o, out, "columns", meta, &cols);
	if (!t)
		return -ENOMEM;
	for (i = 0; i < ndefs && rc == 0; i++) {
		const char *cells[] = { defs[i].name, defs[i].number ? "number" : "string",
					defs[i].help };

		rc = uc_table_add(t, cells);
	}
	if (rc == 0)
		rc = uc_table_print(t);
	uc_table_free(t);
	return rc;
}

struct uc_table {
	struct libscols_table *tb;
	struct uc_cols cols;
	int json;
};

struct uc_table *uc_table_new(const struct uc_output *o, FILE *out,
			      const char *name, const struct uc_coldef *defs,
			      const struct uc_cols *cols)
{
	struct uc_table *t = calloc(1, sizeof(*t));
	size_t i;

	if (!t)
		return NULL;
	t->cols = *cols;
	t->json = o->json;
	t->tb = scols_new_table();
	if (!t->tb || scols_table_set_name(t->tb, name) != 0)
		goto fail;
	table_setup(t->tb, o, out);
	for (i = 0; i < cols->n; i++) {
		const struct uc_coldef *c = &defs[cols->id[i]];
		struct libscols_column *cl;

		cl = scols_table_new_column(t->tb, c->name, c->whint,
					    c->right ? SCOLS_FL_RIGHT :
					    c->whint < 1 ? SCOLS_FL_TRUNC : 0);
		if (!cl || scols_column_set_json_type(cl, c->number ? NUM : STRG) != 0)
			goto fail;
	}
	return t;
fail:
	uc_table_free(t);
	return NULL;
}

int uc_table_add(struct uc_table *t, const char *const *cells)
{
	struct libscols_line *ln = scols_table_new_line(t->tb, NULL);
	size_t i;
	int rc;

	if (!ln)
		return -ENOMEM;
	for (i = 0; i < t->cols.n; i++) {
		rc = set_cell(ln, i, cells[t->cols.id[i]], t->json);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * libsmartcols prints nothing of an empty table but in JSON: the heading
 * of a table with one empty row, then, says what would be there.
 */
static int print_heading(struct uc_table *t)
{
	FILE *out = scols_table_get_stream(t->tb);
	char *text = NULL;
	int rc;

	if (!scols_table_new_line(t->tb, NULL))
		return -ENOMEM;
	rc = scols_print_table_to_string(t->tb, &text);
	scols_table_set_stream(t->tb, out);
	if (rc || !text) {
		free(text);
		return -ENOMEM;
	}
	fprintf(out, "%.*s\n", (int)strcspn(text, "\n"), text);
	free(text);
	return 0;
}

int uc_table_print(struct uc_table *t)
{
	int rc;

	if (scols_table_is_empty(t->tb) && !t->json &&
	    !scols_table_is_noheadings(t->tb) && !scols_table_is_export(t->tb))
		rc = print_heading(t);
	else
		rc = print_table(t->tb);
	if (rc == 0 && fflush(scols_table_get_stream(t->tb)) != 0)
		rc = -errno;
	return rc;
}

void uc_table_free(struct uc_table *t)
{
	if (!t)
		return;
	scols_unref_table(t->tb);
	free(t);
}

/* ---- one-row tables ---------------------------------------------------- */

struct uc_kv {
	struct libscols_table *tb;
	struct libscols_line *ln;
	size_t n;
	int err;
};

struct uc_kv *uc_kv_new(const char *name)
{
	struct uc_kv *kv = calloc(1, sizeof(*kv));

	if (!kv)
		return NULL;
	kv->tb = scols_new_table();
	if (!kv->tb || scols_table_set_name(kv->tb, name) ||
	    scols_table_enable_json(kv->tb, 1) ||
	    !(kv->ln = scols_table_new_line(kv->tb, NULL))) {
		uc_kv_free(kv);
		return NULL;
	}
	return kv;
}

int uc_kv_add(struct uc_kv *kv, const char *key, enum uc_value_type type,
	      const char *value)
{
	static const int jt[] = {
		[UC_V_STRING] = SCOLS_JSON_STRING,
		[UC_V_NUMBER] = SCOLS_JSON_NUMBER,
		[UC_V_BOOL] = SCOLS_JSON_BOOLEAN_OPTIONAL,
		[UC_V_LIST] = SCOLS_JSON_ARRAY_STRING,
	};
	struct libscols_column *cl;
	int rc;

	if (kv->err)
		return kv->err;
	/* libsmartcols writes an empty array as [null]: say null. */
	if (type == UC_V_LIST && (!value || !*value)) {
		type = UC_V_STRING;
		value = NULL;
	}
	cl = scols_table_new_column(kv->tb, key, 0,
				    type == UC_V_LIST ? SCOLS_FL_WRAP : 0);
	if (!cl || scols_column_set_json_type(cl, jt[type])) {
		kv->err = -ENOMEM;
		return kv->err;
	}
	if (type == UC_V_LIST)
		scols_column_set_wrapfunc(cl, scols_wrapnl_chunksize,
					  scols_wrapnl_nextchunk, NULL);
	rc = set_cell(kv->ln, kv->n++, value, 1);
	if (rc)
		kv->err = rc;
	return rc;
}

int uc_kv_print_json(struct uc_kv *kv, FILE *out)
{
	if (kv->err)
		return kv->err;
	scols_table_set_stream(kv->tb, out);
	if (print_table(kv->tb))
		return -EIO;
	return fflush(out) ? -errno : 0;
}

void uc_kv_free(struct uc_kv *kv)
{
	if (!kv)
		return;
	scols_unref_table(kv->tb);
	free(kv);
}
