/*
 * usercopyctl - inspect and control the kernel's usercopy hardening
 *
 * Shared declarations of the tool's three parts: the command line
 * (usercopyctl.c), the sysctl and kernel config side (sysctl.c) and the
 * audit side with its tables (audit.c).
 */
#ifndef USERCOPYCTL_H
#define USERCOPYCTL_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

#define UC_NAME			"usercopyctl"
#define UC_PACKAGE		"usercopy-hardening"
#ifndef UC_VERSION
# define UC_VERSION		"1.0"
#endif

#define UC_SYSCTL_DIR		"/proc/sys/kernel/usercopy"
#define UC_SYSCTL_D		"/etc/sysctl.d"
#define UC_PERSIST_NAME		"90-usercopy.conf"
#define UC_AUDIT_LOG		"/var/log/audit/audit.log"

/* Not known to the audit userspace libraries (yet). */
#define UC_AUDIT_ANOM_USERCOPY	1790
#define UC_AUDIT_CONFIG_CHANGE	1305

/* Exit codes */
#define UC_EXIT_OK		0
#define UC_EXIT_FAILURE		1
#define UC_EXIT_UNSUPPORTED	2

/* usercopyctl.c */
void uc_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void uc_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- sysctl.c ---------------------------------------------------------- */

const char *uc_sysctl_dir(void);
int uc_supported(void);
/* Reads one sysctl value without the trailing newline: 0 or -errno. */
int uc_sysctl_read(const char *name, char *buf, size_t size);
/* Writes one sysctl value: 0 or -errno. */
int uc_sysctl_write(const char *name, const char *value);
int uc_mode_valid(const char *word);

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
const char *uc_boot_mode(char *buf, size_t size);

/* The persist file is written to a temporary file first, which is renamed
 * over the real one only once the running kernel accepted the mode. */
struct uc_persist {
	char path[4096];
	char tmp[4096];
};
const char *uc_persist_default(char *buf, size_t size);
int uc_persist_prepare(struct uc_persist *p, const char *path, const char *mode);
int uc_persist_commit(struct uc_persist *p);
void uc_persist_abort(struct uc_persist *p);

/* ---- audit.c ----------------------------------------------------------- */

enum uc_kind { UC_INCIDENT, UC_MODE_CHANGE };

#define UC_UNSET ((unsigned long)-1)

struct uc_record {
	enum uc_kind kind;
	time_t sec;
	unsigned int msec;
	unsigned long serial;
	/* incidents */
	char *op;		/* exposure | overwrite */
	char *region;
	char *cache;
	char *comm;
	char *exe;
	char *subj;
	unsigned long offset, len, pid, uid, gid;
	int permissive;
	/* both */
	unsigned long auid, ses;
	int res;
	/* mode changes */
	char *old_mode, *new_mode;
	int old_lock, new_lock;
};

struct uc_records {
	struct uc_record *v;
	size_t n, cap;
};

struct uc_filter {
	int has_since, has_until, has_pid, has_uid;
	long long since_ms, until_ms;
	unsigned long pid, uid;
	int incidents, changes;	/* which kinds to keep */
};

int uc_parse_time(const char *s, long long *ms);
int uc_filter_match(const struct uc_filter *f, const struct uc_record *r);
#define UC_READ_JSON	1	/* keep comm/exe unescaped */
#define UC_READ_QUIET	2	/* no warnings about bad lines */
int uc_read_log(const char *path, const struct uc_filter *f,
		struct uc_records *out, int flags);
void uc_records_free(struct uc_records *rs);
void uc_record_clear(struct uc_record *r);

/* Output: columns, tables and JSON */
struct uc_output {
	int json, raw, noheadings;
	int cols[32];
	size_t ncols;
};

int uc_columns_parse(struct uc_output *o, const char *list);
void uc_columns_default(struct uc_output *o);
void uc_columns_all(struct uc_output *o);
void uc_columns_help(FILE *out);
int uc_print_report(const struct uc_output *o, const struct uc_records *rs,
		    const struct uc_filter *f);
void uc_print_json_row(FILE *out, const struct uc_output *o,
		       const struct uc_record *r);
void uc_json_string(FILE *out, const char *s);

struct uc_monitor_opts {
	struct uc_output out;
	struct uc_filter filter;
	unsigned long count;	/* 0: no limit */
	double timeout;		/* <= 0: none */
};
int uc_monitor(const struct uc_monitor_opts *mo);

#endif
