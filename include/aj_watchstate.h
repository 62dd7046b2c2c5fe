/* aj_watchstate.h: what a watcher publishes beside its socket, and the share
 * of inotify watches the watchers keep to, for the two programs that read
 * them: the watcher itself (watchd.c: the others' watches, against the
 * share) and aijail-status --watchers (tools/status.c: the listing).  In
 * include/, as aj_table.h, because two programs read it; static functions
 * over libc alone, because aijail-status knows nothing else of the stub.
 *
 * The state file is KEY.state (KEY: WATCH_KEY_LEN characters) in the
 * runtime directory, lines of "name value" (watchd.c, publish); its
 * watcher lives while it holds KEY.lock. */
#ifndef AJ_WATCHSTATE_H
#define AJ_WATCHSTATE_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/types.h>
#include <unistd.h>

#define WATCH_KEY_LEN    18
#define WATCH_STATE_SIZE 1024
#define WATCH_SHARE      10 /* percent of max_user_watches, all watchers together */

/* The lines, each after a newline but the first. */
#define WS_PID     "pid "
#define WS_WATCHES "\nwatches "
#define WS_STARTED "\nstarted "
#define WS_USED    "\nused "
#define WS_USED_MS "\nused_ms "
#define WS_TABLES  "\ntables "
#define WS_TABLE   "\ntable "
#define WS_PROJECT "\nproject "

/* The digits at s, as a number (at most 2^59: no overflow). */
static inline uint64_t watch_digits(const char *s)
{
	uint64_t n = 0;

	for (; *s >= '0' && *s <= '9' && n < (1ULL << 59); s++)
		n = n * 10 + (unsigned)(*s - '0');
	return n;
}

/* The number on the line tag names in a state text; 0 when it has none. */
static inline uint64_t watch_state_num(const char *st, const char *tag)
{
	const char *p = strstr(st, tag);

	return p ? watch_digits(p + strlen(tag)) : 0;
}

/* The state file name in dir, read into st (size bytes, NUL-terminated)
 * when it is a watcher's and that watcher lives (its lock is held: a
 * shared lock we can take means nobody holds it).  Its length, or -1. */
static inline ssize_t watch_state_read(int dir, const char *name, char *st, size_t size)
{
	char lock[WATCH_KEY_LEN + sizeof(".lock")];
	ssize_t r;
	int fd;

	if (strlen(name) != WATCH_KEY_LEN + 6 || strcmp(name + WATCH_KEY_LEN, ".state"))
		return -1;
	memcpy(lock, name, WATCH_KEY_LEN);
	memcpy(lock + WATCH_KEY_LEN, ".lock", sizeof(".lock"));
	fd = openat(dir, lock, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (!flock(fd, LOCK_SH | LOCK_NB)) {
		close(fd); /* nobody holds it: its watcher is gone */
		return -1;
	}
	close(fd);
	fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	do
		r = read(fd, st, size - 1);
	while (r < 0 && errno == EINTR);
	close(fd);
	if (r <= 0)
		return -1;
	st[r] = '\0';
	return r;
}

/* The number in the environment variable name; dflt when it is unset,
 * empty, not all digits or over 10^8. */
static inline unsigned long watch_env_num(const char *name, unsigned long dflt)
{
	const char *s = getenv(name);
	unsigned long n = 0;

	if (!s || !*s)
		return dflt;
	for (; *s >= '0' && *s <= '9' && n <= 100000000; s++)
		n = n * 10 + (unsigned)(*s - '0');
	return *s || n > 100000000 ? dflt : n;
}

/* The watches all watchers may hold together, of the user's max:
 * AIJAIL_WATCH_LIMIT when set, else AIJAIL_WATCH_SHARE percent (default
 * WATCH_SHARE; 0 or over 100 is the default). */
static inline unsigned long watch_share_of(unsigned long max)
{
	unsigned long share = watch_env_num("AIJAIL_WATCH_SHARE", WATCH_SHARE);

	if (getenv("AIJAIL_WATCH_LIMIT"))
		return watch_env_num("AIJAIL_WATCH_LIMIT", 0);
	if (!share || share > 100)
		share = WATCH_SHARE;
	return max * share / 100;
}

#endif
