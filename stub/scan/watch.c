/* watch.c: the project's scan without the walk, from a watcher that keeps
 * it current (docs/performance.md, "The watcher").
 *
 * A launch whose walk read many directories (AIJAIL_WATCH_MIN, 1000; or 30 %
 * of that in 10 ms or more) leaves a mark in the caller's runtime
 * directory; the next one starts the project's watcher: a process of the
 * caller's, outside every jail, forked before any namespace is made, that
 * walks the project once per scan table with scan.c, puts an inotify watch
 * on every directory it read, and keeps each table's records and hits
 * current event by event.  One watcher per project, whichever stubs and
 * modes are used there: a launch sends its scan table (the compiled one,
 * flattened) with its question, and the watcher answers from the index of
 * that table, making one the first time it sees it; the tables' indexes
 * share one inotify instance, so a directory has one watch whatever the
 * number of tables.  A launch asks over a path socket in the caller's
 * private runtime directory, before it makes its namespaces, and takes the
 * answer in the parent while pid 1 builds the root, where the walk would
 * have run.  The watcher drains its queue before it answers: inotify
 * queues an event in the system call that changes a directory, before
 * that call returns, so whatever the caller changed before the launch is
 * in the answer.
 *
 * All of a user's watchers together hold at most AIJAIL_WATCH_SHARE
 * percent (10) of the user's inotify watches; one that needs more asks
 * those unused the longest to give way (they exit; launches there walk),
 * and gives way itself when that is not enough.
 *
 * Every doubt ends in the walk, never in an uncovered secret: no watcher,
 * a socket of another user or of a process in another user, pid or mount
 * namespace (a jail's: no jail maps this directory, but a caller could),
 * no answer within WATCH_WAIT_MS, an answer for another project, an
 * overflowed queue, a mount made or removed, a directory it could not
 * watch, a masked file with another hard link (the walk's second pass
 * finds its other names), a hit that is not what the index says.  Then pid
 * 1 checks every cover's object as it does after a walk (mask.c).  A jail
 * reaches neither the socket nor the watcher: its directory is mapped into
 * no jail, the watcher is outside the jails' pid namespaces and Landlock
 * domains.  The watcher exits after AIJAIL_WATCH_IDLE seconds (900)
 * without a request; AIJAIL_WATCH=0 turns it off. */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>

#include "scan/scan.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif
/* The stub's sources (the Makefile's hash of them): a watcher forked
 * from another build classifies as that build did, so it is not asked. */
#ifndef AJ_WATCH_BUILD
#define AJ_WATCH_BUILD 0ULL
#endif

#define WATCH_MAGIC      0x32776a61u /* "ajw2" */
#define WATCH_WAIT_MS    5000
#define WATCH_MIN        1000
#define WATCH_IDLE       900
#define WATCH_SLOW_NS    10000000ULL /* a walk of 10 ms */
#define WATCH_SHARE      10          /* percent of max_user_watches, all watchers together */
#define WATCH_TABLES     8           /* scan tables one watcher serves */
#define WATCH_TABLE_MAX  65536       /* a flattened table's bytes */
#define WATCH_STEPS      2048        /* its steps, floating and anchored */
#define WATCH_LABELS     96 /* "jail-npm/lockdown …": who used a table, for the listing */
#define WATCH_STATE_SIZE 1024

enum { ANS_OK = 0, ANS_WALK = 1 };
enum { OP_ASK = 0, OP_YIELD = 1 };

struct watch_req {
	uint32_t magic, op;
	uint64_t dev, ino;
	char key[24];
	char label[40]; /* the stub and mode, for aijail-status --watchers */
	uint32_t tlen, pad;
	/* tlen bytes follow: the scan table, flattened */
};

struct watch_ans {
	uint32_t magic, status;
	uint64_t dev, ino;
	uint32_t n, used;
};

/* A scan table flattened: the header, the steps (floating, then
 * anchored), the byte sets, then the steps' strings, each NUL-ended. */
struct wt_hdr {
	uint32_t len;
	uint16_t n_floating;
	uint8_t n_steps, n_sets, depth, bound, deny_sockets, pad;
	uint64_t start;
};
struct wt_step {
	uint8_t op, flags, kind, first, min, max, la, lb;
	uint64_t next;
	uint16_t pattern, pad;
	uint32_t a, b; /* offsets of the strings */
};

const char *watch_source = "the walk";
/* For --jail-explain: whether a watcher can serve this launch, and why not. */
const char *watch_state = "off, because this launch has nothing to scan";
static char key[24];  /* "w-" and 16 hex digits: the project, in this mount namespace */
static bool watching; /* a launch that may start a watcher */
static int rdir = -1; /* the runtime directory, O_PATH */
static uint64_t proj_dev, proj_ino;
static const char *why_no_dir;
static bool dir_absent; /* not made yet (a launch makes it when it marks a project) */
static char label[40];
static _Alignas(8) uint8_t flat[WATCH_TABLE_MAX]; /* this launch's table, flattened */
static uint32_t flat_len;

static unsigned env_num(const char *name, unsigned dflt)
{
	const char *s = getenv(name);
	unsigned long n = 0;

	if (!s || !*s)
		return dflt;
	for (; *s >= '0' && *s <= '9'; s++)
		n = n * 10 + (unsigned)(*s - '0');
	return *s || n > 100000000 ? dflt : (unsigned)n;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t wall_ms(void)
{
	struct timespec t;

	syscall(SYS_clock_gettime, CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

/* The key's file with suffix, in the runtime directory. */
static void key_name(char *buf, const char *k, const char *suffix)
{
	memcpy(buf, k, 18);
	memcpy(buf + 18, suffix, strlen(suffix) + 1);
}

static void sun_of(struct sockaddr_un *a, const char *k)
{
	size_t n;

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	memcpy(a->sun_path, "/proc/self/fd/", 14);
	n = 14 + fmt_u(a->sun_path + 14, (unsigned)rdir);
	a->sun_path[n++] = '/';
	key_name(a->sun_path + n, k, ".sock");
}

/* Ours, and nobody else can put anything in it or take it away: owned by
 * us, writable by no one else (private: nor readable, nor searchable). */
static bool ours(int fd, bool private)
{
	struct stat st;

	return fd >= 0 && !fstat(fd, &st) && S_ISDIR(st.st_mode) && st.st_uid == getuid() &&
	       !(st.st_mode & (private ? 077 : 022));
}

/* name in dir, a directory of ours (made 0700 when make), or -1. */
static int sub_dir(int dir, const char *name, bool make, bool private)
{
	int fd;

	if (dir < 0)
		return -1;
	if (make)
		(void)mkdirat(dir, name, 0700);
	fd = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	dir_absent = fd < 0 && errno == ENOENT && !make;
	close(dir);
	if (ours(fd, private))
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Where the sockets live: somewhere only the caller can make, so that no
 * one else can take the name first.  $XDG_RUNTIME_DIR/aijail when that is
 * a private directory of the caller's, else $XDG_CACHE_HOME/aijail/run or
 * $HOME/.cache/aijail/run, each step a directory of the caller's that no
 * one else may write, the last two 0700.  Never a name in a shared
 * directory (/tmp): another user could make it first.  Made only when a
 * project is marked (make): where none exists, no watcher can. */
static int runtime_dir(bool make)
{
	const char *x = getenv("XDG_RUNTIME_DIR"), *c = getenv("XDG_CACHE_HOME");
	const char *h = getenv("HOME");
	int fd;

	if (x && x[0] == '/') {
		fd = open(x, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (ours(fd, true))
			return sub_dir(fd, "aijail", make, true);
		if (fd >= 0)
			close(fd);
	}
	if (c && c[0] == '/') {
		fd = open(c, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (!ours(fd, false)) {
			why_no_dir =
			    "$XDG_RUNTIME_DIR is unset or not the caller's alone (0700), and "
			    "$XDG_CACHE_HOME is not a directory of the caller's that only the "
			    "caller may write";
			if (fd >= 0)
				close(fd);
			return -1;
		}
	} else {
		fd = h && h[0] == '/' ? open(h, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
		if (!ours(fd, false)) {
			why_no_dir =
			    "$XDG_RUNTIME_DIR is unset or not the caller's alone (0700), and "
			    "$HOME is not a directory of the caller's that only the caller may "
			    "write";
			if (fd >= 0)
				close(fd);
			return -1;
		}
		fd = sub_dir(fd, ".cache", make, false);
		if (fd < 0) {
			why_no_dir =
			    "$XDG_RUNTIME_DIR is unset or not the caller's alone (0700), and "
			    "$HOME/.cache is not a directory of the caller's that only the "
			    "caller may write";
			return -1;
		}
	}
	fd = sub_dir(fd, "aijail", make, true);
	if (fd >= 0)
		fd = sub_dir(fd, "run", make, true);
	if (fd < 0)
		why_no_dir = "$XDG_RUNTIME_DIR is unset or not the caller's alone (0700), and the "
		             "cache's aijail/run is not a directory of the caller's alone (0700)";
	return fd;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	for (const unsigned char *c = p; n--; c++)
		h = (h ^ *c) * 0x100000001b3ULL;
	return h;
}

/* Which watcher answers this launch: the project, in this mount
 * namespace, for this uid and this build of the stub's code.  Not the
 * stub, the policy or the mode: the table travels with the question. */
static bool make_key(void)
{
	struct stat pst, mst;
	uint64_t h = 0xcbf29ce484222325ULL, x[7];
	static const char hex[] = "0123456789abcdef";

	if (stat(".", &pst) || stat("/proc/self/ns/mnt", &mst))
		return false;
	proj_dev = pst.st_dev;
	proj_ino = pst.st_ino;
	x[0] = pst.st_dev;
	x[1] = pst.st_ino;
	x[2] = AJ_WATCH_BUILD;
	x[3] = AJ_ABI;
	x[4] = getuid();
	x[5] = mst.st_ino; /* a watcher sees the mounts of its own namespace */
	x[6] = mst.st_dev;
	h = fnv(h, x, sizeof(x));
	memcpy(key, "w-", 2);
	for (unsigned i = 0; i < 16; i++)
		key[2 + i] = hex[(h >> (60 - 4 * i)) & 15];
	key[18] = '\0';
	return true;
}

/* ---- the scan table, flattened and back --------------------------------- */

static bool put(uint32_t *at, const void *p, size_t n)
{
	if (*at + n > sizeof(flat))
		return false;
	memcpy(flat + *at, p, n);
	*at += (uint32_t)n;
	return true;
}

static bool flatten(const struct aj_variant *v)
{
	const struct aj_scan *sc = v->scan;
	unsigned n = sc->n_floating + sc->n_steps;
	uint32_t at = sizeof(struct wt_hdr) + n * sizeof(struct wt_step), s;
	struct wt_hdr h = {
	    .n_floating = sc->n_floating,
	    .n_steps = sc->n_steps,
	    .n_sets = sc->n_sets,
	    .depth = sc->depth,
	    .bound = sc->bound,
	    .deny_sockets = v->network != AJ_NET_HOST,
	    .start = sc->start,
	};

	if (n > WATCH_STEPS || !put(&at, sc->sets, sc->n_sets * 32u))
		return false;
	for (unsigned i = 0; i < n; i++) {
		const struct aj_step *st =
		    i < sc->n_floating ? &sc->floating[i] : &sc->steps[i - sc->n_floating];
		struct wt_step w = {
		    .op = st->op,
		    .flags = st->flags,
		    .kind = st->kind,
		    .first = st->first,
		    .min = st->min,
		    .max = st->max,
		    .la = st->la,
		    .lb = st->lb,
		    .next = st->next,
		    .pattern = st->pattern,
		};

		w.a = at;
		if (!put(&at, st->a ? st->a : "", st->a ? strlen(st->a) + 1 : 1))
			return false;
		w.b = at;
		if (!put(&at, st->b ? st->b : "", st->b ? strlen(st->b) + 1 : 1))
			return false;
		s = sizeof(h) + i * sizeof(w);
		memcpy(flat + s, &w, sizeof(w));
	}
	h.len = at;
	memcpy(flat, &h, sizeof(h));
	flat_len = at;
	return true;
}

/* The watcher's copy of one table. */
struct table {
	struct aj_scan sc;
	struct aj_variant v;
	struct aj_step steps[WATCH_STEPS];
	uint32_t len;
	bool ready;
	char labels[WATCH_LABELS];
	_Alignas(8) uint8_t blob[WATCH_TABLE_MAX];
	/* then the index, scan_index_size() bytes */
};

static const char *str_at(const uint8_t *b, uint32_t len, uint32_t off, size_t *l)
{
	const uint8_t *z;

	if (off >= len || !(z = memchr(b + off, 0, len - off)))
		return NULL;
	*l = (size_t)(z - (b + off));
	return (const char *)b + off;
}

/* A table from a launch of ours, checked so that no step reads past its
 * strings or sets, nor names a step that is not there. */
static bool unflatten(struct table *t)
{
	struct wt_hdr h;
	unsigned n;
	uint32_t sets;
	uint64_t all;

	if (t->len < sizeof(h))
		return false;
	memcpy(&h, t->blob, sizeof(h));
	n = h.n_floating + h.n_steps;
	sets = sizeof(h) + n * sizeof(struct wt_step);
	if (h.len != t->len || n > WATCH_STEPS || h.n_steps > AJ_SCAN_STEPS || !h.depth ||
	    h.depth > AJ_SCAN_DEPTH_MAX || sets + h.n_sets * 32u > t->len)
		return false;
	all = h.n_steps == 64 ? ~0ULL : (1ULL << h.n_steps) - 1;
	if (h.start & ~all)
		return false;
	for (unsigned i = 0; i < n; i++) {
		struct wt_step w;
		struct aj_step *st = &t->steps[i];
		size_t la, lb;

		memcpy(&w, t->blob + sizeof(h) + i * sizeof(w), sizeof(w));
		*st = (struct aj_step){
		    .op = w.op,
		    .flags = w.flags,
		    .kind = w.kind,
		    .first = w.first,
		    .min = w.min,
		    .max = w.max,
		    .la = w.la,
		    .lb = w.lb,
		    .next = w.next,
		    .pattern = w.pattern,
		};
		st->a = str_at(t->blob, t->len, w.a, &la);
		st->b = str_at(t->blob, t->len, w.b, &lb);
		if (!st->a || !st->b || la < w.la || lb < w.lb || w.kind > AJ_PATTERN_DENY ||
		    !w.op || w.op > AJ_NAME_GLOBSTAR || (w.next & ~all) ||
		    (w.op <= AJ_NAME_AFFIX && w.la + w.lb > w.min))
			return false;
		if (w.op == AJ_NAME_GLOB)
			for (const uint8_t *p = (const uint8_t *)st->a; *p; p++)
				if ((*p == AJ_TOK_SET || *p == AJ_TOK_LIT) &&
				    (!p[1] || (*p == AJ_TOK_SET && p[1] > h.n_sets) || !*++p))
					return false;
	}
	t->sc = (struct aj_scan){
	    .floating = t->steps,
	    .steps = t->steps + h.n_floating,
	    .sets = h.n_sets ? t->blob + sets : NULL,
	    .start = h.start,
	    .n_floating = h.n_floating,
	    .n_steps = h.n_steps,
	    .n_sets = h.n_sets,
	    .depth = h.depth,
	    .bound = h.bound,
	};
	t->v.scan = &t->sc;
	t->v.network = h.deny_sockets ? AJ_NET_NONE : AJ_NET_HOST;
	return true;
}

/* ---- the launch ------------------------------------------------------------ */

static bool same_ns(pid_t pid, const char *ns)
{
	char p[64] = "/proc/", s[64] = "/proc/self/ns/";
	struct stat a, b;
	size_t n = 6 + fmt_u(p + 6, (unsigned)pid);

	memcpy(p + n, "/ns/", 4);
	memcpy(p + n + 4, ns, strlen(ns) + 1);
	memcpy(s + 14, ns, strlen(ns) + 1);
	return !stat(p, &a) && !stat(s, &b) && a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

/* The other end is a process of ours in our own user, pid and mount
 * namespaces, and still the one that holds the socket when looked at:
 * the watcher, for a launch or for a watcher asking it to give way. */
static bool peer_ok(int s)
{
	struct ucred cr;
	socklen_t l = sizeof(cr);
	int pidfd = -1;
	bool ok;

	if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cr, &l) || cr.uid != getuid() || cr.pid <= 0)
		return false;
	l = sizeof(pidfd);
	if (getsockopt(s, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &l) || pidfd < 0)
		return false;
	ok = same_ns(cr.pid, "user") && same_ns(cr.pid, "pid") && same_ns(cr.pid, "mnt") &&
	     !syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0);
	close(pidfd);
	return ok;
}

/* The share of the user's inotify watches all watchers may hold. */
static unsigned watch_limit(void)
{
	char b[24];
	unsigned long n = 0;
	unsigned share = env_num("AIJAIL_WATCH_SHARE", WATCH_SHARE);
	int fd;
	size_t r;

	if (getenv("AIJAIL_WATCH_LIMIT"))
		return env_num("AIJAIL_WATCH_LIMIT", 0);
	fd = open("/proc/sys/fs/inotify/max_user_watches", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	r = fd_read(fd, b, sizeof(b) - 1);
	close(fd);
	b[r] = '\0';
	for (char *p = b; *p >= '0' && *p <= '9'; p++)
		n = n * 10 + (unsigned)(*p - '0');
	if (!share || share > 100)
		share = WATCH_SHARE;
	return (unsigned)(n * share / 100);
}

static unsigned num_of(const char *s)
{
	unsigned long n = 0;

	for (; *s >= '0' && *s <= '9'; s++)
		n = n * 10 + (unsigned)(*s - '0');
	return n > 0xffffffffUL ? 0xffffffffU : (unsigned)n;
}

static uint64_t num_ms(const char *s)
{
	uint64_t n = 0;

	for (; *s >= '0' && *s <= '9' && n < (1ULL << 59); s++)
		n = n * 10 + (unsigned)(*s - '0');
	return n;
}

static noreturn void serve(void);

/* The watcher, forked twice (no zombie, no session, no terminal): before
 * any namespace, so that it is in none of the jail's. */
static void spawn(void)
{
	pid_t pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);

	if (pid < 0)
		return;
	if (!pid) {
		setsid();
		if (syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0))
			_exit(0);
		serve();
	}
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* The mark a large walk left: the directories it read (the watches the
 * project needs), or -1: none. */
static long marked(void)
{
	char lock[64], b[16];
	int fd;
	size_t r;

	key_name(lock, key, ".lock");
	fd = openat(rdir, lock, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	r = fd_read(fd, b, sizeof(b) - 1);
	close(fd);
	b[r] = '\0';
	return num_of(b);
}

int watch_ask(const struct aj_variant *v, const char *mode)
{
	const char *e = getenv("AIJAIL_WATCH");
	struct timeval tv = {WATCH_WAIT_MS / 1000, WATCH_WAIT_MS % 1000 * 1000};
	struct sockaddr_un a;
	struct watch_req q = {.magic = WATCH_MAGIC, .op = OP_ASK};
	struct iovec iov[2];
	struct msghdr m = {.msg_iov = iov, .msg_iovlen = 2};
	size_t pl = strlen(aj_the_policy->progname), ml = strlen(mode);
	int s;

	key[0] = '\0';
	if (!scan_needed(v))
		return -1;
	if (e && (!strcmp(e, "0") || !strcmp(e, "off") || !strcmp(e, "no"))) {
		watch_state = "off, because AIJAIL_WATCH=0";
		return -1;
	}
	watch_state = "on: none for this project yet (a walk of AIJAIL_WATCH_MIN directories or "
	              "more starts one)";
	if (pl + ml + 2 > sizeof(label))
		pl = ml = 0;
	memcpy(label, aj_the_policy->progname, pl);
	label[pl] = '/';
	memcpy(label + pl + 1, mode, ml + 1);
	watching = true;
	if ((rdir = runtime_dir(false)) < 0) {
		watching = dir_absent;
		return -1;
	}
	if (!make_key()) {
		key[0] = '\0';
		return -1;
	}
	sun_of(&a, key);
	s = (int)syscall(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	if (syscall(SYS_connect, s, &a, sizeof(a))) {
		long need;
		unsigned lim;

		close(s);
		if ((need = marked()) < 0)
			return -1;
		lim = watch_limit();
		if (need && lim && (unsigned long)need > lim) {
			watch_state = "off for this project, because it needs more inotify watches "
			              "than all watchers may hold (AIJAIL_WATCH_SHARE percent of "
			              "max_user_watches, 10 unless set): launches here walk";
			return -1;
		}
		if (flatten(v)) {
			watch_state = "on: starting this project's watcher (this launch walks)";
			spawn();
		}
		return -1;
	}
	watch_state = "on: this project's watcher was not trusted or did not answer; this "
	              "launch walks";
	if (!flatten(v)) {
		close(s);
		return -1;
	}
	q.dev = proj_dev;
	q.ino = proj_ino;
	q.tlen = flat_len;
	memcpy(q.key, key, sizeof(q.key));
	memcpy(q.label, label, sizeof(q.label));
	iov[0] = (struct iovec){&q, sizeof(q)};
	iov[1] = (struct iovec){flat, flat_len};
	if (!peer_ok(s) || setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) ||
	    syscall(SYS_sendmsg, s, &m, MSG_NOSIGNAL) != (long)(sizeof(q) + flat_len)) {
		close(s);
		return -1;
	}
	return s;
}

static bool get(int s, void *buf, size_t n)
{
	return fd_read(s, buf, n) == n;
}

/* The watcher's answer into the scan's result; false: walk. */
static bool take(int s)
{
	static uint8_t notes[AJ_SCAN_MAX];
	struct watch_ans h;

	if (!get(s, &h, sizeof(h)) || h.magic != WATCH_MAGIC || h.dev != proj_dev ||
	    h.ino != proj_ino)
		return false;
	if (h.status != ANS_OK) {
		watch_state = "on: this project's watcher is making the index for this scan table; "
		              "this launch walks";
		return false;
	}
	if (h.n > AJ_SCAN_MAX || h.used > AJ_SCAN_ARENA || (h.n && !h.used))
		return false;
	scan->n = scan->used = scan->n_pruned = 0;
	if (!get(s, scan->hits, h.n * sizeof(scan->hits[0])) || !get(s, scan->arena, h.used) ||
	    !get(s, notes, h.n) || (h.used && scan->arena[h.used - 1]))
		return false;
	for (unsigned i = 0; i < h.n; i++)
		if (scan->hits[i].off >= h.used || !scan->hits[i].kind)
			return false;
	memset(notes + h.n, 0, sizeof(notes) - h.n);
	scan->n = h.n;
	scan->used = h.used;
	git_notes_apply(scan, notes);
	return true;
}

void watch_scan(int s, const struct aj_variant *v)
{
	bool ok = s >= 0 && take(s);
	uint64_t t0;
	unsigned min;
	int pfd;

	if (s >= 0)
		close(s);
	if (ok) {
		pfd = openat(AT_FDCWD, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (pfd < 0)
			diep("scan", ".", errno, NULL);
		scan_guards(pfd, v);
		close(pfd);
		watch_source = "the watcher";
		watch_state = "on: this project's watcher answered";
		return;
	}
	if (s >= 0)
		scan->n = scan->used = 0;
	t0 = now_ns();
	scan_project(".", v);
	min = env_num("AIJAIL_WATCH_MIN", WATCH_MIN);
	/* A large project, or a slow walk of a fair number of directories
	 * (a big repository in few of them): the next launch starts a
	 * watcher.  The mark holds the directories read: the watches it
	 * would need. */
	if (s < 0 && watching &&
	    (scan_dirs() >= min ||
	     (scan_dirs() >= min * 3 / 10 && now_ns() - t0 >= WATCH_SLOW_NS))) {
		char lock[64], n[16];
		int fd;

		if (rdir < 0 && (rdir = runtime_dir(true)) < 0) {
			watch_state =
			    "off, because there is no runtime directory only the caller can "
			    "make; launches walk";
			return;
		}
		if (!key[0] && !make_key())
			return;
		key_name(lock, key, ".lock");
		fd = openat(rdir, lock, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			size_t l = fmt_u(n, scan_dirs());

			n[l++] = '\n';
			(void)pwrite(fd, n, l, 0);
			close(fd);
		}
		if (!strncmp(watch_state, "on: none", 8))
			watch_state =
			    "on: this project is marked; the next launch starts its watcher";
	}
}

/* For --jail-explain: why there is no watcher, when that is so. */
const char *watch_explain(void)
{
	static char b[512];
	size_t n;

	if (watching || !why_no_dir || dir_absent)
		return watch_state;
	n = strlen(why_no_dir);
	memcpy(b, "off, because ", 13);
	if (n > sizeof(b) - 30)
		n = sizeof(b) - 30;
	memcpy(b + 13, why_no_dir, n);
	memcpy(b + 13 + n, "; launches walk", 16);
	return b;
}

/* ---- the watcher --------------------------------------------------------- */

static int ifd = -1, pfd = -1, mfd = -1, lk = -1, sfd = -1;
static jmp_buf failed;
static int client = -1;
static char sockname[64], statename[64], lockname[64];
static struct table *tables[WATCH_TABLES];
static unsigned n_tables, cur = ~0u;
static uint64_t started, last_used, limit;
static unsigned written_watches = ~0u;
static char refused[8][19]; /* watchers that did not give way when asked */
static unsigned n_refused;
static uint64_t written_used;

static void use(unsigned t)
{
	if (cur == t)
		return;
	cur = t;
	scan_index_use((char *)tables[t] + sizeof(struct table), &tables[t]->v);
}

static void on_die(void)
{
	longjmp(failed, 1);
}

static void unlink_ours(bool mark)
{
	(void)unlinkat(rdir, sockname, 0);
	(void)unlinkat(rdir, statename, 0);
	if (mark)
		(void)unlinkat(rdir, lockname, 0);
}

/* What aijail-status --watchers lists, and what other watchers count
 * against the share: one short text file beside the socket. */
static void publish(void)
{
	static char b[WATCH_STATE_SIZE];
	const char *proj = var_value(AJ_VAR_PROJECT);
	size_t n = 0, l;

	if (sfd < 0 || (scan_watches == written_watches && last_used == written_used))
		return;
	written_watches = scan_watches;
	written_used = last_used;
#define ADD(s)                                                                                     \
	(l = strlen(s), l = l < sizeof(b) - n - 2 ? l : sizeof(b) - n - 2, memcpy(b + n, s, l),    \
	 n += l)
#define NUM(u) (n += n + 24 < sizeof(b) ? fmt_u(b + n, (u)) : 0)
	ADD("pid ");
	NUM((unsigned long long)getpid());
	ADD("\nwatches ");
	NUM(scan_watches);
	ADD("\nstarted ");
	NUM(started / 1000);
	ADD("\nused ");
	NUM(last_used / 1000);
	ADD("\nused_ms ");
	NUM(last_used);
	ADD("\ntables ");
	NUM(n_tables);
	for (unsigned t = 0; t < n_tables; t++) {
		ADD(tables[t]->ready ? "\ntable " : "\ntable (no index) ");
		ADD(tables[t]->labels);
	}
	ADD("\nproject ");
	ADD(proj ? proj : "?");
	b[n++] = '\n';
#undef ADD
#undef NUM
	if (pwrite(sfd, b, n, 0) == (ssize_t)n)
		(void)ftruncate(sfd, (off_t)n);
}

static noreturn void give_way(void)
{
	unlink_ours(true);
	_exit(0);
}

/* The other watchers of this runtime directory, alive (their lock held):
 * their watches in all, and the one unused the longest before us, whose
 * key is put in old (empty: none). */
static uint64_t others(char *old)
{
	static _Alignas(8) char buf[4096];
	uint64_t sum = 0, oldest = last_used;
	int d = openat(rdir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dir_iter it = {d, buf, sizeof(buf), 0, 0};
	struct aj_dirent *e;

	old[0] = '\0';
	if (d < 0)
		return 0;
	while ((e = dir_next(&it, "list", "the watchers"))) {
		char st[WATCH_STATE_SIZE], lock[64], *w, *u;
		size_t l = strlen(e->d_name), r;
		int fd, lf;

		if (l != 24 || strcmp(e->d_name + 18, ".state") || !strncmp(e->d_name, key, 18))
			continue;
		key_name(lock, e->d_name, ".lock");
		lf = openat(rdir, lock, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (lf < 0)
			continue;
		if (!flock(lf, LOCK_SH | LOCK_NB)) {
			close(lf); /* nobody holds it: a watcher gone */
			continue;
		}
		close(lf);
		fd = openat(rdir, e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		r = fd_read(fd, st, sizeof(st) - 1);
		close(fd);
		st[r] = '\0';
		if (!(w = strstr(st, "\nwatches ")) || !(u = strstr(st, "\nused_ms ")))
			continue;
		sum += num_of(w + 9);
		for (unsigned i = 0; i < n_refused && i < 8; i++)
			if (!strncmp(refused[i], e->d_name, 18))
				u = NULL;
		if (u && num_ms(u + 9) <= oldest) {
			oldest = num_ms(u + 9);
			memcpy(old, e->d_name, 18);
			old[18] = '\0';
		}
	}
	close(d);
	return sum;
}

/* Asks the watcher of key k to give way, and waits a little for it. */
static void evict(const char *k)
{
	struct watch_req q = {.magic = WATCH_MAGIC, .op = OP_YIELD};
	struct sockaddr_un a;
	char st[64];
	/* Non-blocking: a watcher that does not accept (hung, or busy
	 * making room itself) does not hold us. */
	int s = (int)syscall(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (s < 0)
		return;
	sun_of(&a, k);
	memcpy(q.key, k, 18);
	if (!syscall(SYS_connect, s, &a, sizeof(a)) && peer_ok(s))
		(void)syscall(SYS_sendto, s, &q, sizeof(q), MSG_NOSIGNAL, NULL, 0);
	close(s);
	key_name(st, k, ".state");
	for (unsigned i = 0; !faccessat(rdir, st, F_OK, AT_SYMLINK_NOFOLLOW); i++) {
		if (i == 50) {
			memcpy(refused[n_refused++ % 8], k, 18);
			return;
		}
		poll(NULL, 0, 10);
	}
}

/* Room for need watches of ours: the others unused the longest give way
 * first; false: not even then. */
static bool make_room(uint64_t need)
{
	char old[24];

	for (unsigned i = 0; i < 64; i++) {
		uint64_t o = others(old);

		if (o + need <= limit) {
			scan_watch_budget = (unsigned)(limit - o);
			return true;
		}
		if (!old[0])
			return false;
		evict(old);
	}
	return false;
}

/* Every table's index again, in a new inotify instance: after anything it
 * cannot follow event by event. */
static void rebuild(void)
{
	uint64_t need = scan_watches + scan_watches / 8 + 64;

	for (unsigned t = 0; t < n_tables; t++)
		tables[t]->ready = false;
	ifd = scan_watch_begin();
	if (ifd < 0)
		return;
	for (unsigned round = 0; round < 2; round++) {
		bool over = false;

		for (unsigned t = 0; t < n_tables && !over; t++) {
			use(t);
			tables[t]->ready = scan_walk(pfd, &tables[t]->v);
			over = scan_over_budget;
		}
		if (!over)
			break;
		/* Our share is used up: older watchers give way, or we do. */
		need = scan_watches + scan_watches / 8 + 64;
		ifd = scan_watch_begin();
		if (ifd < 0 || !make_room(need) || round)
			give_way();
	}
	written_watches = ~0u;
}

/* The queue, drained into every index. */
static void follow(void)
{
	static _Alignas(8) char buf[1 << 16];
	bool lost = false;

	for (;;) {
		long n = scan_events_read(buf, sizeof(buf));

		if (n == 0)
			break;
		if (n < 0) {
			lost = true;
			break;
		}
		for (unsigned t = 0; t < n_tables; t++) {
			int r;

			if (!tables[t]->ready)
				continue;
			use(t);
			r = scan_events_apply(pfd, buf, n);
			if (r == SCAN_EV_GONE)
				give_way(); /* the project is gone */
			lost |= r == SCAN_EV_LOST;
		}
		scan_events_done(buf, n);
	}
	if (lost)
		rebuild();
}

/* 0: every hit is what the index says; 1: something moved since (its
 * events are on the way); 2: a masked file has another name: walk. */
static int check_hits(void)
{
	for (unsigned i = 0; i < scan->n; i++) {
		const struct scan_hit *h = &scan->hits[i];
		struct stat st;
		int fd;

		if (!h->ino)
			continue;
		fd = openat2_(pfd, scan->arena + h->off, O_PATH | O_NOFOLLOW,
		              RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
		if (fd < 0)
			return 1;
		if (fstat(fd, &st) || st.st_ino != h->ino || st.st_dev != h->dev) {
			close(fd);
			return 1;
		}
		close(fd);
		if (S_ISREG(st.st_mode) && st.st_nlink > 1)
			return 2;
	}
	scan_links_clear(); /* checked here, answer by answer */
	return 0;
}

static void add_label(struct table *t, const char *l)
{
	size_t n = strlen(t->labels), k = strnlen(l, 39);

	if (!k || memmem(t->labels, n, l, k) || n + k + 2 > sizeof(t->labels))
		return;
	if (n)
		t->labels[n++] = ' ';
	memcpy(t->labels + n, l, k);
	t->labels[n + k] = '\0';
	written_watches = ~0u;
}

/* The table a request names, made (not walked yet: *fresh) if new;
 * -1: none to be had. */
static int table_of(const uint8_t *blob, uint32_t len, const char *l, bool *fresh)
{
	struct table *t;
	size_t size = sizeof(struct table) + scan_index_size();

	*fresh = false;
	for (unsigned i = 0; i < n_tables; i++)
		if (tables[i]->len == len && !memcmp(tables[i]->blob, blob, len)) {
			add_label(tables[i], l);
			return (int)i;
		}
	if (n_tables == WATCH_TABLES)
		return -1;
	t = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
	         -1, 0);
	if (t == MAP_FAILED)
		return -1;
	memcpy(t->blob, blob, len);
	t->len = len;
	if (!unflatten(t)) {
		munmap(t, size);
		return -1;
	}
	add_label(t, l);
	tables[n_tables] = t;
	*fresh = true;
	return (int)n_tables++;
}

/* A new table's index: walked in the instance the others use (their
 * watches are its watches too). */
static void add_table(unsigned t)
{
	use(t);
	tables[t]->ready = ifd >= 0 && scan_walk(pfd, &tables[t]->v);
	if (scan_over_budget) {
		scan_over_budget = false;
		if (!make_room(scan_watches + scan_watches / 8 + 64))
			give_way();
		rebuild();
	}
}

/* -1: nothing to walk afterwards; else a new table to walk, once the
 * answer ("walk", for now) is sent. */
static int reply(int c)
{
	static _Alignas(8) uint8_t blob[WATCH_TABLE_MAX];
	static struct scan_result ans;
	struct watch_req q;
	struct watch_ans h = {.magic = WATCH_MAGIC, .status = ANS_WALK};
	struct timeval tv = {1, 0};
	bool fresh = false;
	int t = -1;

	struct ucred cr;
	socklen_t l = sizeof(cr);

	/* A launch is of our uid; its namespaces are not looked at: it may
	 * have joined its jail's user namespace by now (it reads the answer
	 * later, in the parent).  What a stranger of our uid could get here
	 * is the names a jail sees anyway, or work for the watcher. */
	if (setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) ||
	    getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &l) || cr.uid != getuid() ||
	    !get(c, &q, sizeof(q)) || q.magic != WATCH_MAGIC || memcmp(q.key, key, 18))
		return -1;
	/* Only another watcher asks us to give way: a process whose
	 * namespaces stay what they were, and must be ours. */
	if (q.op == OP_YIELD && peer_ok(c))
		give_way();
	if (q.op != OP_ASK || q.dev != proj_dev || q.ino != proj_ino || q.tlen > sizeof(blob) ||
	    !get(c, blob, q.tlen))
		return -1;
	q.label[sizeof(q.label) - 1] = '\0';
	h.dev = proj_dev;
	h.ino = proj_ino;
	last_used = wall_ms();
	t = table_of(blob, q.tlen, q.label, &fresh);
	if (t >= 0 && !fresh && tables[t]->ready) {
		struct pollfd mp = {mfd, POLLPRI, 0};

		if (poll(&mp, 1, 0) > 0)
			rebuild(); /* a mount made or removed: what is below it now? */
		for (unsigned tries = 0; tables[t]->ready && tries < 8; tries++) {
			int r;

			follow();
			use((unsigned)t);
			if (!tables[t]->ready || (r = check_hits()) == 2)
				break;
			if (!r) {
				h.status = ANS_OK;
				break;
			}
		}
	}
	if (h.status == ANS_OK) {
		scan_compact();
		ans.n = scan->n;
		ans.used = scan->used;
		memcpy(ans.hits, scan->hits, scan->n * sizeof(scan->hits[0]));
		memcpy(ans.arena, scan->arena, scan->used);
		/* Git's looks are replayed per table and generation of hits. */
		git_memo = scan_changes * WATCH_TABLES + (unsigned)t + 1;
		git_tracked_scan(&ans, pfd, var_value(AJ_VAR_PROJECT));
		h.n = ans.n;
		h.used = ans.used;
	}
	struct iovec iov[4] = {
	    {&h, sizeof(h)},
	    {ans.hits, h.n * sizeof(ans.hits[0])},
	    {ans.arena, h.used},
	    {(void *)git_notes(), h.n},
	};
	struct msghdr m = {.msg_iov = iov, .msg_iovlen = h.status == ANS_OK ? 4 : 1};
	(void)syscall(SYS_sendmsg, c, &m, MSG_NOSIGNAL);
	return fresh ? t : -1;
}

static uint64_t now_s(void)
{
	return now_ns() / 1000000000u;
}

static noreturn void serve(void)
{
	static struct sockaddr_un a;
	static int ls = -1;
	static uint64_t last;
	static struct stat sst;
	unsigned idle = env_num("AIJAIL_WATCH_IDLE", WATCH_IDLE);
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	long need;
	bool fresh;

	/* Nothing of the caller's: its terminal, its pipes (a caller that
	 * waits for their end), its descriptors. */
	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
		_exit(1);
	if (rdir != 3 && (dup2(rdir, 3) < 0 || (close(rdir), 0)))
		_exit(1);
	rdir = 3;
	syscall(SYS_close_range, 4U, ~0U, 0U);
	umask(077);
	prctl(PR_SET_NAME, "aijail-watch");
	aj_die_reap = 0;
	aj_die_undo = NULL;
	aj_die_cleanup = on_die;
	key_name(lockname, key, ".lock");
	key_name(sockname, key, ".sock");
	key_name(statename, key, ".state");
	need = marked();
	lk = openat(rdir, lockname, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (lk < 0 || flock(lk, LOCK_EX | LOCK_NB))
		_exit(0); /* another watcher has it */
	started = last_used = wall_ms();
	limit = watch_limit();
	if (setjmp(failed))
		_exit(1);
	/* Room for what the last walk read, before walking. */
	if (limit && !make_room(need > 0 ? (uint64_t)need : 0)) {
		(void)unlinkat(rdir, lockname, 0);
		_exit(0);
	}
	pfd = openat(AT_FDCWD, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	mfd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	sfd = openat(rdir, statename, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	sun_of(&a, key);
	(void)unlinkat(rdir, sockname, 0);
	ls = (int)syscall(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (pfd < 0 || mfd < 0 || ls < 0 || syscall(SYS_bind, ls, &a, sizeof(a)) ||
	    syscall(SYS_listen, ls, 64))
		_exit(1);
	if (fstatat(rdir, sockname, &sst, AT_SYMLINK_NOFOLLOW))
		_exit(1);
	last = now_s();
	if (table_of(flat, flat_len, label, &fresh) < 0)
		give_way();
	if (setjmp(failed)) {
		/* A walk or an event that would have ended a launch: every
		 * request gets "walk" now, until the idle time is up. */
		for (unsigned t = 0; t < n_tables; t++)
			tables[t]->ready = false;
		scan_watch_end();
		ifd = -1;
		if (client >= 0)
			close(client);
		client = -1;
	} else {
		rebuild();
	}
	for (;;) {
		struct pollfd p[3] = {{ls, POLLIN, 0}, {ifd, POLLIN, 0}, {mfd, POLLPRI, 0}};
		uint64_t t = now_s();
		int r;

		struct stat now;

		publish();
		if (t - last >= idle)
			break;
		/* Our socket removed or replaced: launches cannot reach us,
		 * and the next watcher needs the lock. */
		if (fstatat(rdir, sockname, &now, AT_SYMLINK_NOFOLLOW) ||
		    now.st_ino != sst.st_ino || now.st_dev != sst.st_dev)
			_exit(0);
		r = poll(p, 3, (int)(idle - (t - last) < 5 ? idle - (t - last) : 5) * 1000);
		if (r < 0 && errno != EINTR)
			break;
		if (r <= 0)
			continue;
		if ((p[1].revents & POLLIN) && ifd >= 0)
			follow();
		if ((p[2].revents & (POLLPRI | POLLERR)) && ifd >= 0)
			rebuild(); /* a mount made or removed: what is below it now? */
		if (p[0].revents & POLLIN) {
			int c = (int)syscall(SYS_accept4, ls, NULL, NULL, SOCK_CLOEXEC), nt = -1;

			if ((client = c) >= 0) {
				nt = reply(c);
				close(c);
				client = -1;
			}
			if (nt >= 0)
				add_table((unsigned)nt);
			last = now_s();
		}
	}
	unlink_ours(false);
	_exit(0);
}
