/*
 * usercopyctl: the usercopy whitelist of the kernel's kmem caches and
 * the call sites of violations, as /proc/usercopy/whitelist and
 * /proc/usercopy/sites show them, and the caches the admin whitelisted
 * (kernel.usercopy.allow).  Errors are returned.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usercopyctl.h"

#define WL_HEADER	"# cache object_size useroffset usersize origin"
#define SITES_HEADER	"# violations region cache site"

const char *const uc_origins[] = {
	"flag", "kmalloc", "admin", "region", "none", NULL
};

const char *uc_proc_dir(void)
{
	const char *d = getenv("USERCOPYCTL_PROC_DIR");

	return d && *d ? d : UC_PROC_DIR;
}

int uc_origin_valid(const char *word)
{
	size_t i;

	for (i = 0; uc_origins[i]; i++)
		if (strcmp(word, uc_origins[i]) == 0)
			return 1;
	return 0;
}

/* The whole of @path (a proc file: its size is not known) in *buf. */
static int read_all(const char *path, char **buf)
{
	size_t len = 0, cap = 4096;
	char *b = malloc(cap), *n;
	FILE *f;
	int err;

	if (!b)
		return -ENOMEM;
	f = fopen(path, "re");
	if (!f) {
		err = -errno;
		free(b);
		return err;
	}
	for (;;) {
		size_t got;

		if (cap - len < 2) {
			n = cap > SIZE_MAX / 2 ? NULL : realloc(b, cap * 2);
			if (!n) {
				fclose(f);
				free(b);
				return -ENOMEM;
			}
			b = n;
			cap *= 2;
		}
		got = fread(b + len, 1, cap - 1 - len, f);
		len += got;
		if (got == 0)
			break;
	}
	err = ferror(f) ? -(errno ? errno : EIO) : 0;
	fclose(f);
	if (err) {
		free(b);
		return err;
	}
	b[len] = '\0';
	if (strlen(b) != len) {
		free(b);
		return -EBADMSG;	/* a NUL byte: not a text file */
	}
	*buf = b;
	return 0;
}

static void bad_line(struct uc_proc_bad *bad, unsigned long lineno,
		     const char *why, const char *field)
{
	size_t i = bad->n;

	if (i < UC_PROC_BAD_KEPT) {
		bad->line[i] = lineno;
		snprintf(bad->why[i], sizeof(bad->why[i]), "%s%s%.40s%s", why,
			 field ? " '" : "", field ? field : "",
			 field ? (strlen(field) > 40 ? "...'" : "'") : "");
	}
	bad->n++;
}

static int parse_num(const char *s, unsigned long long *v)
{
	unsigned long long x = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || x > (UINT64_MAX - (unsigned)(*s - '0')) / 10)
			return -1;
		x = x * 10 + (unsigned)(*s - '0');
	}
	*v = x;
	return 0;
}

/* A word of the files: printable bytes, no space. */
static int word_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f)
			return 0;
	return 1;
}

/*
 * Split @buf into lines (in place), check the header, and hand each
 * other line, with its number, to @fn: 0, or the first error of @fn
 * (which are negative; a bad line is no error).
 */
static int each_line(char *buf, const char *header,
		     int (*fn)(void *ctx, char *line, unsigned long lineno),
		     void *ctx)
{
	unsigned long lineno = 0;
	char *line = buf, *nl;
	int rc;

	for (; *line; line = nl ? nl + 1 : line + strlen(line)) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		lineno++;
		if (lineno == 1) {
			if (strcmp(line, header) != 0)
				return -EBADMSG;
			continue;
		}
		if (!*line)
			continue;
		rc = fn(ctx, line, lineno);
		if (rc)
			return rc;
		if (!nl)
			break;
	}
	return lineno ? 0 : -EBADMSG;
}

static int grow_array(void **v, size_t *cap, size_t n, size_t size)
{
	void *nv;
	size_t ncap;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	nv = realloc(*v, ncap * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

/* ---- whitelist --------------------------------------------------------- */

struct wl_ctx {
	struct uc_whitelist *wl;
	size_t cap;
};

static int wl_line(void *ctx, char *line, unsigned long lineno)
{
	struct wl_ctx *x = ctx;
	struct uc_whitelist *wl = x->wl;
	struct uc_wl_cache c;
	char *f[6], *save = NULL;
	size_t n = 0;

	for (f[n] = strtok_r(line, " ", &save); f[n] && n < 5;
	     f[++n] = strtok_r(NULL, " ", &save))
		;
	if (n != 5 || f[5]) {
		bad_line(&wl->bad, lineno, n < 5 ? "too few fields" : "too many fields", NULL);
		return 0;
	}
	if (!word_ok(f[0])) {
		bad_line(&wl->bad, lineno, "bad cache name", f[0]);
		return 0;
	}
	c.name = f[0];
	if (parse_num(f[1], &c.size)) {
		bad_line(&wl->bad, lineno, "bad object_size", f[1]);
		return 0;
	}
	if (parse_num(f[2], &c.useroffset)) {
		bad_line(&wl->bad, lineno, "bad useroffset", f[2]);
		return 0;
	}
	if (parse_num(f[3], &c.usersize)) {
		bad_line(&wl->bad, lineno, "bad usersize", f[3]);
		return 0;
	}
	if (c.useroffset > c.size || c.usersize > c.size - c.useroffset) {
		bad_line(&wl->bad, lineno, "region outside the object", NULL);
		return 0;
	}
	if (!uc_origin_valid(f[4])) {
		bad_line(&wl->bad, lineno, "unknown origin", f[4]);
		return 0;
	}
	c.origin = f[4];
	if (grow_array((void **)&wl->c, &x->cap, wl->n, sizeof(*wl->c)))
		return -ENOMEM;
	wl->c[wl->n++] = c;
	return 0;
}

int uc_whitelist_read(struct uc_whitelist *wl)
{
	struct wl_ctx x = { .wl = wl };
	int rc;

	memset(wl, 0, sizeof(*wl));
	snprintf(wl->path, sizeof(wl->path), "%s/whitelist", uc_proc_dir());
	rc = read_all(wl->path, &wl->buf);
	if (rc == 0)
		rc = each_line(wl->buf, WL_HEADER, wl_line, &x);
	if (rc) {
		free(wl->c);
		free(wl->buf);
		wl->c = NULL;
		wl->buf = NULL;
		wl->n = 0;
	}
	return rc;
}

void uc_whitelist_free(struct uc_whitelist *wl)
{
	free(wl->c);
	free(wl->buf);
	wl->c = NULL;
	wl->buf = NULL;
	wl->n = 0;
}

const struct uc_wl_cache *uc_whitelist_find(const struct uc_whitelist *wl,
					    const char *name)
{
	size_t i;

	for (i = 0; i < wl->n; i++)
		if (strcmp(wl->c[i].name, name) == 0)
			return &wl->c[i];
	return NULL;
}

/* ---- sites ------------------------------------------------------------- */

struct sites_ctx {
	struct uc_sites *s;
	size_t cap;
};

static int sites_line(void *ctx, char *line, unsigned long lineno)
{
	struct sites_ctx *x = ctx;
	struct uc_sites *s = x->s;
	struct uc_site e;
	char *f[3], *p = line;
	size_t i;

	/* COUNT REGION CACHE SITE: the site is all after the third space. */
	for (i = 0; i < 3; i++) {
		f[i] = p;
		p = strchr(p, ' ');
		if (!p) {
			bad_line(&s->bad, lineno, "too few fields", NULL);
			return 0;
		}
		*p++ = '\0';
	}
	if (parse_num(f[0], &e.count)) {
		bad_line(&s->bad, lineno, "bad count", f[0]);
		return 0;
	}
	if (!word_ok(f[1]) || !word_ok(f[2])) {
		bad_line(&s->bad, lineno, word_ok(f[1]) ? "bad cache name" : "bad region",
			 word_ok(f[1]) ? f[2] : f[1]);
		return 0;
	}
	for (i = 0; p[i]; i++)
		if ((unsigned char)p[i] < ' ' || (unsigned char)p[i] >= 0x7f)
			break;
	if (!*p || p[i] || *p == ' ') {
		bad_line(&s->bad, lineno, "bad site", NULL);
		return 0;
	}
	e.region = strcmp(f[1], "-") == 0 ? NULL : f[1];
	e.cache = strcmp(f[2], "-") == 0 ? NULL : f[2];
	e.site = p;
	e.line = lineno;
	if (grow_array((void **)&s->s, &x->cap, s->n, sizeof(*s->s)))
		return -ENOMEM;
	s->s[s->n++] = e;
	return 0;
}

static int cmp_sites(const void *pa, const void *pb)
{
	const struct uc_site *a = pa, *b = pb;
	int ao = !a->region && strcmp(a->site, "(other)") == 0;
	int bo = !b->region && strcmp(b->site, "(other)") == 0;

	/* the rest of a full table last */
	if (ao != bo)
		return ao - bo;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	/* ties in the kernel's order */
	return a->line < b->line ? -1 : a->line > b->line;
}

int uc_sites_read(struct uc_sites *s)
{
	struct sites_ctx x = { .s = s };
	int rc;

	memset(s, 0, sizeof(*s));
	snprintf(s->path, sizeof(s->path), "%s/sites", uc_proc_dir());
	rc = read_all(s->path, &s->buf);
	if (rc == 0)
		rc = each_line(s->buf, SITES_HEADER, sites_line, &x);
	if (rc) {
		uc_sites_free(s);
		return rc;
	}
	if (s->n > 1)
		qsort(s->s, s->n, sizeof(*s->s), cmp_sites);
	return 0;
}

void uc_sites_free(struct uc_sites *s)
{
	free(s->s);
	free(s->buf);
	s->s = NULL;
	s->buf = NULL;
	s->n = 0;
}

/* ---- the admin's allow list ---------------------------------------------- */

int uc_cache_name_valid(const char *name)
{
	return word_ok(name) && strlen(name) <= UC_CACHE_NAME_MAX;
}

int uc_allowed_read(struct uc_allowed *a)
{
	char *tok, *save = NULL;
	int rc;

	memset(a, 0, sizeof(*a));
	rc = uc_sysctl_read("allow", a->buf, sizeof(a->buf));
	if (rc)
		return rc;
	for (tok = strtok_r(a->buf, " \t\n", &save); tok && a->n < UC_MAX_ALLOWED;
	     tok = strtok_r(NULL, " \t\n", &save))
		a->name[a->n++] = tok;
	return 0;
}

int uc_allowed_has(const struct uc_allowed *a, const char *name)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (strcmp(a->name[i], name) == 0)
			return 1;
	return 0;
}
