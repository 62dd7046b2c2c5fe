/* own.c: the caller's own directory, the stub's one copy of the order
 * include/aj_owndir.h holds (aijail-status --watchers reads the same
 * header, so the two programs cannot drift apart): the watcher's sockets
 * (watch/watchtab.c) and the fallback's record of secrets
 * (fallback/record.c) call it from here. */
#include "variant/variant.h"

bool own_is(int fd, unsigned forbid)
{
	return owndir_is(fd, forbid);
}

int own_dir(unsigned k, bool make, char *path, size_t size, bool *absent)
{
	return owndir_open(k, make, path, size, absent);
}

int own_watch(bool make, char *path, size_t size, bool *absent, unsigned *k)
{
	return owndir_watch(make, path, size, absent, k);
}
