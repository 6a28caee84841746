/*
 * usercopyctl: report --suggest -- the incidents of log mode (copies the
 * kernel let happen) grouped by memory region, cache and call site, with
 * the bytes they touched and, from the cache's whitelist, what to change
 * so that the code that made them is allowed, or that it is the code
 * to fix.  No output of its own but the table; errors are returned.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "usercopyctl.h"

#define NBUCKETS	256

struct sg_group {
	char *region, *cache, *site;	/* site: "" if the records had none */
	unsigned long long count, start, end;
	int ops;			/* 1: exposure, 2: overwrite */
	size_t order;			/* first seen */
	struct sg_group *next;		/* hash chain */
};

struct uc_suggest {
	const struct uc_whitelist *wl;
	struct sg_group *bucket[NBUCKETS];
	struct sg_group **all;
	size_t n, cap;
};

struct uc_suggest *uc_suggest_new(const struct uc_whitelist *wl)
{
	struct uc_suggest *sg = calloc(1, sizeof(*sg));

	if (sg)
		sg->wl = wl;
	return sg;
}

void uc_suggest_free(struct uc_suggest *sg)
{
	size_t i;

	if (!sg)
		return;
	for (i = 0; i < sg->n; i++) {
		free(sg->all[i]->region);
		free(sg->all[i]->cache);
		free(sg->all[i]->site);
		free(sg->all[i]);
	}
	free(sg->all);
	free(sg);
}

unsigned long long uc_suggest_groups(const struct uc_suggest *sg)
{
	return sg->n;
}

static size_t hash3(const char *a, const char *b, const char *c)
{
	const char *s[3] = { a, b, c };
	size_t h = 2166136261u, i;

	for (i = 0; i < 3; i++) {
		for (; *s[i]; s[i]++)
			h = (h ^ (unsigned char)*s[i]) * 16777619u;
		h = (h ^ 0xff) * 16777619u;
	}
	return h % NBUCKETS;
}

int uc_suggest_add(struct uc_suggest *sg, const struct uc_record *r)
{
	const char *site = r->site ? r->site : "";
	unsigned long long end;
	struct sg_group *g;
	size_t h;

	/* Only what log mode let through: blocked copies may be attacks. */
	if (r->kind != UC_INCIDENT || !(r->has & UC_HAS_RES) || r->res != 1)
		return 0;
	h = hash3(r->region, r->cache, site);
	for (g = sg->bucket[h]; g; g = g->next)
		if (strcmp(g->region, r->region) == 0 && strcmp(g->cache, r->cache) == 0 &&
		    strcmp(g->site, site) == 0)
			break;
	if (!g) {
		if (sg->n == sg->cap) {
			size_t cap = sg->cap ? sg->cap * 2 : 16;
			struct sg_group **v = realloc(sg->all, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			sg->all = v;
			sg->cap = cap;
		}
		g = calloc(1, sizeof(*g));
		if (!g)
			return -ENOMEM;
		g->region = strdup(r->region);
		g->cache = strdup(r->cache);
		g->site = strdup(site);
		if (!g->region || !g->cache || !g->site) {
			free(g->region);
			free(g->cache);
			free(g->site);
			free(g);
			return -ENOMEM;
		}
		g->start = r->offset;
		g->order = sg->n;
		g->next = sg->bucket[h];
		sg->bucket[h] = g;
		sg->all[sg->n++] = g;
	}
	g->count++;
	g->ops |= strcmp(r->op, "overwrite") == 0 ? 2 : 1;
	end = r->offset + r->len < r->offset ? ~0ULL : r->offset + r->len;
	if (r->offset < g->start)
		g->start = r->offset;
	if (end > g->end)
		g->end = end;
	return 0;
}

static int cmp_groups(const void *pa, const void *pb)
{
	const struct sg_group *a = *(struct sg_group *const *)pa;
	const struct sg_group *b = *(struct sg_group *const *)pb;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* The origin of @g's cache and what to do about its copies. */
static const char *advise(const struct uc_suggest *sg, const struct sg_group *g,
			  const char **origin, char *buf, size_t size)
{
	const struct uc_wl_cache *c = NULL;
	unsigned long long a = g->start, b = g->end, u0, u1;

	*origin = NULL;
	if (strcmp(g->region, "slab") != 0 || strcmp(g->cache, "?") == 0)
		return "fix the caller (only slab caches have whitelists)";
	if (!sg->wl) {
		*origin = "unknown";
		snprintf(buf, size, "if %s has no whitelist: whitelist offset %llu, size %llu; "
			 "else widen it or fix the caller (read the whitelist as root to know)",
			 g->cache, a, b - a);
		return buf;
	}
	c = uc_whitelist_find(sg->wl, g->cache);
	if (!c) {
		*origin = "unknown";
		snprintf(buf, size, "%s is not in the whitelist (gone?): fix the caller", g->cache);
		return buf;
	}
	*origin = c->origin;
	if (b > c->size) {
		snprintf(buf, size, "fix the caller: the copy overruns the %llu-byte object", c->size);
		return buf;
	}
	if (strcmp(c->origin, "none") == 0) {
		snprintf(buf, size, "whitelist offset %llu, size %llu "
			 "(kmem_cache_create_usercopy), or create the cache with SLAB_USERCOPY, "
			 "or fix the caller; stop-gap: usercopyctl allow %s",
			 a, b - a, g->cache);
		return buf;
	}
	if (strcmp(c->origin, "region") == 0) {
		u0 = c->useroffset < a ? c->useroffset : a;
		u1 = c->useroffset + c->usersize > b ? c->useroffset + c->usersize : b;
		if (u0 == c->useroffset && u1 == c->useroffset + c->usersize) {
			snprintf(buf, size, "the region (offset %llu, size %llu) covers it now",
				 c->useroffset, c->usersize);
			return buf;
		}
		snprintf(buf, size, "widen the region (offset %llu, size %llu) to offset %llu, "
			 "size %llu, or fix the caller", c->useroffset, c->usersize, u0, u1 - u0);
		return buf;
	}
	snprintf(buf, size, "whitelisted whole now (%s)", c->origin);
	return buf;
}

int uc_suggest_print(struct uc_suggest *sg, const struct uc_output *o,
		     const struct uc_cols *cols, FILE *out)
{
	struct uc_table *t;
	size_t i;
	int rc = 0;

	if (sg->n > 1)
		qsort(sg->all, sg->n, sizeof(*sg->all), cmp_groups);
	t = uc_table_new(o, out, "suggestions", uc_sg_cols, cols);
	if (!t)
		return -ENOMEM;
	for (i = 0; i < sg->n && rc == 0; i++) {
		const struct sg_group *g = sg->all[i];
		const char *cells[UC_SG_NCOLS] = { NULL };
		char count[24], start[24], end[24], advice[512];

		snprintf(count, sizeof(count), "%llu", g->count);
		snprintf(start, sizeof(start), "%llu", g->start);
		snprintf(end, sizeof(end), "%llu", g->end);
		cells[UC_SG_COUNT] = count;
		cells[UC_SG_DIRECTION] = g->ops == 3 ? "both" : g->ops == 2 ? "overwrite" :
					 "exposure";
		cells[UC_SG_REGION] = g->region;
		cells[UC_SG_CACHE] = g->cache;
		cells[UC_SG_SITE] = *g->site ? g->site : NULL;
		cells[UC_SG_START] = start;
		cells[UC_SG_END] = end;
		cells[UC_SG_SUGGESTION] = advise(sg, g, &cells[UC_SG_ORIGIN], advice,
						 sizeof(advice));
		rc = uc_table_add(t, cells);
	}
	if (rc == 0)
		rc = uc_table_print(t);
	uc_table_free(t);
	return rc;
}
