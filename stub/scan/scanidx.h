/* scanidx.h: the index of a walk (scanidx.c): the records of the
 * directories it read, which the walk (scan.c) writes and reads again.
 * Included by these two files only: the rest of the stub sees an index
 * through stub.h's scan_* calls. */
#ifndef AJ_STUB_SCANIDX_H
#define AJ_STUB_SCANIDX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "scan/scan.h"

/* Directories listed, then gone when entered: removed (never listed again)
 * or moved (listed again, walked there); one listed again but never walked
 * moves faster than the walk follows: the jail does not start.  One
 * changed within two ticks of the walk: settle.c (scanidx_recent). */
#define SCAN_VANISHED  16
#define SCAN_RECENT_NS 20000000ULL

/* Every directory the walk read, as it was just before it was read: a
 * directory an entry moved into after that (a concurrent jail moving a
 * folder of secrets from a place not read yet into one read already) has
 * another mtime or ctime when the walk is done, and is read again. */
#define SCAN_DIRS      65536
#define SCAN_DIR_ARENA (4 << 20)
#define SCAN_DIR_HASH  (2 * SCAN_DIRS)
struct dir_rec {
	uint64_t ino, mtime, ctime, state;
	uint32_t off; /* path in dir_arena ("" for the project) */
	uint16_t depth;
	uint8_t dead;   /* the watcher's: no longer in the tree at that path */
	uint8_t recent; /* changed within two ticks of the walk */
};
struct scan_vanished {
	uint64_t ino;
	uint8_t seen, walked;
};
/* The index: what one scan table's walk found and recorded.  A launch has
 * one; the watcher one per scan table it serves, switched with
 * scan_index_use() (one inotify instance watches for them all). */
struct scan_index {
	struct scan_result result;
	struct dir_rec dirs[SCAN_DIRS];
	uint32_t dir_hash[SCAN_DIR_HASH]; /* index + 1, by inode */
	char dir_arena[SCAN_DIR_ARENA];
	unsigned n_dirs, n_vanished;
	uint32_t dir_used;
	struct hits_links links; /* hits.c's */
	struct scan_vanished vanished[SCAN_VANISHED];
};
extern struct scan_index *scanidx_cur; /* scan_index_use()'s */
/* The index in use, by the walk's old names for its parts. */
#define dirs       (scanidx_cur->dirs)
#define n_dirs     (scanidx_cur->n_dirs)
#define dir_used   (scanidx_cur->dir_used)
#define dir_arena  (scanidx_cur->dir_arena)
#define dir_hash   (scanidx_cur->dir_hash)
#define vanished   (scanidx_cur->vanished)
#define n_vanished (scanidx_cur->n_vanished)

static inline uint64_t scanidx_ns(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000u + (uint64_t)t->tv_nsec;
}

uint32_t *scanidx_slot(uint64_t ino);
bool scanidx_has(uint64_t ino);
void scanidx_note(const struct stat *st, const char *path, size_t len, unsigned depth,
                  uint64_t state, uint64_t recent);
struct scan_vanished *scanidx_vanished(uint64_t ino);
void scanidx_reset(void);
void scanidx_use(void *mem);

#endif
