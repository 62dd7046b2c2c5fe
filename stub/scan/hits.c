/* hits.c: the table of what the walk found (scan.c) and the watcher
 * keeps (watchd.c), and the hard links of matched files.  Apart from the
 * walk, so that the walk, settle.c and guards.c share it without
 * calling each other. */
#include <string.h>
#include <sys/stat.h>

#include "scan/scan.h"

/* The launch's; the watcher switches to an index's own (scanidx.c). */
static struct scan_result result0;
static struct scan_links links0;
struct scan_result *scan = &result0;
struct scan_links *scan_lk = &links0;

void hits_use(struct scan_result *r, struct scan_links *l)
{
	scan = r ? r : &result0;
	scan_lk = l ? l : &links0;
}

/* The links table is the index's (scanidx.c: the watcher keeps one per
 * scan table); links_full: more matched files with other hard links than
 * the table holds, so their other names cannot be told from any other
 * file's and the second walk denies every regular file with more than
 * one link that no name matched. */
#define links      (scan_lk->e)
#define n_links    (scan_lk->n)
#define links_full (scan_lk->full)

void links_reset(void)
{
	n_links = 0;
	links_full = false;
}

/* A matched file (st): its other names are looked for when it has some.
 * Every matched name of one file is noted once: a file with many names
 * that all match fills nothing. */
void links_note(const struct stat *st, uint8_t kind)
{
	if (st->st_nlink < 2 || !S_ISREG(st->st_mode))
		return;
	for (unsigned i = 0; i < n_links; i++)
		if (links[i].ino == st->st_ino && links[i].dev == st->st_dev)
			return;
	if (n_links == AJ_SCAN_LINKS) {
		links_full = true;
		return;
	}
	links[n_links].dev = st->st_dev;
	links[n_links].ino = st->st_ino;
	links[n_links].kind = kind;
	n_links++;
}

/* An unmatched file (st): the kind of the matched file it is another
 * name of, or 0. */
uint8_t links_kind(const struct stat *st, uint8_t *why)
{
	*why = SCAN_BY_HARDLINK;
	for (unsigned i = 0; i < n_links; i++)
		if (links[i].ino == st->st_ino && links[i].dev == st->st_dev)
			return links[i].kind;
	*why = SCAN_BY_LINKS;
	if (links_full && S_ISREG(st->st_mode) && st->st_nlink > 1)
		return AJ_PATTERN_DENY; /* could be another name of any of them */
	return 0;
}

unsigned scan_links(void)
{
	return n_links + links_full;
}

void scan_links_clear(void)
{
	links_reset();
}

/* The hits at path (len bytes) and below it dropped, in order (covers go
 * on parents after children), their paths packed. */
void scan_drop_below(const char *path, size_t len)
{
	unsigned kept = 0;

	for (unsigned i = 0; i < scan->n; i++) {
		const char *p = scan->arena + scan->hits[i].off;

		if (strncmp(p, path, len) || (p[len] && p[len] != '/'))
			scan->hits[kept++] = scan->hits[i];
	}
	scan->n = kept;
	scan_compact();
}

/* The hits' paths packed again, those removed since gone. */
void scan_compact(void)
{
	static char tmp[AJ_SCAN_ARENA];
	uint32_t used = 0;

	for (unsigned i = 0; i < scan->n; i++) {
		const char *p = scan->arena + scan->hits[i].off;
		size_t l = strlen(p) + 1;

		memcpy(tmp + used, p, l);
		scan->hits[i].off = used;
		used += (uint32_t)l;
	}
	/* The pruned directories' names, for --jail-explain. */
	for (unsigned i = 0; i < scan->n_pruned && i < SCAN_PRUNED_SHOWN; i++) {
		const char *p = scan->arena + scan->pruned[i];
		size_t l;

		if (scan->pruned[i] == UINT32_MAX)
			continue;
		l = strlen(p) + 1;
		memcpy(tmp + used, p, l);
		scan->pruned[i] = used;
		used += (uint32_t)l;
	}
	memcpy(scan->arena, tmp, used);
	scan->used = used;
}

/* The hits from first on that lie directly in the directory whose path
 * is len bytes long, just listed with entries entries: mask.c covers a
 * folder mostly of hits with one mount. */
void scan_note_entries(unsigned first, size_t len, unsigned entries)
{
	for (unsigned i = first; i < scan->n; i++) {
		const char *p = scan->arena + scan->hits[i].off + len + !!len;

		if (!strchr(p, '/'))
			scan->hits[i].dir_entries = entries;
	}
}
