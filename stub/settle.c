/* settle.c: the project's scan for a launch (the walk), and the inotify
 * watches and events that keep the walk's index current in the watcher
 * (watch.c).
 *
 * The launch's own walk is not watched: tearing down an inotify instance
 * waits for an SRCU grace period in the kernel (fsnotify_destroy_group),
 * measured at 9 ms here, three times a whole launch, paid at close or at
 * exit.  A watcher pays it once, when it exits. */
#include <errno.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "sys.h"

#define WD_MAX (1 << 20)
#define WATCH_EVENTS                                                                               \
	(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF |        \
	 IN_MOVE_SELF | IN_ONLYDIR)

static int ifd = -1;
static uint32_t wd_rec[WD_MAX]; /* a watch's directory record + 1 */
static int wd_top;

static int on_dir(int fd, unsigned rec)
{
	char p[32] = "/proc/self/fd/";
	int wd;

	p[14 + fmt_u(p + 14, (unsigned)fd)] = '\0';
	wd = inotify_add_watch(ifd, p, WATCH_EVENTS);
	if (wd < 0 || wd >= WD_MAX)
		return -1;
	wd_rec[wd] = rec + 1;
	if (wd > wd_top)
		wd_top = wd;
	return wd;
}

int scan_watch_begin(void)
{
	scan_watch_end();
	memset(wd_rec, 0, (size_t)(wd_top + 1) * sizeof(wd_rec[0]));
	wd_top = 0;
	ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	scan_on_dir = ifd >= 0 ? on_dir : NULL;
	return ifd;
}

void scan_watch_end(void)
{
	if (ifd >= 0)
		close(ifd);
	ifd = -1;
	scan_on_dir = NULL;
}

/* The hits' paths packed again, those removed since gone. */
void scan_compact(void)
{
	static char tmp[AJ_SCAN_ARENA];
	uint32_t used = 0;

	for (unsigned i = 0; i < scan->n; i++) {
		const char *p = scan->arena + scan->hits[i].off;
		size_t l = strlen(p) + 1;

		memcpy(tmp + used, p, l);
		scan->hits[i].off = used;
		used += (uint32_t)l;
	}
	memcpy(scan->arena, tmp, used);
	scan->used = used;
	scan->n_pruned = 0;
}

static int rec_of(int wd)
{
	return wd >= 0 && wd < WD_MAX && wd_rec[wd] && scan_live(wd_rec[wd] - 1)
	           ? (int)wd_rec[wd] - 1
	           : -1;
}

int scan_events(int pfd)
{
	static _Alignas(struct inotify_event) char buf[1 << 16];
	int seen = SCAN_EV_NONE;

	for (;;) {
		ssize_t n = read(ifd, buf, sizeof(buf));
		const struct inotify_event *e;
		int rec;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? seen : SCAN_EV_LOST;
		if (n == 0)
			return SCAN_EV_LOST;
		seen = SCAN_EV_SOME;
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
					return SCAN_EV_LOST; /* its own mode: can it still be read?
					                      */
				continue;                    /* its parent's event names it */
			}
			scan_drop((unsigned)rec, e->name, e->mask & IN_ISDIR);
		}
		/* The paths of hits dropped are garbage until packed. */
		if (scan->used > AJ_SCAN_ARENA / 2)
			scan_compact();
		for (ssize_t off = 0; off < n; off += (ssize_t)sizeof(*e) + e->len) {
			e = (const struct inotify_event *)(buf + off);
			if (e->len && !(e->mask & IN_IGNORED) && (rec = rec_of(e->wd)) >= 0 &&
			    !scan_redo(pfd, (unsigned)rec, e->name))
				return SCAN_EV_LOST;
		}
		if (scan_full())
			return SCAN_EV_LOST;
	}
}

void scan_project(const char *project, const struct aj_variant *v)
{
	int fd;

	if (!scan_needed(v))
		return;
	fd = openat(AT_FDCWD, project, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		diep("scan", project, errno, NULL);
	scan_walk(fd, v);
	scan_guards(fd, v);
	git_tracked_scan(scan, fd, var_value(AJ_VAR_PROJECT));
	close(fd);
}
