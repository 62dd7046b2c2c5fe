/* appear.c: names that appear in the project during the run (a .env the
 * person saves while a dev server or an agent runs, a folder of keys
 * moved in), covered as the next launch would cover them, while the jail
 * still runs.
 *
 * Not by pid 1 itself: it is confined like the target, by Landlock (which
 * refuses every mount operation to a confined process) and the target's
 * seccomp filter (which denies them); confining it less would change
 * what the target inherits.  So pid 1 forks this process once the root
 * is built, before it confines itself.  It keeps CAP_SYS_ADMIN (a cover is
 * a mount) and CAP_DAC_READ_SEARCH (inotify wants read permission on each
 * directory) in the jail's user namespace and nothing else, sets
 * no_new_privs, drops the bounding set, and holds only the project's
 * directories, the covers' empty nodes, an inotify descriptor (the
 * parent's instance: appear_prepare, appear_end) and stderr.
 * It is outside the target's Landlock domain, so from Landlock ABI 6
 * nothing in the jail can signal it; below, a jailed process of the same
 * user could kill or stop it, and pid 1 then ends the jail (exit 125):
 * covering never stops silently.
 *
 * Each directory is watched before it is listed, so a name made between
 * the launch's walk and the watch is found by the listing.  A name that
 * matches is opened O_PATH | O_NOFOLLOW relative to its directory's
 * descriptor, classified again by what it is now, and the cover is moved
 * onto that descriptor (a symlink gets the cover itself, never its
 * target); nothing is looked up by a path the jail could swap. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <time.h>
#include <linux/capability.h>

#include "root/root.h"

#define TMPFS_MAGIC_ 0x01021994
/* The most directories this table holds (cage.c takes a share of the
 * user's watches, at most this). */
#define APPEAR_MAX      32768
#define APPEAR_HASH     (2 * APPEAR_MAX)
#define APPEAR_DELAY_MS 50
#define APPEAR_MASK     (IN_CREATE | IN_MOVED_TO | IN_ONLYDIR)

static const struct aj_scan *sc;
/* Made by the parent (appear_prepare), inherited by pid 1 and this
 * process; ifd_err: why it could not be made. */
static int ifd = -1, ifd_err;
static struct timespec ifd_made;
static dev_t project_dev;
static unsigned watched, budget, unwatched;
static bool told;

static struct slot {
	int wd; /* 0: free */
	int fd; /* the directory, O_RDONLY: listed, and names opened beneath it */
	uint64_t state;
	dev_t dev;
	uint8_t depth;
} tab[APPEAR_HASH];

static unsigned slot_of(int wd)
{
	return ((unsigned)wd * 2654435761u) & (APPEAR_HASH - 1);
}

static struct slot *find(int wd)
{
	for (unsigned i = slot_of(wd);; i = (i + 1) & (APPEAR_HASH - 1)) {
		if (tab[i].wd == wd)
			return &tab[i];
		if (!tab[i].wd)
			return NULL;
	}
}

/* Backward-shift deletion: no tombstones, however many folders a build
 * makes and removes. */
static void forget(struct slot *s)
{
	unsigned i = (unsigned)(s - tab), j = i;

	close(s->fd);
	for (;;) {
		tab[i].wd = 0;
		for (;;) {
			unsigned k;

			j = (j + 1) & (APPEAR_HASH - 1);
			if (!tab[j].wd)
				return;
			k = slot_of(tab[j].wd);
			if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
				continue;
			break;
		}
		tab[i] = tab[j];
		i = j;
	}
	watched--;
}

/* One line on stderr, once: what is not watched and why.  The launch's
 * covers hold whatever happens here. */
static void warn(const char *what, int err)
{
	if (told)
		return;
	told = true;
	out_fd(2);
	out_s(aj_progname);
	out_s(": warning: ");
	out_s(what);
	if (err) {
		out_s(": ");
		out_s(strerror(err));
	}
	out_s("; names that appear there during the run are covered by the next launch only\n");
	out_flush();
}

/* bound: past the depth bound, denied whatever its name. */
static void cover(int dfd, dev_t ddev, const char *name, uint64_t state, bool bound)
{
	struct stat st;
	uint64_t inside;
	uint8_t kind = AJ_PATTERN_DENY;
	int tfd, e;

	tfd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (tfd < 0)
		return; /* gone again: nothing to cover */
	if (fstat(tfd, &st))
		die("inspect a new name in the project", errno, NULL);
	/* Another device: a mount point, which is a cover already (the
	 * launch's, or ours after a relisting). */
	if (st.st_dev != ddev) {
		close(tfd);
		return;
	}
	/* What it is now decides, as at launch: a symlink counts as a
	 * directory (a link named secrets/ would lead past the deny). */
	if (!bound)
		kind = match_classify(sc, name, strlen(name),
		                      S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode), state, &inside);
	if ((kind == AJ_PATTERN_MASK || kind == AJ_PATTERN_DENY) &&
	    (e = mask_cover_new(tfd, kind == AJ_PATTERN_DENY, S_ISDIR(st.st_mode),
	                        S_ISLNK(st.st_mode) ? 0444 : st.st_mode)) &&
	    e != ENOENT) /* unlinked since it was opened */
		diep("cover a new name in the project:", name, e, NULL);
	close(tfd);
}

static void add(int fd, uint64_t state, unsigned depth);

/* One entry of a watched directory, listed or reported by an event. */
static void entry(const struct slot *d, const char *name, unsigned char type)
{
	uint64_t inside = 0;
	struct stat st;
	uint8_t kind;
	int fd;

	if (type == DT_UNKNOWN) {
		if (fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW))
			return;
		type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
	}
	kind = match_classify(sc, name, strlen(name), type == DT_DIR || type == DT_LNK, d->state,
	                      &inside);
	if (kind == AJ_PATTERN_PRUNE)
		return;
	if (kind) {
		cover(d->fd, d->dev, name, d->state, false);
		return;
	}
	if (type != DT_DIR)
		return;
	/* Past the walk's depth bound the launch denies a directory whole;
	 * so does this ('scan depth N fail' cannot refuse a running jail). */
	if (d->depth + 1u >= sc->depth) {
		cover(d->fd, d->dev, name, d->state, true);
		return;
	}
	fd = openat(d->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0)
		add(fd, inside, d->depth + 1u);
}

static void list(const struct slot *d)
{
	static _Alignas(8) char buf[AJ_SCAN_DEPTH_MAX + 2][4096];
	struct dir_iter it = {d->fd, buf[d->depth], sizeof(buf[0]), 0, 0};

	for (struct aj_dirent *e; (e = dir_next(&it, "list a directory of", "the project"));)
		entry(d, e->d_name, e->d_type);
}

/* A directory (fd, taken): watched, then listed, so that nothing made in
 * between is missed.  A per-directory cover of the launch (a read-only
 * tmpfs: nothing can be made there) is not watched, but what it binds in
 * is. */
static void add(int fd, uint64_t state, unsigned depth)
{
	struct slot tmp = {0, fd, state, 0, (uint8_t)depth}, *s;
	struct statfs sf;
	struct stat st;
	int wd;

	if (fstat(fd, &st) || fstatfs(fd, &sf)) {
		close(fd);
		return;
	}
	tmp.dev = st.st_dev;
	if ((unsigned long)sf.f_type == TMPFS_MAGIC_ && st.st_dev != project_dev &&
	    (sf.f_flags & ST_RDONLY)) {
		list(&tmp);
		close(fd);
		return;
	}
	if (watched >= budget) {
		unwatched++;
		close(fd);
		return;
	}
	/* inotify takes a path: the directory's own, by descriptor. */
	if (fchdir(fd) || (wd = inotify_add_watch(ifd, ".", APPEAR_MASK)) < 0) {
		if (errno == ENOSPC)
			budget = watched; /* the user's watches are all taken */
		unwatched++;
		close(fd);
		return;
	}
	tmp.wd = wd;
	/* Watched already: moved within the project (its anchored steps
	 * are those of where it is now), or listed again. */
	if ((s = find(wd))) {
		close(fd);
		if (s->state == state && s->depth == depth)
			return;
		s->state = state;
		s->depth = (uint8_t)depth;
		list(s);
		return;
	}
	for (unsigned i = slot_of(wd);; i = (i + 1) & (APPEAR_HASH - 1))
		if (!tab[i].wd) {
			tab[i] = tmp;
			s = &tab[i];
			break;
		}
	watched++;
	list(s);
}

/* Events were lost: every watched directory listed again.  Covering is
 * idempotent (a cover is a mount point, skipped), and so is watching. */
static void relist(void)
{
	for (unsigned i = 0; i < APPEAR_HASH; i++)
		if (tab[i].wd)
			list(&tab[i]);
}

extern char **environ;

static noreturn void appear_run(const struct aj_variant *v)
{
	static _Alignas(8) char ev[16384];
	int keep[4];
	struct stat st;
	int pfd;

	die_reap = 0;
	die_undo = die_cleanup = die_term = NULL;
	prctl(PR_SET_NAME, "aijail-cover", 0, 0, 0);
	budget = cage_budget(true, APPEAR_MAX); /* before the variables go: AIJAIL_APPEAR_WATCHES */
	/* The caller's variables: this copy of pid 1's memory needs none. */
	for (char **h = environ; h && *h; h++)
		explicit_bzero(*h, strlen(*h));
	sc = v->scan;
	mask_stage_adopt();
	/* pid 1's working directory is the project, as the jail sees it. */
	pfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* Not at once: an inotify instance with watches costs an SRCU grace
	 * period when it goes (fsnotify_destroy_group, 5-40 ms here), and
	 * the parent has to hand it over to pay that off the caller's wait
	 * (appear_end).  A command shorter than this needs neither; a name
	 * made meanwhile is found by the first listing, which follows the
	 * watch. */
	{
		struct timespec ts = {0, APPEAR_DELAY_MS * 1000000L};

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	if (pfd < 0 || ifd < 0) {
		warn(pfd < 0 ? "cannot open the project to watch it"
		             : "cannot watch the project (inotify)",
		     pfd < 0 ? errno : ifd_err);
		_exit(0);
	}
	keep[0] = pfd, keep[1] = ifd;
	mask_stage_fds(keep + 2);
	cage_fds(keep, 4);
	cage_caps();
	if (fstat(pfd, &st))
		die("inspect the project", errno, NULL);
	project_dev = st.st_dev;
	cage_filter();
	add(pfd, sc->start, 0);
	if (unwatched) {
		char num[AJ_DEC_MAX];

		num[out_fmt_u(num, unwatched)] = '\0';
		out_fd(2);
		out_s(aj_progname);
		out_s(": warning: ");
		out_s(num);
		out_s(unwatched == 1 ? " directory of the project is"
		                     : " directories of the project are");
		out_s(" past the inotify watches this jail may take (fs.inotify.max_user_watches);"
		      " names that appear there during the run are covered by the next launch "
		      "only\n");
		out_flush();
		told = true;
	}
	for (;;) {
		ssize_t n = read(ifd, ev, sizeof(ev));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("read the project's events", n < 0 ? errno : EIO, NULL);
		for (ssize_t off = 0; off < n;) {
			const struct inotify_event *e = (const void *)(ev + off);
			struct slot *d;

			off += (ssize_t)sizeof(*e) + e->len;
			if (e->mask & IN_Q_OVERFLOW) {
				relist();
				continue;
			}
			if (!(d = find(e->wd)))
				continue;
			if (e->mask & IN_IGNORED) {
				forget(d);
				continue;
			}
			if (e->len && e->name[0])
				entry(d, e->name, e->mask & IN_ISDIR ? DT_DIR : DT_UNKNOWN);
		}
	}
}

/* The parent makes the inotify instance, so that the last reference to
 * it is the parent's, not a process of the jail's: whoever drops it waits
 * for an SRCU grace period (fsnotify_destroy_group flushes the mark
 * reaper), and the end of the pid namespace waits for every process in
 * it.  Watches added by the covering process resolve its paths in the
 * jail's mount namespace, as before. */
void appear_prepare(const struct aj_variant *v)
{
	if (!appear_wanted(v))
		return;
	ifd = inotify_init1(IN_CLOEXEC);
	if (ifd < 0) {
		ifd_err = errno;
		return;
	}
	/* Not 0 to 2 (a caller that closed them): pid 1 closes 3 and above
	 * before it confines itself, and would keep this for the whole run
	 * (the target's exec drops it, O_CLOEXEC). */
	if (ifd < 3) {
		int hi = fcntl(ifd, F_DUPFD_CLOEXEC, 3);

		close(ifd);
		ifd = hi;
		ifd_err = hi < 0 ? errno : 0;
		if (hi < 0)
			return;
	}
	clock_gettime(CLOCK_MONOTONIC, &ifd_made);
}

static _Alignas(16) char handoff_stack[4096];

/* Every descriptor but the three given (-1: none); raw calls, for the
 * process below too. */
static void close_but(int a, int b, int c)
{
	int k[4] = {a, b, c, INT_MAX};
	unsigned lo = 0;

	for (unsigned i = 1; i < 3; i++)
		for (unsigned j = i; j > 0 && k[j - 1] > k[j]; j--) {
			int t = k[j];

			k[j] = k[j - 1], k[j - 1] = t;
		}
	for (unsigned i = 0; i < 4; i++) {
		unsigned hi = i < 3 ? (unsigned)k[i] : ~0U;

		if (k[i] < (int)lo)
			continue;
		if (hi > lo && syscall(SYS_close_range, lo, hi - 1, 0U))
			for (unsigned fd = lo; fd < hi && fd < 1024; fd++)
				syscall(SYS_close, fd);
		lo = hi + 1;
	}
}

/* Holds the last reference until the parent has let go of its own, then
 * drops it and pays the grace period; nobody waits for it (the parent
 * has exited, the caller waits for the parent).  It shares the parent's
 * memory (CLONE_VM), so raw calls only; it holds no other descriptor (a
 * caller reading our stdout to its end is not kept waiting), no
 * directory of the caller's, no capability. */
static int handoff_main(void *arg)
{
	int rfd = (int)(intptr_t)arg;
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct none[2] = {{0}};
	char c;

	close_but(ifd, rfd, -1); /* the pipe's write end */
	syscall(SYS_chdir, "/");
	syscall(SYS_capset, &hdr, none);
	/* End of file: the parent has closed its copy of the instance. */
	while (syscall(SYS_read, rfd, &c, 1) != 0 && errno == EINTR)
		;
	syscall(SYS_close, ifd);
	syscall(SYS_exit, 0);
	return 0;
}

/* The parent, its status known: the instance's last reference goes to a
 * process of its own that outlives it, or nowhere if no watch was ever
 * added (the covering process waits APPEAR_DELAY_MS first: closing it is
 * then free).  If the hand-over cannot be made, the parent's exit pays,
 * as it would have. */
void appear_end(void)
{
	struct timespec t;
	int p[2];
	long ms;

	if (ifd < 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t);
	ms = (t.tv_sec - ifd_made.tv_sec) * 1000L + (t.tv_nsec - ifd_made.tv_nsec) / 1000000L;
	if (ms < APPEAR_DELAY_MS || pipe2(p, O_CLOEXEC))
		return;
	/* What the caller reads to its end (our stdout and stderr) is closed
	 * now, by us: a new process may wait long for its first turn on a
	 * loaded machine, and it would hold them until then. */
	close_but(ifd, p[0], p[1]);
	if (clone(handoff_main, handoff_stack + sizeof(handoff_stack), CLONE_VM | SIGCHLD,
	          (void *)(intptr_t)p[0]) < 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	syscall(SYS_close, ifd);
	syscall(SYS_close, p[0]);
	syscall(SYS_close, p[1]);
	ifd = -1;
}

bool appear_wanted(const struct aj_variant *v)
{
	return mask_appearing(v);
}

pid_t appear_start(const struct aj_variant *v)
{
	pid_t pid;

	if (!appear_wanted(v))
		return 0;
	if (!mask_stage_kept()) {
		/* The covers' nodes need a place no path in the jail reaches. */
		warn("no directory of the policy hides a stage for covers made during the run", 0);
		return 0;
	}
	pid = fork();
	if (pid < 0) {
		warn("cannot start the watch of the project", errno);
		return 0;
	}
	if (!pid)
		appear_run(v);
	return pid;
}

/* The window between a name appearing and its cover, as measured
 * (docs/secrets.md, "Names that appear during the run"). */
#define APPEAR_WINDOW                                                                              \
	"about 1 ms (median 0.3-1.3 ms, max 1.5-16 ms over 200 names, measured here); 50 ms "      \
	"or more for a name made in the run's first 50 ms"

void appear_explain(const struct aj_variant *v, bool fallback)
{
	static const char *const never[] = {
	    "a descriptor opened before the cover stays open (it reads what it read)",
	    "content written into a file whose name matches nothing",
	    "another hard link of a secret, made from outside the jail",
	    "names inside a pruned directory, as at launch",
	};
	const char *why = "the policy masks and denies nothing", *e = getenv("AIJAIL_APPEAR");
	bool on = !fallback && appear_wanted(v);

	if (fallback)
		why = "the fallback has no covers (Landlock denies what the walk found)";
	else if (e && !strcmp(e, "0"))
		why = "AIJAIL_APPEAR=0";
	rp_field("appearing");
	rp_open("appear", '{');
	rp_bool("on", on);
	if (!on) {
		rp_t("not covered until the next launch: ");
		rp_str("why", why);
		rp_t("\n");
		rp_close();
		return;
	}
	rp_t("during the run too: a name that appears in the project and matches a mask or\n"
	     "           deny is covered within");
	rp_t("\n           ");
	rp_str("window", APPEAR_WINDOW);
	rp_t("\n           (a watch of up to ");
	rp_u("watches", cage_budget(false, APPEAR_MAX));
	rp_t(" directories, 10% of fs.inotify.max_user_watches; past them,\n"
	     "           the next launch)\n");
	rp_t("           not covered: ");
	rp_open("not_covered", '[');
	for (unsigned i = 0; i < sizeof(never) / sizeof(never[0]); i++) {
		if (i)
			rp_t("; ");
		rp_str(NULL, never[i]);
	}
	rp_close();
	rp_t("\n");
	rp_close();
}
