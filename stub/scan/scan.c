/* scan.c: the one walk of the project that decides every mask, deny and
 * prune pattern.
 *
 * getdents64 on directories opened O_NOFOLLOW: symlinks are never
 * followed, only matched by name.  Every entry is classified once by the
 * compiled matcher (match.c): the floating steps, plus the anchored steps
 * its directory carries.  A masked or denied directory is not entered (its
 * whole content disappears under the cover), nor is a pruned one (it stays
 * as it is, unchecked: the policy said so).  The walk checks paths of up to
 * the policy's 'scan depth' components; a directory at that bound is
 * refused (exit 125) or denied as a whole, as the policy says, because a
 * secret the walk did not reach would otherwise be readable.  Every result
 * lives in fixed buffers; running out fails closed for the same reason.
 *
 * Two things a name cannot catch are handled here too:
 *  - another hard link of a matched file (same inode, harmless name): the
 *    matched files' inodes are noted, and only if one has st_nlink > 1 a
 *    second walk masks every other name of it;
 *  - a directory of ours we cannot read (or that sits in a directory of
 *    ours we cannot search): the walk cannot see inside, and the jailed
 *    process, being the owner, could chmod it and look; it is denied as a
 *    whole.  Unreadable directories of other users stay as they are: the
 *    jail has no more rights on them than the caller.
 *
 * The records of the directories read, which the walk checks again and
 * the watcher keeps, are scanidx.c's, below this file. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "scan/scanidx.h"

enum { T_UNKNOWN = 0, T_OTHER = 1, T_DIR = 4, T_REG = 8, T_LNK = 10, T_SOCK = 12 };

#define SCAN_BUF 8192

static char rel[AJ_PATH_MAX]; /* the entry's path relative to the project */
static const struct aj_scan *sc;
static uid_t me;
static bool deny_sockets;
/* The tree changed while it was walked (an entry listed is gone, or leads
 * to another object now): the walk starts again. */
static bool unstable;
static dev_t listing_dev; /* the device of the directory whose entry is being classified */
static bool second_pass;
static uint64_t recent;    /* the walk's start, less two ticks */
static bool relisting;     /* re-reading a directory that changed after the walk read it */
static bool full, reserve; /* no room for a hit; deny_dir's: the reserve may be used */
#define SCAN_RESERVE 4     /* hits kept for the collapses' denies */

#define SCAN_VERIFY_MAX 8
/* One buffer per level (a directory's entries are still being read while
 * its subdirectories are walked); untouched levels cost no memory. */
static _Alignas(8) char dbuf[AJ_SCAN_DEPTH_MAX][SCAN_BUF];

bool (*scan_recorded)(int dfd, const char *name, uint64_t dev, uint64_t ino);

void scan_record_hook(bool (*recorded)(int dfd, const char *name, uint64_t dev, uint64_t ino))
{
	scan_recorded = recorded;
}
/* settle.c's: told of every directory the walk reads; hits' changes. */
int (*scan_on_dir)(int fd, unsigned rec);
unsigned scan_changes;
static bool broken;        /* a directory it could not watch */
static struct stat hit_st; /* the last hit's, st_ino 0: none */
static const char search_hint[] =
    "a directory of the project cannot be searched, so it cannot be checked for secrets; "
    "chmod u+x it";

/* dfd and name: the entry, whose identity the cover will be checked
 * against (dfd < 0: none, an absent guarded path). */
static void add_hit(int dfd, const char *name, uint64_t ino, uint8_t kind, unsigned char type,
                    uint8_t why, size_t len)
{
	struct stat st = {0};

	hit_st.st_ino = 0;
	if (dfd >= 0 && !name) { /* the directory dfd itself */
		if (fstat(dfd, &st))
			diep("inspect", rel, errno, NULL);
	} else if (dfd >= 0 && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT)
			return; /* removed, or moved: verify() finds where to */
		if (errno == ENOTDIR) {
			unstable = true;
			return;
		}
		if (errno != EACCES)
			diep("inspect", rel, errno, NULL);
		st.st_ino = 0; /* in a directory it cannot search: checked by type only */
	}
	if (relisting)
		for (unsigned i = 0; i < hits_cur->n; i++)
			if (!strcmp(hits_cur->arena + hits_cur->hits[i].off, rel))
				return; /* found by the walk already */
	/* The object the listing named, or the tree is moving. */
	if (ino && st.st_ino && st.st_dev == listing_dev && st.st_ino != ino) {
		unstable = true;
		return;
	}
	/* Full: the walk unwinds to deny_dir(), which has the reserve. */
	if (!reserve &&
	    (hits_cur->n >= AJ_SCAN_MAX - SCAN_RESERVE ||
	     hits_cur->used + len + 1 > sizeof(hits_cur->arena) - SCAN_RESERVE * AJ_PATH_MAX)) {
		full = true;
		return;
	}
	if (hits_cur->n == AJ_SCAN_MAX || hits_cur->used + len + 1 > sizeof(hits_cur->arena))
		diep("mask", rel, 0,
		     "too many masked or denied paths in this project; "
		     "narrow the policy's patterns");
	memcpy(hits_cur->arena + hits_cur->used, rel, len + 1);
	hits_cur->hits[hits_cur->n++] = (struct scan_hit){
	    .kind = kind,
	    .isdir = type == T_DIR,
	    .why = why,
	    .islink = type == T_LNK,
	    .off = hits_cur->used,
	    .dev = st.st_dev,
	    .ino = st.st_ino,
	    .mode = (uint16_t)(st.st_mode & 07777),
	};
	hits_cur->used += (uint32_t)len + 1;
	scan_changes++;
	hit_st = st;
}

/* For --jail-explain: how many directories were left unwalked, the first. */
static void note_pruned(size_t len)
{
	unsigned i;

	if (relisting)
		return; /* counted by the walk */
	i = hits_cur->n_pruned++;
	if (second_pass || i >= SCAN_PRUNED_SHOWN)
		return;
	hits_cur->pruned[i] = UINT32_MAX;
	if (hits_cur->used + len + 1 > sizeof(hits_cur->arena))
		return;
	memcpy(hits_cur->arena + hits_cur->used, rel, len + 1);
	hits_cur->pruned[i] = hits_cur->used;
	hits_cur->used += (uint32_t)len + 1;
}

static void note_links(int dfd, const char *name, uint8_t kind)
{
	struct stat st = hit_st; /* add_hit's look at it, when it had one */

	if (!st.st_ino && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		diep("inspect", rel, errno, errno == EACCES ? search_hint : NULL);
	hits_links_note(&st, kind);
}

static uint8_t linked_kind(int dfd, const char *name, uint8_t *why)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno != ENOENT)
			diep("inspect", rel, errno, errno == EACCES ? search_hint : NULL);
		return 0;
	}
	return hits_links_kind(&st, why);
}

static unsigned char type_of(int dfd, const char *name)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno != ENOENT)
			diep("inspect", rel, errno, errno == EACCES ? search_hint : NULL);
		return T_UNKNOWN; /* gone: nothing to hide */
	}
	if (S_ISDIR(st.st_mode))
		return T_DIR;
	if (S_ISLNK(st.st_mode))
		return T_LNK;
	if (S_ISSOCK(st.st_mode))
		return T_SOCK;
	return S_ISREG(st.st_mode) ? T_REG : T_OTHER;
}

static void walk(int dfd, dev_t dev, size_t len, unsigned depth, uint64_t state);

/* The directory at fd (rel, len bytes) denied whole, the hits below it
 * dropped.  Out of room (full), the walk goes on in the parent if that
 * freed some, else the parent is denied in turn; the project cannot be. */
static void deny_dir(int fd, size_t len, uint8_t why)
{

	if (!len)
		die("scan the project", 0,
		    "its top directory alone holds more masked or denied entries than the jail "
		    "can cover one by one; move them into a folder, or narrow the policy's "
		    "patterns");
	rel[len] = '\0';
	hits_drop_below(rel, len);
	full = false;
	add_hit(fd, NULL, 0, AJ_PATTERN_DENY, T_DIR, why, len);
	if (full) {
		/* Still no room: this deny from the reserve, and the parent
		 * is denied in turn (dropping this one). */
		reserve = true;
		add_hit(fd, NULL, 0, AJ_PATTERN_DENY, T_DIR, why, len);
		reserve = false;
	}
}

/* A directory of depth components: walked, or at the bound.  ino is what
 * the listing said (dev the listing directory's): a name that leads
 * elsewhere now was renamed or exchanged since. */
static void enter(int dfd, dev_t dev, const char *name, uint64_t ino, size_t len, unsigned depth,
                  uint64_t state)
{
	struct stat st;
	int fd;

	if (depth >= sc->depth) {
		if (sc->bound != AJ_SCAN_BOUND_DENY)
			diep("scan", rel, 0,
			     "the project is nested deeper than the policy's 'scan depth', so not "
			     "every path can be checked for secrets; raise it, or prune the tree");
		if (!second_pass)
			add_hit(dfd, name, ino, AJ_PATTERN_DENY, T_DIR, SCAN_BY_DEPTH, len);
		return;
	}
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		if (fstat(fd, &st))
			diep("scan", rel, errno, NULL);
		/* Another device: a mount point, whose listed inode is the one
		 * below the mount. */
		if (st.st_dev == dev && ino && st.st_ino != ino) {
			unstable = true;
		} else if (relisting && scanidx_has(st.st_ino)) {
			/* read already, and checked again on its own */
		} else {
			if (!second_pass)
				scanidx_note(&st, rel, len, depth, state, recent);
			if (n_vanished && scanidx_vanished(st.st_ino))
				scanidx_vanished(st.st_ino)->walked = 1;
			/* Watched before it is read: nothing made in between
			 * is missed. */
			if (scan_on_dir && scan_on_dir(fd, *scanidx_slot(st.st_ino) - 1) < 0)
				broken = true;
			walk(fd, st.st_dev, len, depth, state);
			if (full)
				deny_dir(fd, len, SCAN_BY_COUNT);
		}
		close(fd);
		return;
	}
	if (errno == ENOENT)
		return; /* removed (a build's temporary folder), or moved: verify() finds where to
		         */
	if (errno == ENOTDIR || errno == ELOOP) {
		unstable = true; /* listed as a directory, replaced since */
		return;
	}
	if (errno != EACCES)
		diep("scan", rel, errno, NULL);
	if (second_pass)
		return;
	/* Not even stat-able: its parent cannot be searched, and whoever owns
	 * the parent could make it searchable. */
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) && (errno != EACCES || fstat(dfd, &st)))
		diep("inspect", rel, errno, NULL);
	if (st.st_uid == me)
		add_hit(dfd, name, ino, AJ_PATTERN_DENY, T_DIR, SCAN_BY_PERM, len);
}

static void entry(int dfd, dev_t dev, const char *name, uint64_t ino, unsigned char type,
                  size_t len, size_t nl, unsigned depth, uint64_t state)
{
	uint64_t inside = 0;
	uint8_t kind, why;

	listing_dev = dev;
	if (n_vanished && ino && scanidx_vanished(ino))
		scanidx_vanished(ino)->seen = 1;
	if (type == T_UNKNOWN)
		type = type_of(dfd, name);
	if (type == T_UNKNOWN)
		return; /* listed, gone since: verify() finds where it went, if anywhere */
	/* A host service's socket: without the host's network, the jail
	 * reaches no host service through a socket file either. */
	if (type == T_SOCK && deny_sockets) {
		if (!second_pass)
			add_hit(dfd, name, ino, AJ_PATTERN_DENY, type, SCAN_BY_SOCKET, len);
		return;
	}
	/* A symlink is classified as a directory too: a link named secrets/
	 * would otherwise lead past the deny to what it points at. */
	kind = match_classify(sc, name, nl, type == T_DIR || type == T_LNK, state, &inside);
	if (kind == AJ_PATTERN_PRUNE) {
		note_pruned(len);
		return;
	}
	if (kind) {
		if (second_pass)
			return; /* noted by the first walk */
		add_hit(dfd, name, ino, kind, type, SCAN_BY_NAME, len);
		if (type == T_REG)
			note_links(dfd, name, kind);
		return;
	}
	/* An object that held a secret in an earlier run, under any name
	 * now (the fallback's record, fallback.c). */
	if (scan_recorded && scan_recorded(dfd, name, dev, ino)) {
		if (!second_pass)
			add_hit(dfd, name, ino, AJ_PATTERN_DENY, type, SCAN_BY_RECORD, len);
		return;
	}
	if (type == T_DIR) {
		enter(dfd, dev, name, ino, len, depth, inside);
		return;
	}
	if (second_pass && type == T_REG && (kind = linked_kind(dfd, name, &why)))
		add_hit(dfd, name, ino, kind, T_REG, why, len);
}

/* The entries of a directory of depth components (0: the project). */
static void walk(int dfd, dev_t dev, size_t len, unsigned depth, uint64_t state)
{
	struct dir_iter it = {dfd, dbuf[depth], SCAN_BUF, 0, 0};
	unsigned first = hits_cur->n, entries = 0;

	/* rel holds this directory's path again whenever dir_next() reads. */
	for (struct aj_dirent *d;
	     !unstable && !full && (d = dir_next(&it, "scan", len ? rel : "."));) {
		const char *name = d->d_name;
		size_t nl = strlen(name), l = len;

		/* A name whose path no longer fits: what it is cannot be
		 * told by path, nor covered by one; the directory holding
		 * it is denied whole (its own path fits). */
		if (l + nl + 2 > sizeof(rel)) {
			deny_dir(dfd, len, SCAN_BY_LONG);
			return;
		}
		if (l)
			rel[l++] = '/';
		memcpy(rel + l, name, nl + 1);
		entry(dfd, dev, name, d->d_ino, d->d_type, l + nl, nl, depth + 1, state);
		rel[len] = '\0';
		entries++;
	}
	hits_note_entries(first, len, entries);
}

/* After the walk: every directory it read, looked at again by its path
 * (beneath the project, no symlink followed).  Gone or another object: the
 * tree moved, restart (false).  mtime or ctime changed: read again, and
 * what is new in it classified and walked.  Until a round finds nothing
 * changed; after SCAN_VERIFY_MAX rounds a tree still changing is taken if
 * the last round found no new secret (a build making and removing files
 * and folders), else refused.  One removed since is no longer looked at. */
static bool verify(int pfd)
{
	bool changed = true, found = false, lost = false;

	for (unsigned round = 0; changed && round < SCAN_VERIFY_MAX; round++) {
		unsigned hits = hits_cur->n;

		changed = false;
		for (unsigned i = 0; i < n_dirs && !unstable; i++) {
			struct dir_rec *d = &dirs[i];
			const char *p = dir_arena + d->off;
			struct stat st;
			int fd;

			/* One call for the common case, unchanged.  Another inode:
			 * a restart, or, events followed (settle.c), dropped (its
			 * new place is found through its parent's change). */
			if (d->dead)
				continue;
			if (fstatat(pfd, i ? p : ".", &st, AT_SYMLINK_NOFOLLOW)) {
				if (errno != ENOENT)
					return false;
				/* Removed or moved away: its parent changed too, and
				 * where it went is read again with that. */
				d->mtime = d->ctime = 0;
				continue;
			}
			if (st.st_ino != d->ino && !(scan_on_dir && (d->dead = 1)))
				return false;
			if (d->dead)
				continue;
			d->recent = scanidx_ns(&st.st_ctim) >= recent;
			if (scanidx_ns(&st.st_mtim) == d->mtime &&
			    scanidx_ns(&st.st_ctim) == d->ctime)
				continue;
			fd = i ? openat2_(pfd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW,
			                  RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			                      RESOLVE_NO_MAGICLINKS)
			       : openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0 || fstat(fd, &st) || st.st_ino != d->ino) {
				if (fd >= 0)
					close(fd);
				return false;
			}
			changed = true;
			d->mtime = scanidx_ns(&st.st_mtim);
			d->ctime = scanidx_ns(&st.st_ctim);
			memcpy(rel, p, strlen(p) + 1);
			relisting = true;
			walk(fd, st.st_dev, strlen(p), d->depth, d->state);
			relisting = false;
			if (full)
				deny_dir(fd, strlen(p), SCAN_BY_COUNT);
			close(fd);
		}
		if (unstable)
			return false;
		/* New folders are a build's; a new secret is something moving. */
		found = hits_cur->n != hits;
	}
	rel[0] = '\0';
	for (unsigned i = 0; i < n_vanished; i++)
		lost |= vanished[i].seen && !vanished[i].walked;
	if ((changed && found) || lost)
		die("scan the project", 0,
		    "folders keep moving in it while it is checked for secrets; stop what is "
		    "moving them, and try again");
	return true;
}

/* An absent guarded path's first missing part (guards.c), for the
 * fence: kind 0, no cover. */
void scan_add_guard(const char *path, size_t len)
{
	memcpy(rel, path, len);
	rel[len] = '\0';
	add_hit(-1, NULL, 0, 0, T_UNKNOWN, SCAN_BY_GUARD, len);
	rel[0] = '\0';
}

static bool setup(const struct aj_variant *v)
{
	sc = v->scan;
	deny_sockets = v->network != AJ_NET_HOST;
	if (!sc->n_floating && !sc->n_steps && !sc->n_guards && !deny_sockets)
		return false;
	if (sc->depth < 1 || sc->depth > AJ_SCAN_DEPTH_MAX || sc->n_steps > AJ_SCAN_STEPS)
		die("read the policy", 0, "its scan table was compiled for another stub");
	me = getuid();
	return true;
}

/* The walk of the project at fd (st), and what it found. */
static void walk_all(int fd, const struct stat *st, const char *project)
{
	/* A walk that saw the tree move is not trusted: it may have listed a
	 * directory twice under two names and missed the other.  Again, from
	 * the start, a few times; a tree that never holds still fails closed. */
	for (unsigned attempt = 0;; attempt++) {
		unstable = second_pass = false;
		scanidx_reset();
		full = false;
		hits_links_reset();
		hits_cur->n = hits_cur->used = hits_cur->n_pruned = 0;
		{
			struct timespec now, tick = {0, SCAN_RECENT_NS / 2};

			syscall(SYS_clock_gettime, CLOCK_REALTIME, &now);
			syscall(SYS_clock_getres, CLOCK_REALTIME_COARSE, &tick);
			recent = scanidx_ns(&now) - (scanidx_ns(&tick) < SCAN_RECENT_NS / 2
			                                 ? 2 * scanidx_ns(&tick)
			                                 : SCAN_RECENT_NS);
		}
		rel[0] = '\0';
		if (lseek(fd, 0, SEEK_SET))
			diep("scan", project, errno, NULL);
		scanidx_note(st, rel, 0, 0, sc->start, recent);
		if (scan_on_dir && scan_on_dir(fd, 0) < 0)
			broken = true;
		walk(fd, st->st_dev, 0, 0, sc->start);
		if (full)
			deny_dir(fd, 0, SCAN_BY_COUNT);
		if (!unstable && !verify(fd))
			unstable = true;
		if (hits_links() && !unstable) {
			second_pass = true;
			if (lseek(fd, 0, SEEK_SET))
				diep("scan", project, errno, NULL);
			walk(fd, st->st_dev, 0, 0, sc->start);
			if (full)
				deny_dir(fd, 0, SCAN_BY_COUNT);
		}
		if (!unstable)
			break;
		if (attempt == 3)
			die("scan the project", 0,
			    "its directories were renamed or replaced while it was checked for "
			    "secrets, four times; stop what is moving them, and try again");
	}
}

bool scan_needed(const struct aj_variant *v)
{
	return setup(v);
}

unsigned scan_dirs(void)
{
	return n_dirs;
}

/* ---- the index the watcher keeps (watchd.c) -------------------------------
 *
 * The walk's records and hits, kept current event by event: whatever an
 * event names is dropped (with everything below it, for a directory) and
 * classified again from its directory's record, as the walk would have
 * (a new directory is watched, then walked).  A record whose path leads
 * elsewhere now belongs to a directory moved since: the move's own events
 * drop it and walk it where it went. */

/* The whole walk, into the index; false: nothing to scan, or no index
 * can be kept (a directory that could not be watched). */
bool scan_walk(int pfd, const struct aj_variant *v)
{
	struct stat st;

	broken = false;
	if (!setup(v))
		return false;
	if (fstat(pfd, &st))
		die("scan", errno, NULL);
	walk_all(pfd, &st, ".");
	return !broken;
}

bool scan_verify(int pfd)
{
	return verify(pfd);
}

static size_t rec_path(unsigned rec, const char *name)
{
	const char *p = dir_arena + dirs[rec].off;
	size_t pl = strlen(p), nl = name ? strlen(name) : 0, l = pl;

	if (pl + nl + 2 > sizeof(rel))
		return 0;
	memcpy(rel, p, pl);
	if (l && name)
		rel[l++] = '/';
	memcpy(rel + l, name ? name : "", nl + 1);
	return l + nl;
}

static bool at_or_below(const char *p, size_t len, bool tree)
{
	return !strncmp(p, rel, len) && (!p[len] || (tree && p[len] == '/'));
}

/* What the index holds at name in rec's directory; tree: below it too. */
void scan_drop(unsigned rec, const char *name, bool tree)
{
	size_t len;

	if (!scanidx_live(rec) || !(len = rec_path(rec, name)))
		return;
	for (unsigned i = 0; i < hits_cur->n;) {
		if (at_or_below(hits_cur->arena + hits_cur->hits[i].off, len, tree)) {
			hits_cur->hits[i] = hits_cur->hits[--hits_cur->n];
			scan_changes++;
		} else {
			i++;
		}
	}
	if (tree)
		for (unsigned i = 1; i < n_dirs; i++)
			if (!dirs[i].dead && at_or_below(dir_arena + dirs[i].off, len, true))
				dirs[i].dead = 1;
	rel[0] = '\0';
}

/* name in rec's directory, classified again (and walked, a directory);
 * NULL: the whole directory read again (watched first).  1: name, or the
 * directory, is not there now; -1: the index cannot be trusted any more
 * (a directory not watched, a path too long, the directory unreadable). */
int scan_redo(int pfd, unsigned rec, const char *name)
{
	const struct dir_rec *d = &dirs[rec];
	struct stat st, es;
	size_t len;
	int fd, gone = 0;

	if (!scanidx_live(rec))
		return 0;
	if (!(len = rec_path(rec, name)) && (name || rec))
		return -1;
	fd = rec ? openat2_(pfd, dir_arena + d->off, O_RDONLY | O_DIRECTORY | O_NOFOLLOW,
	                    RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)
	         : openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || st.st_ino != d->ino) {
		bool moved = fd >= 0 || errno == ENOENT || errno == ENOTDIR || errno == EXDEV ||
		             errno == ELOOP;

		if (fd >= 0)
			close(fd);
		rel[0] = '\0';
		return moved ? 1 : -1; /* moved away since: its move's events say where */
	}
	unstable = broken = full = false;
	relisting = true;
	if (name && (gone = fstatat(fd, name, &es, AT_SYMLINK_NOFOLLOW) != 0, 1))
		entry(fd, st.st_dev, name, 0, T_UNKNOWN, len, strlen(name), d->depth + 1u,
		      d->state);
	else if (!scan_on_dir || scan_on_dir(fd, rec) >= 0)
		walk(fd, st.st_dev, len, d->depth, d->state);
	else
		broken = true;
	relisting = false;
	/* Out of room in the watcher's index: the walk is what decides. */
	if (full)
		broken = true;
	close(fd);
	rel[0] = '\0';
	return broken ? -1 : gone;
}

/* mem: a zeroed scanidx_size() bytes, or NULL for the launch's own;
 * v: the table whose index it is (setup() for the events to come). */
void scan_index_use(void *mem, const struct aj_variant *v)
{
	scanidx_use(mem);
	if (v)
		(void)setup(v);
}
