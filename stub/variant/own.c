/* own.c: the caller's own directory, where a launch keeps what must
 * outlive it and no jail may reach: the watcher's sockets
 * (scan/watchtab.c) and the fallback's record of secrets
 * (fallback/record.c) look for it in one order, this one:
 *
 *   0  $XDG_RUNTIME_DIR/aijail, when $XDG_RUNTIME_DIR is the caller's alone
 *      (0700);
 *   1  $XDG_CACHE_HOME/aijail, when $XDG_CACHE_HOME is set;
 *   2  $HOME/.cache/aijail, when it is not (XDG's default cache);
 *
 * each step a directory of the caller's that nobody else may write, and
 * aijail itself the caller's alone (0700), made when asked.  Never a name
 * in a shared directory such as /tmp: another user could make it first
 * (the record has a way of its own there, record.c).  The fallback's
 * private directory is not among them: it is granted to the jail, which
 * must never reach the record, so it has a random name in /tmp
 * (fallback/private.c). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "variant/variant.h"

/* A directory of the caller's that nobody else may write (forbid 022) or
 * even enter (077). */
bool own_is(int fd, unsigned forbid)
{
	struct stat st;

	return fd >= 0 && !fstat(fd, &st) && S_ISDIR(st.st_mode) && st.st_uid == getuid() &&
	       !(st.st_mode & forbid);
}

/* name in dir (which it closes), made 0700 when make, if it is the
 * caller's with nothing of forbid in its mode; else -1, and *absent when
 * it does not exist. */
int own_sub(int dir, const char *name, bool make, unsigned forbid, bool *absent)
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
	if (own_is(fd, forbid))
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

int own_dir(unsigned k, bool make, char *path, size_t size, bool *absent)
{
	const char *cache = getenv("XDG_CACHE_HOME");
	const char *base = k == 0 ? getenv("XDG_RUNTIME_DIR") : k == 1 ? cache : getenv("HOME");
	int fd;

	*absent = false;
	path[0] = '\0';
	if (k >= OWN_DIRS || !base || base[0] != '/' || !base[1] || strlen(base) + 16 > size)
		return OWN_NONE;
	if (k == 2 && cache && cache[0] == '/')
		return OWN_NONE; /* the cache is $XDG_CACHE_HOME's */
	fd = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (!own_is(fd, k == 0 ? 077 : 022)) {
		if (fd >= 0)
			close(fd);
		return OWN_NONE;
	}
	out_str_put(path, out_str_put(path, 0, base), k == 2 ? "/.cache/aijail" : "/aijail");
	if (k == 2)
		fd = own_sub(fd, ".cache", make, 022, absent);
	fd = own_sub(fd, "aijail", make, 077, absent);
	return fd >= 0 ? fd : OWN_UNUSABLE;
}
