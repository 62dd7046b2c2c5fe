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
 *    second walk masks every other name of it.  A matched file in a folder
 *    pid 1 covers whole is known by its listing alone (walk.c,
 *    defer_settle): its link count is only read when an unmatched
 *    regular file was listed with its inode (walk_links_listed);
 *  - a directory of ours we cannot read (or that sits in a directory of
 *    ours we cannot search): the walk cannot see inside, and the jailed
 *    process, being the owner, could chmod it and look; it is denied as a
 *    whole.  Unreadable directories of other users stay as they are: the
 *    jail has no more rights on them than the caller.
 *
 * Here: the whole walk, its check afterwards (verify) and the watcher's
 * redo; one directory's entries are walk.c's, below this file (its
 * state is walk.h's).  The records of the directories read, which the
 * walk checks again and the watcher keeps, are scanidx.c's, below both. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "scan/walk.h"

#define SCAN_VERIFY_MAX 8

void scan_record_hook(bool (*recorded)(int dfd, const char *name, uint64_t dev, uint64_t ino))
{
	walk_recorded = recorded;
}

unsigned scan_change_count(void)
{
	return walk_changes;
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
			if (st.st_ino != d->ino && !(walk_on_dir && (d->dead = 1)))
				return false;
			if (d->dead)
				continue;
			d->recent = scanidx_ns(&st.st_ctim) >= walk_st.recent;
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
			walk_dir(fd, st.st_dev, strlen(p), d->depth, d->state);
			relisting = false;
			if (full)
				walk_deny_dir(fd, strlen(p), SCAN_BY_COUNT);
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
	walk_add_hit(-1, NULL, 0, 0, T_UNKNOWN, SCAN_BY_GUARD, len);
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
			walk_st.recent = scanidx_ns(&now) - (scanidx_ns(&tick) < SCAN_RECENT_NS / 2
			                                         ? 2 * scanidx_ns(&tick)
			                                         : SCAN_RECENT_NS);
		}
		rel[0] = '\0';
		if (lseek(fd, 0, SEEK_SET))
			diep("scan", project, errno, NULL);
		scanidx_note(st, rel, 0, 0, sc->start, walk_st.recent);
		if (walk_on_dir && walk_on_dir(fd, 0) < 0)
			broken = true;
		deferring = true;
		walk_dir(fd, st->st_dev, 0, 0, sc->start);
		deferring = false;
		if (full)
			walk_deny_dir(fd, 0, SCAN_BY_COUNT);
		if (!unstable && !verify(fd))
			unstable = true;
		walk_links_listed(fd);
		if (hits_links() && !unstable) {
			second_pass = true;
			if (lseek(fd, 0, SEEK_SET))
				diep("scan", project, errno, NULL);
			walk_dir(fd, st->st_dev, 0, 0, sc->start);
			if (full)
				walk_deny_dir(fd, 0, SCAN_BY_COUNT);
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
			walk_changes++;
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
		walk_entry(fd, st.st_dev, name, 0, T_UNKNOWN, len, strlen(name), d->depth + 1u,
		           d->state);
	else if (!walk_on_dir || walk_on_dir(fd, rec) >= 0)
		walk_dir(fd, st.st_dev, len, d->depth, d->state);
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
