/* scan/scan.h: the interface of the room scan/: the project's scan: the matcher, the walk, its
 * watches and the watcher, the hits, git's index. Included by its files and by the rooms above it
 * (docs/layout.md). */
#ifndef AJ_STUB_SCAN_H
#define AJ_STUB_SCAN_H

#include "base/base.h"
#include "variant/variant.h"

/* match.c: the compiled mask/deny/prune matcher.  match_classify() returns
 * the kind an entry gets (0: none) and, for a directory, the anchored steps
 * active inside it. */
bool match_step(const struct aj_scan *sc, const struct aj_step *st, const char *name, size_t len);
uint8_t match_classify(const struct aj_scan *sc, const char *name, size_t len, bool isdir,
                       uint64_t state, uint64_t *inside);

/* scan.c (walk.c below it) */
struct scan_hit {
	uint8_t kind; /* AJ_PATTERN_MASK or AJ_PATTERN_DENY; 0: no cover (SCAN_BY_GUARD) */
	uint8_t isdir;
	uint8_t why; /* SCAN_BY_* */
	uint8_t islink;
	uint32_t off;   /* relative path in the arena */
	uint64_t dev;   /* what the scan saw there: a cover goes on that object only */
	uint64_t ino;   /* 0: not known (an entry in a directory it could not search) */
	uint16_t mode;  /* its permission bits, as the scan saw them (a stand-in shows them) */
	uint8_t listed; /* dev and ino are its listing's (the directory's device, d_ino): not
	                 * looked at, pid 1 covering its folder whole (SCAN_DIR_MIN) */
	uint32_t dir_entries; /* entries its directory had when listed (0: not known) */
};
#define SCAN_BY_NAME     0
#define SCAN_BY_HARDLINK 1 /* another name of a matched file */
#define SCAN_BY_PERM     2 /* a directory of ours we could not read */
#define SCAN_BY_DEPTH    3 /* at the policy's depth bound ('scan depth N deny') */
#define SCAN_BY_GUARD    4 /* kind 0: a guarded path, absent (its first missing part) */
#define SCAN_BY_SOCKET   5 /* a Unix socket, in a jail without the host's network */
/* Past what the walk can check, denied whole rather than refused: */
#define SCAN_BY_LONG      6 /* a directory holding a name whose path exceeds AJ_PATH_MAX */
#define SCAN_BY_LINKS     7 /* a file with other hard links, the link table full */
#define SCAN_BY_COUNT     8 /* a directory below which the hits no longer fit */
#define SCAN_BY_RECORD    9 /* an object that held a secret in an earlier run (fallback.c) */
#define SCAN_BY_N         10
#define SCAN_PRUNED_SHOWN 8 /* pruned directories --jail-explain names */
/* A folder holding at least SCAN_DIR_MIN hits of its own, at least half of
 * its entries, gets one cover for all of them (root/mask.c); past
 * SCAN_STAND_IN_MAX hits they get no stand-in (absent).  The walk's too:
 * such a folder's denied files, or all its files past that bound, need
 * no look of their own (scan.c, defer_settle). */
#define SCAN_DIR_MIN      16
#define SCAN_STAND_IN_MAX 256
struct scan_result {
	uint32_t n;
	uint32_t used;                      /* bytes of arena */
	uint32_t n_pruned;                  /* directories not walked (prune patterns) */
	uint32_t pruned[SCAN_PRUNED_SHOWN]; /* the first ones' paths, in the arena */
	struct scan_hit hits[AJ_SCAN_MAX];
	char arena[AJ_SCAN_ARENA];
};
extern struct scan_result *hits_cur; /* the index in use (scan_index_use) */
struct scan_result *hits_now(void);  /* the same, for the rooms above */
/* The hard links of matched files (hits.c), the index's. */
struct hits_links {
	struct {
		uint64_t dev, ino;
		uint8_t kind;
	} e[AJ_SCAN_LINKS];
	unsigned n;
	bool full;
};
extern struct hits_links *hits_lk;
void hits_use(struct scan_result *r, struct hits_links *l); /* NULL: the launch's */
void settle_project(const char *project, const struct aj_variant *v);
unsigned scan_dirs(void);
void guards_scan(int project_fd, const struct aj_variant *v);
/* The index the watcher keeps (scanidx.c's records and hits.c's hits, watchd.c);
 * walk.c's hook: settle.c's, told of every directory the walk reads. */
extern int (*walk_on_dir)(int fd, unsigned rec);
/* The fallback's record of the project's secrets: is this entry one?
 * (ino 0: not known from the listing.) */
extern bool (*walk_recorded)(int dfd, const char *name, uint64_t dev, uint64_t ino);
void scan_record_hook(bool (*recorded)(int dfd, const char *name, uint64_t dev, uint64_t ino));
extern unsigned walk_changes;     /* the hits' changes */
unsigned scan_change_count(void); /* the same, for the watcher */
bool scan_needed(const struct aj_variant *v);
bool scan_walk(int project_fd, const struct aj_variant *v);
size_t scanidx_size(void);
void scan_index_use(void *mem, const struct aj_variant *v);
uint64_t scanidx_ino(unsigned rec);
int scanidx_by_ino(uint64_t ino);
unsigned hits_links(void);
/* hits.c: the hard links of matched files, the table's upkeep. */
struct stat;
void hits_links_reset(void);
void hits_links_note(const struct stat *st, uint8_t kind);
uint8_t hits_links_kind(const struct stat *st, uint8_t *why);
void hits_drop_below(const char *path, size_t len);
void hits_note_entries(unsigned first, size_t len, unsigned entries);
void scan_add_guard(const char *path, size_t len); /* guards.c's */
void hits_links_clear(void);
/* Which (device, inode) an unmatched regular file of the walk had, by its
 * listing: a superset (a bit per hash), read for the matched files never
 * looked at (scan.c, links_listed). */
void hits_seen_add(uint64_t dev, uint64_t ino);
bool hits_seen(uint64_t dev, uint64_t ino);
/* settle.c: the walk's watches and their events (settle_project is there). */
#define SCAN_EV_NONE 0  /* no event */
#define SCAN_EV_SOME 1  /* events, applied to the index */
#define SCAN_EV_LOST -1 /* events lost or not followed: walk again */
#define SCAN_EV_GONE -2 /* the project itself was removed */
int settle_watch_begin(void);
void settle_watch_end(void);
int settle_events(int project_fd, unsigned reads); /* reads 0: until empty */
long settle_events_read(char *buf, size_t size);
int settle_events_apply(int project_fd, const char *buf, long n);
void settle_events_done(const char *buf, long n);
extern unsigned settle_watches, settle_watch_budget;
extern bool settle_over_budget;
unsigned settle_watch_count(void); /* settle_watches, for the watcher */
void settle_budget_set(unsigned budget);
bool settle_over(bool clear);
extern unsigned settle_unresolved;
void settle_watch_close(void);
bool scanidx_recent(unsigned rec);
bool scan_verify(int project_fd);
bool scanidx_live(unsigned rec);
bool scanidx_full(void);
void hits_compact(void);
void scan_drop(unsigned rec, const char *name, bool tree);
int scan_redo(int project_fd, unsigned rec, const char *name);

/* git.c: which hits a git repository tracks, from its index (the
 * masks among them become denies; one warning line names them).
 * gitindex_parse() (gitindex.c) calls fn on each entry's path until fn returns nonzero;
 * it returns the entries seen, or a GI_E* error.  git_note() is
 * --jail-explain's word on hit i ("\t(...)", or ""). */
#define GI_ESIG     (-1) /* not an index ("DIRC") */
#define GI_EVERSION (-2) /* not version 2, 3 or 4 */
#define GI_ETRUNC   (-3) /* an entry runs past the end */
#define GI_EFLAGS   (-4) /* extended flags before version 3 */
#define GI_ENAME    (-5) /* a path that contradicts its length, or too long */
#define GI_ETOOBIG  (-6) /* larger than GI_INDEX_MAX: not read at all */
/* The most of an index read, in bytes.  The index is in the project,
 * which the jail writes: an index of git's own for 600,000 files is
 * about 60 MiB; past this, the reader's time is the jail's to choose, and
 * what the index would have said stays unknown (the masks stay masks). */
#define GI_INDEX_MAX (64u << 20)
typedef int git_index_fn(void *ctx, const char *path, size_t len, uint32_t mode);
int gitindex_parse(const unsigned char *p, size_t len, size_t hashsz, git_index_fn *fn, void *ctx);
int gitindex_read(int fd, size_t size, git_index_fn *fn, void *ctx); /* the file, bounded by size */
void git_tracked_scan(struct scan_result *res, int project_fd, const char *project);
const char *git_note(unsigned hit);
/* The watcher's: git_memo nonzero, an index's look is replayed while the
 * index file and the hits (git_memo, their generation) are unchanged;
 * git_notes() what the last scan noted, git_notes_apply() the same from a
 * watcher's answer (and the warning). */
extern unsigned git_memo;
void git_memo_set(unsigned generation); /* the watcher's */
const uint8_t *git_notes(void);
void git_notes_apply(struct scan_result *res, const uint8_t *notes);

#endif
