/* aj_owndir.h: the caller's own directory, where a launch keeps what must
 * outlive it and no jail may reach: the watcher's sockets
 * (stub/watch/watchtab.c) and the fallback's record of secrets
 * (stub/fallback/record.c) look for it in one order, this one:
 *
 *   0  $XDG_RUNTIME_DIR/aijail, when $XDG_RUNTIME_DIR is the caller's alone
 *      (0700);
 *   1  $XDG_CACHE_HOME/aijail, when $XDG_CACHE_HOME is set;
 *   2  $HOME/.cache/aijail, when it is not (XDG's default cache);
 *
 * each step a directory of the caller's that nobody else may write, opened
 * from the step before by descriptor, and aijail itself the caller's alone
 * (0700), made when asked.  Never a name in a shared directory such as
 * /tmp: another user could make it first (the record has a way of its own
 * there, record.c).  The fallback's private directory is not among them:
 * it is granted to the jail, which must never reach the record, so it has
 * a random name in /tmp (stub/fallback/private.c).
 *
 * In include/, as aj_watchstate.h, because two programs look for it: the
 * stub (stub/variant/own.c, its one copy for every room) and aijail-status
 * --watchers (tools/watchers.c), which must find the watchers where they
 * are.  static functions over libc alone: aijail-status knows nothing
 * else of the stub. */
#ifndef AJ_OWNDIR_H
#define AJ_OWNDIR_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OWN_DIRS     3
#define OWN_NONE     (-1) /* candidate k does not apply here: try the next */
#define OWN_UNUSABLE (-2) /* it applies, but is not the caller's alone, or is missing */
#define OWN_TAIL     20   /* room for the longest tail, "/.cache/aijail/run" */

/* A directory of the caller's that nobody else may write (forbid 022) or
 * even enter (077). */
static inline bool owndir_is(int fd, unsigned forbid)
{
	struct stat st;

	return fd >= 0 && !fstat(fd, &st) && S_ISDIR(st.st_mode) && st.st_uid == getuid() &&
	       !(st.st_mode & forbid);
}

/* name in dir (which it closes), made 0700 when make, if it is the
 * caller's with nothing of forbid in its mode; else -1, and *absent when
 * it does not exist. */
static inline int owndir_sub(int dir, const char *name, bool make, unsigned forbid, bool *absent)
{
	int fd;

	if (dir < 0)
		return -1;
	if (make)
		(void)mkdirat(dir, name, 0700);
	fd = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		*absent = true;
	close(dir);
	if (owndir_is(fd, forbid))
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Candidate k of OWN_DIRS: an O_PATH descriptor, OWN_NONE or
 * OWN_UNUSABLE (*absent when it was missing and make was false).  path:
 * its name whenever it applies, else "". */
static inline int owndir_open(unsigned k, bool make, char *path, size_t size, bool *absent)
{
	const char *cache = getenv("XDG_CACHE_HOME");
	const char *base = k == 0 ? getenv("XDG_RUNTIME_DIR") : k == 1 ? cache : getenv("HOME");
	const char *tail = k == 2 ? "/.cache/aijail" : "/aijail";
	size_t n;
	int fd;

	*absent = false;
	path[0] = '\0';
	if (k >= OWN_DIRS || !base || base[0] != '/' || !base[1] || strlen(base) + OWN_TAIL > size)
		return OWN_NONE;
	if (k == 2 && cache && cache[0] == '/')
		return OWN_NONE; /* the cache is $XDG_CACHE_HOME's */
	fd = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (!owndir_is(fd, k == 0 ? 077 : 022)) {
		if (fd >= 0)
			close(fd);
		return OWN_NONE;
	}
	n = strlen(base);
	memcpy(path, base, n);
	memcpy(path + n, tail, strlen(tail) + 1);
	if (k == 2)
		fd = owndir_sub(fd, ".cache", make, 022, absent);
	fd = owndir_sub(fd, "aijail", make, 077, absent);
	return fd >= 0 ? fd : OWN_UNUSABLE;
}

/* The watchers' directory: the first candidate that applies; under a
 * cache, its run/ (0700).  A descriptor, OWN_UNUSABLE (*k: the candidate) or
 * OWN_NONE (*k: OWN_DIRS). */
static inline int owndir_watch(bool make, char *path, size_t size, bool *absent, unsigned *k)
{
	int fd;

	for (*k = 0; *k < OWN_DIRS; ++*k) {
		fd = owndir_open(*k, make, path, size, absent);
		if (fd == OWN_NONE)
			continue;
		if (*k) {
			memcpy(path + strlen(path), "/run", sizeof("/run"));
			if (fd >= 0)
				fd = owndir_sub(fd, "run", make, 077, absent);
		}
		return fd >= 0 ? fd : OWN_UNUSABLE;
	}
	return OWN_NONE;
}

#endif
