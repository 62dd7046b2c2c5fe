/* settle.c: the project's scan for a launch (the walk, then what it
 * could not trust), and the inotify watches and events that keep the
 * walk's index current, in a launch and in the watcher (watchd.c).
 *
 * A directory's times come from a coarse clock: a folder moved out of a
 * directory and back into it within one tick leaves both as they were,
 * and a walk that read the directory in between never saw the folder; a
 * concurrent jail moving a folder of secrets back and forth wins that
 * race now and then.  So the directories changed within SCAN_RECENT_NS
 * of the walk, and only those (a quiet tree has none), are watched, read
 * again, and the tree verified again, until no event comes and no
 * directory is newly recent; covers that keep changing, or things moved
 * in and gone again before they could be looked at, round after round,
 * are something moving: the jail does not start.  A build making,
 * removing and renaming files and folders is only followed.
 *
 * Tearing down an inotify instance waits for an SRCU grace period in the
 * kernel (fsnotify_destroy_group), 1-15 ms here, more than a launch: the
 * launch closes its instance only once the scan is handed to pid 1
 * (settle_watch_close), and a quiet tree never makes one. */
#include <errno.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "scan/scan.h"

#define WD_MAX        (1 << 20)
#define SETTLE_ROUNDS 4
#define SETTLE_READS  1 /* a round's reads of the queue: a flood does not hold a launch */
#define WATCH_EVENTS                                                                               \
	(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF |        \
	 IN_MOVE_SELF | IN_ONLYDIR)

static int ifd = -1, late = -1;
/* A watch's directory, by inode: every index that holds the directory
 * finds its own record of it (the watcher's indexes share one instance,
 * and the kernel gives one directory one watch in it). */
static uint64_t wd_ino[WD_MAX];
static int wd_top;
static uint8_t watched[1 << 16]; /* the launch's: records watched already */
unsigned settle_unresolved;      /* moved in, gone when looked at: settle() */
unsigned settle_watches;         /* held by this instance now */
unsigned settle_watch_budget;    /* the most it may hold; 0: no bound (a launch) */
bool settle_over_budget;         /* a watch was refused for the budget */

/* The watcher's doors to the budget (watch/watchd.c). */
unsigned settle_watch_count(void)
{
	return settle_watches;
}

void settle_budget_set(unsigned budget)
{
	settle_watch_budget = budget;
}

/* Was a watch refused for the budget?  clear: and forget it. */
bool settle_over(bool clear)
{
	bool was = settle_over_budget;

	if (clear)
		settle_over_budget = false;
	return was;
}

static int on_dir(int fd, unsigned rec)
{
	char p[32] = "/proc/self/fd/";
	int wd;

	p[14 + out_fmt_u(p + 14, (unsigned)fd)] = '\0';
	wd = inotify_add_watch(ifd, p, WATCH_EVENTS);
	if (wd < 0 || wd >= WD_MAX)
		return -1;
	/* Watch descriptors only grow: one above the top is a new watch. */
	if (wd > wd_top) {
		wd_top = wd;
		if (settle_watch_budget && settle_watches >= settle_watch_budget) {
			(void)inotify_rm_watch(ifd, wd);
			settle_over_budget = true;
			return -1;
		}
		settle_watches++;
	}
	wd_ino[wd] = scanidx_ino(rec);
	return wd;
}

int settle_watch_begin(void)
{
	settle_watch_end();
	memset(wd_ino, 0, (size_t)(wd_top + 1) * sizeof(wd_ino[0]));
	wd_top = 0;
	settle_watches = 0;
	settle_over_budget = false;
	ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	walk_on_dir = ifd >= 0 ? on_dir : NULL;
	return ifd;
}

void settle_watch_end(void)
{
	if (ifd >= 0)
		close(ifd);
	ifd = -1;
	walk_on_dir = NULL;
}

static int rec_of(int wd)
{
	return wd >= 0 && wd < WD_MAX && wd_ino[wd] ? scanidx_by_ino(wd_ino[wd]) : -1;
}

/* One read of the queue: its length, 0 when empty, SCAN_EV_LOST. */
long settle_events_read(char *buf, size_t size)
{
	for (;;) {
		ssize_t n = read(ifd, buf, size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? 0 : SCAN_EV_LOST;
		return n ? n : SCAN_EV_LOST;
	}
}

/* What a read brought, applied to the index in use. */
int settle_events_apply(int pfd, const char *buf, long n)
{
	const struct inotify_event *e;
	int rec;

	for (ssize_t off = 0; off < n; off += (ssize_t)sizeof(*e) + e->len) {
		e = (const struct inotify_event *)(buf + off);
		if (e->mask & (IN_Q_OVERFLOW | IN_UNMOUNT))
			return SCAN_EV_LOST;
		if ((e->mask & IN_IGNORED) || (rec = rec_of(e->wd)) < 0)
			continue;
		if (!e->len) {
			if (rec == 0 && (e->mask & IN_DELETE_SELF))
				return SCAN_EV_GONE;
			if (rec == 0 && (e->mask & IN_ATTRIB))
				return SCAN_EV_LOST; /* its own mode: can it still be read? */
			continue;                    /* its parent's event names it */
		}
		scan_drop((unsigned)rec, e->name, e->mask & IN_ISDIR);
	}
	/* The paths of hits dropped are garbage until packed. */
	if (hits_cur->used > AJ_SCAN_ARENA / 2)
		hits_compact();
	for (ssize_t off = 0; off < n; off += (ssize_t)sizeof(*e) + e->len) {
		e = (const struct inotify_event *)(buf + off);
		if (!e->len || (e->mask & IN_IGNORED) || (rec = rec_of(e->wd)) < 0)
			continue;
		switch (scan_redo(pfd, (unsigned)rec, e->name)) {
		case -1:
			return SCAN_EV_LOST;
		case 1: /* moved in, and on again before it was looked at */
			settle_unresolved += !!(e->mask & IN_MOVED_TO);
		}
	}
	return scanidx_full() ? SCAN_EV_LOST : SCAN_EV_SOME;
}

/* After every index had the read: the watches the kernel removed. */
void settle_events_done(const char *buf, long n)
{
	const struct inotify_event *e;

	for (ssize_t off = 0; off < n; off += (ssize_t)sizeof(*e) + e->len) {
		e = (const struct inotify_event *)(buf + off);
		if ((e->mask & IN_IGNORED) && e->wd >= 0 && e->wd < WD_MAX && wd_ino[e->wd]) {
			wd_ino[e->wd] = 0;
			settle_watches--;
		}
	}
}

int settle_events(int pfd, unsigned reads)
{
	static _Alignas(struct inotify_event) char buf[1 << 16];
	int seen = SCAN_EV_NONE;

	for (unsigned k = 0; !reads || k < reads; k++) {
		ssize_t n = settle_events_read(buf, sizeof(buf));
		int r;

		if (n <= 0)
			return n ? SCAN_EV_LOST : seen;
		seen = SCAN_EV_SOME;
		r = settle_events_apply(pfd, buf, n);
		settle_events_done(buf, n);
		if (r < 0)
			return r;
	}
	return seen;
}

static const char moving[] = "folders keep moving in it while it is checked for secrets; stop "
                             "what is moving them, and try again";

/* The recent directories not watched yet, watched and read again; false:
 * none can be. */
static bool watch_recent(int pfd, bool *fresh)
{
	for (unsigned i = 0; i < scan_dirs() && i < sizeof(watched); i++) {
		if (watched[i] || !scanidx_recent(i))
			continue;
		watched[i] = 1;
		*fresh = true;
		if (scan_redo(pfd, i, NULL) < 0)
			return false;
	}
	return true;
}

static void settle(int pfd)
{
	unsigned links = hits_links();

	for (unsigned round = 0;; round++) {
		unsigned hits = walk_changes, lost = settle_unresolved;
		bool fresh = false;
		int r;

		if (!watch_recent(pfd, &fresh))
			return; /* no watch to be had: verify() alone, as before */
		r = settle_events(pfd, SETTLE_READS);
		if (r == SCAN_EV_GONE)
			die("scan the project", 0,
			    "it was removed while it was checked for secrets");
		if (r == SCAN_EV_LOST)
			die("scan the project", 0, moving);
		if (!fresh && r == SCAN_EV_NONE)
			break;
		/* A tree that still changes is taken as it is when, in the
		 * last round, nothing covered changed and everything moved in
		 * was found where it went (a build making, removing, renaming
		 * files and folders); a record whose path leads elsewhere now
		 * (verify() says false) is one more change, whose events are
		 * on the way. */
		(void)scan_verify(pfd);
		if (round == SETTLE_ROUNDS) {
			if (settle_unresolved != lost || walk_changes != hits)
				die("scan the project", 0, moving);
			break;
		}
	}
	if (hits_links() != links)
		die("scan the project", 0, moving); /* a hard link made meanwhile */
}

void settle_watch_close(void)
{
	if (late >= 0)
		close(late);
	late = -1;
}

void settle_project(const char *project, const struct aj_variant *v)
{
	int fd;

	if (!scan_needed(v))
		return;
	fd = openat(AT_FDCWD, project, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		diep("scan", project, errno, NULL);
	if (scan_walk(fd, v)) {
		bool any = false;

		for (unsigned i = 0; i < scan_dirs() && !any; i++)
			any = scanidx_recent(i);
		if (any && settle_watch_begin() >= 0) {
			memset(watched, 0, sizeof(watched));
			settle(fd);
			walk_on_dir = NULL;
			late = ifd; /* closed by settle_watch_close() */
			ifd = -1;
		}
	}
	guards_scan(fd, v);
	git_tracked_scan(hits_cur, fd, vars_value(AJ_VAR_PROJECT));
	close(fd);
}
