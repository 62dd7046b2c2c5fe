/* scanidx.c: the index of a walk: every directory it read, as it was
 * just before (scanidx.h tells why), found by inode.  A launch has one;
 * the watcher one per scan table it serves (watchd.c), switched with
 * scan_index_use().  Below the walk (scan.c), which fills it and reads it
 * again; this file calls no function of the walk's. */
#include <string.h>
#include <sys/stat.h>

#include "scan/scanidx.h"

/* index0's result and links go unused: the launch's are hits.c's. */
static struct scan_index index0;
struct scan_index *scanidx_cur = &index0;

uint32_t *scanidx_slot(uint64_t ino)
{
	uint32_t h = (uint32_t)(ino * 0x9e3779b97f4a7c15ULL >> 40) & (SCAN_DIR_HASH - 1);

	while (dir_hash[h] && dirs[dir_hash[h] - 1].ino != ino)
		h = (h + 1) & (SCAN_DIR_HASH - 1);
	return &dir_hash[h];
}

bool scanidx_has(uint64_t ino)
{
	uint32_t slot = *scanidx_slot(ino);

	return slot && !dirs[slot - 1].dead;
}

/* A directory about to be read (path, len bytes), as fstat saw it before. */
void scanidx_note(const struct stat *st, const char *path, size_t len, unsigned depth,
                  uint64_t state, uint64_t recent)
{
	uint32_t *slot = scanidx_slot(st->st_ino);
	struct dir_rec *d;

	if (*slot && !dirs[*slot - 1].dead)
		return; /* the same directory under a second name: a hard link, never */
	if (n_dirs == SCAN_DIRS || dir_used + len + 1 > sizeof(dir_arena))
		diep("scan", path, 0,
		     "the project has too many directories to check them all for secrets "
		     "(65536); prune the large trees in the policy ('scan prune')");
	d = &dirs[n_dirs];
	d->ino = st->st_ino;
	d->mtime = scanidx_ns(&st->st_mtim);
	d->ctime = scanidx_ns(&st->st_ctim);
	d->state = state;
	d->depth = (uint16_t)depth;
	d->dead = 0, d->recent = scanidx_ns(&st->st_ctim) >= recent;
	d->off = dir_used;
	memcpy(dir_arena + dir_used, path, len);
	dir_arena[dir_used + len] = '\0';
	dir_used += (uint32_t)len + 1;
	*slot = ++n_dirs;
}

struct scan_vanished *scanidx_vanished(uint64_t ino)
{
	for (unsigned i = 0; i < n_vanished; i++)
		if (vanished[i].ino == ino)
			return &vanished[i];
	return NULL;
}

/* Emptied for a new walk, slot by slot, the latest first (so that each
 * probe still finds its own): the table is mostly untouched memory. */
void scanidx_reset(void)
{
	while (n_dirs) {
		*scanidx_slot(dirs[n_dirs - 1].ino) = 0;
		n_dirs--;
	}
	dir_used = n_vanished = 0;
}

/* mem: a zeroed scanidx_size() bytes, or NULL for the launch's own. */
void scanidx_use(void *mem)
{
	scanidx_cur = mem ? mem : &index0;
	hits_use(mem ? &scanidx_cur->result : NULL, mem ? &scanidx_cur->links : NULL);
}

/* Too many records of directories gone since: a new index packs them. */
bool scanidx_full(void)
{
	return n_dirs > SCAN_DIRS - SCAN_DIRS / 4 || dir_used > SCAN_DIR_ARENA - SCAN_DIR_ARENA / 4;
}

bool scanidx_live(unsigned rec)
{
	return rec < n_dirs && !dirs[rec].dead;
}

bool scanidx_recent(unsigned rec)
{
	return scanidx_live(rec) && dirs[rec].recent;
}

size_t scanidx_size(void)
{
	return sizeof(struct scan_index);
}

uint64_t scanidx_ino(unsigned rec)
{
	return rec < n_dirs ? dirs[rec].ino : 0;
}

/* The live record of the directory with inode ino, or -1: not in this
 * index (pruned, covered, gone). */
int scanidx_by_ino(uint64_t ino)
{
	uint32_t slot = *scanidx_slot(ino);

	return slot && !dirs[slot - 1].dead ? (int)slot - 1 : -1;
}
