/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slabinfo.h: the memory of slab caches, from /proc/slabinfo, for the
 * guest programs (usercopy-test, ucbench).  Header only, as ktap.h.
 */
#ifndef SLABINFO_H
#define SLABINFO_H

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/*
 * The memory of the caches named @prefix and a size ("kmalloc-" finds
 * kmalloc-64, not kmalloc-cg-64), or of every cache for "", in KiB, from
 * /proc/slabinfo (name active num objsize perslab pagesperslab : ... :
 * slabdata active_slabs num_slabs ...); their number in @caches.
 */
static long slab_kib(const char *prefix, int *caches)
{
	size_t len = strlen(prefix);
	char name[64], line[512];
	unsigned long pages, slabs;
	long kib = 0;
	FILE *f = fopen("/proc/slabinfo", "r");

	*caches = 0;
	while (f && fgets(line, sizeof(line), f)) {
		const char *sd = strstr(line, "slabdata");

		if (strncmp(line, prefix, len) ||
		    (len && !isdigit((unsigned char)line[len])) || !sd ||
		    sscanf(line, "%63s %*u %*u %*u %*u %lu", name, &pages) != 2 ||
		    sscanf(sd, "slabdata %*u %lu", &slabs) != 1)
			continue;
		kib += slabs * pages * 4;
		(*caches)++;
	}
	if (f)
		fclose(f);
	return kib;
}

#endif
