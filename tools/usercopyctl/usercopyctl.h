/*
 * usercopyctl - inspect and control the kernel's usercopy hardening
 *
 * Shared declarations of the tool's parts:
 *
 *   usercopyctl.c  the command line (the only file that prints errors
 *                  and decides exit codes)
 *   kernel.c       the running kernel: sysctls and modes, kernel config,
 *                  kernel command line, the sysctl.d persist file
 *   records.c      the record model, the audit log reader (parsing with
 *                  libauparse), filters and time parsing
 *   output.c       columns, tables, JSON (all through libsmartcols)
 *   monitor.c      live records from the audit netlink multicast group
 *   whitelist.c    the kmem caches' usercopy whitelist and the call sites of
 *                  violations (/proc/usercopy), the admin's allow list
 *   suggest.c      report --suggest: incidents by call site, what to change
 *   uc-sysctl.h, uc-auditnl.h  reading and writing sysctl files, receiving
 *                  audit records: header only, shared with the guest tests
 *
 * Library code (all but usercopyctl.c) returns errors and never exits.
 */
#ifndef USERCOPYCTL_H
#define USERCOPYCTL_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

#define UC_NAME			"usercopyctl"
#define UC_PACKAGE		"usercopy-hardening"
/* UC_VERSION comes from the Makefile, which reads packaging/debian/changelog. */

#define UC_SYSCTL_DIR		"/proc/sys/kernel/usercopy"
#define UC_SYSCTL_D		"/etc/sysctl.d"
#define UC_PERSIST_NAME		"90-usercopy.conf"
#define UC_AUDIT_LOG		"/var/log/audit/audit.log"
#define UC_PROC_DIR		"/proc/usercopy"

/* Not known to the audit userspace libraries (yet). */
#define UC_AUDIT_ANOM_USERCOPY	1790
#define UC_AUDIT_CONFIG_CHANGE	1305

/* Exit codes */
#define UC_EXIT_OK		0
#define UC_EXIT_FAILURE		1
#define UC_EXIT_UNSUPPORTED	2

/* ---- kernel.c ---------------------------------------------------------- */

const char *uc_sysctl_dir(void);
int uc_supported(void);
/* Reads one sysctl value without the trailing newline: 0 or -errno. */
int uc_sysctl_read(const char *name, char *buf, size_t size);
/* Writes one sysctl value: 0 or -errno. */
int uc_sysctl_write(const char *name, const char *value);

/*
 * The mode names: the kernel's modes_avail if it can be read, else the
 * one fallback table.  At most UC_MAX_MODES names.
 */
#define UC_MAX_MODES		8
struct uc_modes {
	char buf[128];
	const char *name[UC_MAX_MODES];
	size_t n;
	int from_kernel;
};
void uc_modes_read(struct uc_modes *m);
int uc_mode_valid(const struct uc_modes *m, const char *word);
/* "off, log or enforce" (sep ", ", last " or ") into buf */
const char *uc_modes_join(const struct uc_modes *m, const char *sep,
			  const char *last, char *buf, size_t size);

/* The kernel state shared by status, mode and lock. */
struct uc_state {
	char mode[32];
	int have_mode;		/* 0: mode[] holds no value, mode_err is set */
	int mode_err;		/* -errno of reading the mode */
	int locked;		/* 1, 0, or -1 if unreadable */
};
/* 0, or -ENOENT if the kernel has no usercopy control. */
int uc_state_read(struct uc_state *st);

enum uc_tristate { UC_UNKNOWN = -1, UC_NO = 0, UC_YES = 1 };

struct uc_kconfig {
	char source[256];	/* where it was read from, "" if not found */
	int hardened;		/* CONFIG_HARDENED_USERCOPY */
	int orc;		/* CONFIG_UNWINDER_ORC */
	int frame_pointer;	/* CONFIG_UNWINDER_FRAME_POINTER */
	int slub;		/* CONFIG_SLUB */
	int slab;		/* CONFIG_SLAB */
	int slob;		/* CONFIG_SLOB */
};

void uc_kconfig_read(struct uc_kconfig *kc);
const char *uc_kconfig_hardened(const struct uc_kconfig *kc);
const char *uc_kconfig_frames(const struct uc_kconfig *kc);
const char *uc_kconfig_allocator(const struct uc_kconfig *kc);
const char *uc_kconfig_whitelisting(const struct uc_kconfig *kc);

/* The mode asked for on the kernel command line, or NULL. */
const char *uc_boot_mode(const struct uc_modes *m, char *buf, size_t size);

/* The persist file is written to a temporary file first, which is renamed
 * over the real one only once the running kernel accepted the mode. */
struct uc_persist {
	char path[4096];
	char tmp[4096];
};
const char *uc_persist_default(char *buf, size_t size);
int uc_persist_prepare(struct uc_persist *p, const char *path, const char *mode,
		       const struct uc_modes *m);
int uc_persist_commit(struct uc_persist *p);
void uc_persist_abort(struct uc_persist *p);

/* ---- whitelist.c ------------------------------------------------------- */

/* USERCOPYCTL_PROC_DIR, else UC_PROC_DIR. */
const char *uc_proc_dir(void);

/* The origins of a cache's whitelist, as the kernel names them. */
extern const char *const uc_origins[];	/* NULL-terminated */
int uc_origin_valid(const char *word);

/* Lines of a /proc/usercopy file that could not be read: the first few. */
#define UC_PROC_BAD_KEPT	5
struct uc_proc_bad {
	unsigned long n;
	unsigned long line[UC_PROC_BAD_KEPT];
	char why[UC_PROC_BAD_KEPT][96];
};

/* One kmem cache of /proc/usercopy/whitelist; strings point into buf. */
struct uc_wl_cache {
	const char *name;
	unsigned long long size, useroffset, usersize;
	const char *origin;
};
struct uc_whitelist {
	char path[4096];
	char *buf;
	struct uc_wl_cache *c;
	size_t n;
	struct uc_proc_bad bad;
};
/*
 * Read the whitelist: 0, -errno (of opening or reading it), or -EBADMSG
 * if its first line is not the header of this format.  Bad lines are
 * skipped and counted in wl->bad.
 */
int uc_whitelist_read(struct uc_whitelist *wl);
void uc_whitelist_free(struct uc_whitelist *wl);
/* The first cache of that name, or NULL. */
const struct uc_wl_cache *uc_whitelist_find(const struct uc_whitelist *wl,
					    const char *name);

/* One line of /proc/usercopy/sites: region and cache NULL for "-". */
struct uc_site {
	unsigned long long count;
	const char *region, *cache, *site;
	unsigned long line;	/* in the file: the order of equal counts */
};
struct uc_sites {
	char path[4096];
	char *buf;
	struct uc_site *s;
	size_t n;
	struct uc_proc_bad bad;
};
/* As uc_whitelist_read(); the sites sorted by count, most first. */
int uc_sites_read(struct uc_sites *s);
void uc_sites_free(struct uc_sites *s);

/* A cache name the kernel can take: 1..UC_CACHE_NAME_MAX printable
 * bytes, no space. */
#define UC_CACHE_NAME_MAX	255
int uc_cache_name_valid(const char *name);
/*
 * The caches the admin whitelisted (kernel.usercopy.allow), at most
 * UC_MAX_ALLOWED: 0 or -errno.
 */
#define UC_MAX_ALLOWED		16
struct uc_allowed {
	char buf[UC_MAX_ALLOWED * (UC_CACHE_NAME_MAX + 1) + 2];
	const char *name[UC_MAX_ALLOWED];
	size_t n;
};
int uc_allowed_read(struct uc_allowed *a);
int uc_allowed_has(const struct uc_allowed *a, const char *name);

/* ---- records.c --------------------------------------------------------- */

/* An incident, a change of the mode or lock (op=usercopy-mode), a cache
 * whitelisted by the admin (op=usercopy-allow). */
enum uc_kind { UC_INCIDENT = 1, UC_MODE_CHANGE = 2, UC_ALLOW_CHANGE = 4 };
#define UC_ALL_KINDS	(UC_INCIDENT | UC_MODE_CHANGE | UC_ALLOW_CHANGE)

/* Which numeric fields a record has: a value is never "unset". */
enum {
	UC_HAS_OFFSET	= 1 << 0,
	UC_HAS_LEN	= 1 << 1,
	UC_HAS_PID	= 1 << 2,
	UC_HAS_UID	= 1 << 3,
	UC_HAS_GID	= 1 << 4,
	UC_HAS_AUID	= 1 << 5,
	UC_HAS_SES	= 1 << 6,
	UC_HAS_RES	= 1 << 7,
	UC_HAS_PERMISSIVE = 1 << 8,
	UC_HAS_OLD_LOCK	= 1 << 9,
	UC_HAS_NEW_LOCK	= 1 << 10,
	UC_HAS_SUPPRESSED = 1 << 11,
};

/*
 * One usercopy record.  The strings point into the parser that read it
 * (valid until it parses the next line), or into mem after
 * uc_record_copy().  They hold the bytes as logged (hex decoded), which
 * need not be valid UTF-8: output.c makes them safe.
 */
struct uc_record {
	enum uc_kind kind;
	long long sec;
	unsigned int msec;
	unsigned long long serial;
	unsigned long long seq;		/* position in the input, for sorting */
	unsigned int has;		/* UC_HAS_* */
	/* incidents */
	const char *op;			/* exposure | overwrite */
	const char *region, *cache, *comm, *exe, *subj;
	const char *site;		/* the call site (%pS), or NULL */
	unsigned long long offset, len;
	unsigned long long suppressed;	/* left out by the kernel's rate limit */
	unsigned long pid, uid, gid;	/* 32-bit values */
	int permissive;
	/* both */
	unsigned long auid;		/* 32-bit */
	unsigned long long ses;
	int res;
	/* mode changes (allow changes: cache) */
	const char *old_mode, *new_mode;
	int old_lock, new_lock;
	char *mem;			/* owned copy of the strings, or NULL */
};

/* The audit record parser: a libauparse state and its buffers. */
struct uc_parser;
struct uc_parser *uc_parser_new(void);		/* NULL, errno set */
void uc_parser_free(struct uc_parser *p);
/*
 * Parse one line of an audit log (@len bytes, without the newline; may
 * hold NULs).  1: a usercopy record in @r; 0: a line of no interest;
 * -1: a bad line, with the reason in @why (of @whysize bytes).
 */
int uc_parse_line(struct uc_parser *p, const char *line, size_t len,
		  struct uc_record *r, char *why, size_t whysize);
/* A copy of @src whose strings it owns: 0 or -ENOMEM. */
int uc_record_copy(struct uc_record *dst, const struct uc_record *src);
void uc_record_free(struct uc_record *r);

/* Reads a log (or "-", standard input) line by line. */
struct uc_reader {
	FILE *fp;
	const char *path;
	struct uc_parser *parser;
	char *line;
	size_t cap;
	unsigned long lineno;
	unsigned long long seq;
	char why[192];		/* the reason of the last bad line */
	int err;		/* errno of a read error */
};
int uc_reader_open(struct uc_reader *rd, const char *path);	/* 0, -errno */
/* 1: a record; 0: end of file; -1: a bad line (rd->why, rd->lineno);
 * -2: a read error (rd->err). */
int uc_reader_next(struct uc_reader *rd, struct uc_record *r);
void uc_reader_close(struct uc_reader *rd);

struct uc_filter {
	int has_since, has_until, has_pid, has_uid;
	long long since_ms, until_ms;
	unsigned long pid, uid;
	int kinds;		/* the enum uc_kind bits of the records to keep */
};
int uc_filter_match(const struct uc_filter *f, const struct uc_record *r);

/*
 * "YYYY-MM-DD[ HH:MM[:SS]]" (also with a 'T'), in local time;
 * "@SECONDS" since the epoch; "now", "today", "yesterday", "recent"
 * (ten minutes ago), "boot".  0 or -1.
 */
int uc_parse_time(const char *s, long long *ms);
/* Boot time in ms since the epoch: 0 or -errno. */
int uc_boot_time(long long *ms);

/* ---- output.c ---------------------------------------------------------- */

enum uc_time_format { UC_TIME_DEFAULT, UC_TIME_SHORT, UC_TIME_ISO, UC_TIME_RAW };

#define UC_MAX_COLS	32

struct uc_output {
	int json, raw, pairs, noheadings;
	enum uc_time_format time_format;
	int inc[UC_MAX_COLS];	/* incident columns */
	size_t ninc;
	int mc[UC_MAX_COLS];	/* mode change columns */
	size_t nmc;
	int al[UC_MAX_COLS];	/* allow change columns */
	size_t nal;
	int sort_col;		/* -1: log order */
};

/* Defaults; "LIST" replaces them, "+LIST" adds. 0, or -1 with the bad
 * name in @bad. */
void uc_columns_default(struct uc_output *o);
void uc_columns_all(struct uc_output *o);
int uc_columns_parse(struct uc_output *o, const char *list, char *bad,
		     size_t badsize);
/* A column by name, or -1. */
int uc_column_find(const char *name);
/* The table of all columns (-H): 0 or -errno. */
int uc_columns_list(const struct uc_output *o, FILE *out);
void uc_columns_help(FILE *out);
/* Replace invalid UTF-8 with "\xNN" text: a new string, or NULL if @s is
 * valid (or out of memory, *err set then). */
char *uc_utf8_sanitize(const char *s, int *err);
/* The text of a time. */
const char *uc_format_time(char *buf, size_t size, long long sec,
			   unsigned msec, enum uc_time_format tf);

/* A report: records in, tables out (streamed unless sorted or JSON). */
struct uc_report;
struct uc_report *uc_report_new(const struct uc_output *o, int kinds,
				int summary, FILE *out);
int uc_report_add(struct uc_report *rp, const struct uc_record *r);	/* 0, -errno */
int uc_report_finish(struct uc_report *rp);				/* 0, -errno */
unsigned long long uc_report_count(const struct uc_report *rp);
void uc_report_free(struct uc_report *rp);

/*
 * The other tables (whitelist, sites, report --suggest): columns of
 * their own, chosen with -o as the record columns are, rows of text.
 */
struct uc_coldef {
	const char *name;
	double whint;
	int right;		/* right-aligned */
	int number;		/* a number in JSON */
	int dflt;		/* shown by default */
	const char *help;
};
struct uc_cols {
	int id[UC_MAX_COLS];
	size_t n;
};
void uc_cols_default(struct uc_cols *c, const struct uc_coldef *defs, size_t ndefs);
void uc_cols_all(struct uc_cols *c, size_t ndefs);
/* As uc_columns_parse(): 0, or -1 with the bad name in @bad. */
int uc_cols_parse(struct uc_cols *c, const struct uc_coldef *defs, size_t ndefs,
		  const char *list, char *bad, size_t badsize);
int uc_cols_list(const struct uc_output *o, FILE *out,
		 const struct uc_coldef *defs, size_t ndefs);

struct uc_table;
struct uc_table *uc_table_new(const struct uc_output *o, FILE *out,
			      const char *name, const struct uc_coldef *defs,
			      const struct uc_cols *cols);
/* One row: @cells indexed like the column definitions, NULL for none. */
int uc_table_add(struct uc_table *t, const char *const *cells);	/* 0, -errno */
int uc_table_print(struct uc_table *t);					/* 0, -errno */
void uc_table_free(struct uc_table *t);

/* The columns of whitelist, sites and report --suggest. */
enum { UC_WL_CACHE, UC_WL_SIZE, UC_WL_OFFSET, UC_WL_USERSIZE, UC_WL_ORIGIN,
       UC_WL_DESCRIPTION, UC_WL_NCOLS };
extern const struct uc_coldef uc_wl_cols[UC_WL_NCOLS];
enum { UC_ST_COUNT, UC_ST_REGION, UC_ST_CACHE, UC_ST_SITE, UC_ST_NCOLS };
extern const struct uc_coldef uc_st_cols[UC_ST_NCOLS];
enum { UC_SG_COUNT, UC_SG_DIRECTION, UC_SG_REGION, UC_SG_CACHE, UC_SG_SITE,
       UC_SG_START, UC_SG_END, UC_SG_ORIGIN, UC_SG_SUGGESTION, UC_SG_NCOLS };
extern const struct uc_coldef uc_sg_cols[UC_SG_NCOLS];

/* One-row tables ("key: value" objects in JSON) for status and mode. */
enum uc_value_type { UC_V_STRING, UC_V_NUMBER, UC_V_BOOL, UC_V_LIST };
struct uc_kv;
struct uc_kv *uc_kv_new(const char *name);
/* @value NULL: unknown (null in JSON, "unknown" in text). For UC_V_LIST
 * the items are separated by newlines. */
int uc_kv_add(struct uc_kv *kv, const char *key, enum uc_value_type type,
	      const char *value);
int uc_kv_print_json(struct uc_kv *kv, FILE *out);
void uc_kv_free(struct uc_kv *kv);

/* ---- suggest.c --------------------------------------------------------- */

/* Logged incidents by region, cache and call site (@wl: the whitelist,
 * or NULL if it cannot be read: origins unknown). */
struct uc_suggest;
struct uc_suggest *uc_suggest_new(const struct uc_whitelist *wl);
/* Any record: only the logged incidents count.  0 or -ENOMEM. */
int uc_suggest_add(struct uc_suggest *sg, const struct uc_record *r);
unsigned long long uc_suggest_groups(const struct uc_suggest *sg);
/* The table, most incidents first: 0 or -errno. */
int uc_suggest_print(struct uc_suggest *sg, const struct uc_output *o,
		     const struct uc_cols *cols, FILE *out);
void uc_suggest_free(struct uc_suggest *sg);

/* ---- monitor.c --------------------------------------------------------- */

struct uc_monitor_opts {
	struct uc_output out;
	struct uc_filter filter;
	unsigned long count;	/* 0: no limit */
	double timeout;		/* <= 0: none */
	FILE *warn;		/* where to report lost records */
};
struct uc_monitor_result {
	unsigned long seen;
	int timed_out;
	char err[256];		/* the reason of a failure */
};
/* 0 (ended by a signal, the count or the timeout) or -errno. */
int uc_monitor(const struct uc_monitor_opts *mo, struct uc_monitor_result *res);

#endif
