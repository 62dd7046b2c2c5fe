/* hits.c: the table of what the walk found (scan.c) and the watcher
 * keeps (watchd.c), and the hard links of matched files.  Apart from the
 * walk, so that the walk, settle.c and guards.c share it without
 * calling each other. */
#include <string.h>
#include <sys/stat.h>

#include "scan/scan.h"

/* The launch's; the watcher switches to an index's own (scanidx.c). */
static struct scan_result result0;
static struct hits_links links0;
struct scan_result *hits_cur = &result0;

/* The index in use, for the rooms above: they read it through this, never
 * the variable, so that only scan/ decides which index is current. */
struct scan_result *hits_now(void)
{
	return hits_cur;
}
struct hits_links *hits_lk = &links0;

void hits_use(struct scan_result *r, struct hits_links *l)
{
	hits_cur = r ? r : &result0;
	hits_lk = l ? l : &links0;
}

/* The links table is the index's (scanidx.c: the watcher keeps one per
 * scan table); links_full: more matched files with other hard links than
 * the table holds, so their other names cannot be told from any other
 * file's and the second walk denies every regular file with more than
 * one link that no name matched. */
#define links      (hits_lk->e)
#define n_links    (hits_lk->n)
#define links_full (hits_lk->full)

/* The unmatched regular files' identities, as listed: 2^20 bits, 128 KiB
 * (a 100,000-file project sets about a tenth; a set bit only costs a
 * look).  One table for every index: it is only read at the end of a
 * walk that filled it. */
#define SEEN_BITS 20
static uint64_t seen[(1u << SEEN_BITS) / 64];
static bool seen_any;

static uint32_t seen_bit(uint64_t dev, uint64_t ino)
{
	return (uint32_t)(((ino ^ (dev * 0xff51afd7ed558ccdULL)) * 0x9e3779b97f4a7c15ULL) >>
	                  (64 - SEEN_BITS));
}

void hits_seen_add(uint64_t dev, uint64_t ino)
{
	uint32_t b = seen_bit(dev, ino);

	seen[b / 64] |= 1ULL << (b % 64);
	seen_any = true;
}

bool hits_seen(uint64_t dev, uint64_t ino)
{
	uint32_t b = seen_bit(dev, ino);

	return seen[b / 64] & (1ULL << (b % 64));
}

void hits_links_reset(void)
{
	n_links = 0;
	links_full = false;
	if (seen_any) /* a launch's first walk finds it untouched */
		memset(seen, 0, sizeof(seen));
	seen_any = false;
}

/* A matched file (st): its other names are looked for when it has some.
 * Every matched name of one file is noted once: a file with many names
 * that all match fills nothing. */
void hits_links_note(const struct stat *st, uint8_t kind)
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
uint8_t hits_links_kind(const struct stat *st, uint8_t *why)
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

unsigned hits_links(void)
{
	return n_links + links_full;
}

void hits_links_clear(void)
{
	hits_links_reset();
}

/* The hits at path (len bytes) and below it dropped, in order (covers go
 * on parents after children), their paths packed. */
void hits_drop_below(const char *path, size_t len)
{
	unsigned kept = 0;

	for (unsigned i = 0; i < hits_cur->n; i++) {
		const char *p = hits_cur->arena + hits_cur->hits[i].off;

		if (strncmp(p, path, len) || (p[len] && p[len] != '/'))
			hits_cur->hits[kept++] = hits_cur->hits[i];
	}
	hits_cur->n = kept;
	hits_compact();
}

/* The hits' paths packed again, those removed since gone. */
void hits_compact(void)
{
	static char tmp[AJ_SCAN_ARENA];
	uint32_t used = 0;

	for (unsigned i = 0; i < hits_cur->n; i++) {
		const char *p = hits_cur->arena + hits_cur->hits[i].off;
		size_t l = strlen(p) + 1;

		memcpy(tmp + used, p, l);
		hits_cur->hits[i].off = used;
		used += (uint32_t)l;
	}
	/* The pruned directories' names, for --jail-explain. */
	for (unsigned i = 0; i < hits_cur->n_pruned && i < SCAN_PRUNED_SHOWN; i++) {
		const char *p = hits_cur->arena + hits_cur->pruned[i];
		size_t l;

		if (hits_cur->pruned[i] == UINT32_MAX)
			continue;
		l = strlen(p) + 1;
		memcpy(tmp + used, p, l);
		hits_cur->pruned[i] = used;
		used += (uint32_t)l;
	}
	memcpy(hits_cur->arena, tmp, used);
	hits_cur->used = used;
}

/* The hits from first on that lie directly in the directory whose path
 * is len bytes long, just listed with entries entries: mask.c covers a
 * folder mostly of hits with one mount. */
void hits_note_entries(unsigned first, size_t len, unsigned entries)
{
	for (unsigned i = first; i < hits_cur->n; i++) {
		const char *p = hits_cur->arena + hits_cur->hits[i].off + len + !!len;

		if (!strchr(p, '/'))
			hits_cur->hits[i].dir_entries = entries;
	}
}
