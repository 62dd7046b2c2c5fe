/* watch.c: the project's scan without the walk, from a watcher that keeps
 * it current (docs/performance.md, "The watcher").
 *
 * A launch whose walk read many directories (AIJAIL_WATCH_MIN, 1000; or 30 %
 * of that in 10 ms or more) leaves a mark in the caller's runtime
 * directory; the next one starts a watcher
 * for that project and policy: a process of the caller's, outside every
 * jail, forked before any namespace is made, that walks the project once
 * with scan.c, puts an inotify watch on every directory it read, and keeps
 * the walk's records and hits current event by event.  A launch asks it
 * over a path socket in that 0700 directory, before it makes its
 * namespaces, and takes the answer in the parent while pid 1 builds the
 * root, where the walk would have run.  The watcher drains its queue
 * before it answers: inotify queues an event in the system call that
 * changes a directory, before that call returns, so whatever the caller
 * changed before the launch is in the answer.
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
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>

#include "sys.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

#define WATCH_MAGIC   0x31776a61u /* "ajw1" */
#define WATCH_WAIT_MS 5000
#define WATCH_MIN     1000
#define WATCH_IDLE    900
#define WATCH_SLOW_NS 10000000ULL /* a walk of 10 ms */

enum { ANS_OK = 0, ANS_WALK = 1 };

struct watch_req {
	uint32_t magic, pad;
	uint64_t dev, ino;
	char key[24];
};

struct watch_ans {
	uint32_t magic, status;
	uint64_t dev, ino;
	uint32_t n, used;
};

const char *watch_source = "the walk";
static char key[24];
static bool watching; /* a launch that may start a watcher */  /* "w-" and 16 hex digits: the project, the policy, the stub */
static int rdir = -1; /* the runtime directory, O_PATH */
static uint64_t proj_dev, proj_ino;

static unsigned env_num(const char *name, unsigned dflt)
{
	const char *s = getenv(name);
	unsigned long n = 0;

	if (!s || !*s)
		return dflt;
	for (; *s >= '0' && *s <= '9'; s++)
		n = n * 10 + (unsigned)(*s - '0');
	return *s || n > 1000000 ? dflt : (unsigned)n;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The key's file with suffix, in the runtime directory. */
static void key_name(char *buf, const char *suffix)
{
	memcpy(buf, key, 18);
	memcpy(buf + 18, suffix, strlen(suffix) + 1);
}

static void name_of(char *buf, const char *suffix)
{
	size_t n = 0;

	memcpy(buf, "/proc/self/fd/", 14);
	n = 14 + fmt_u(buf + 14, (unsigned)rdir);
	buf[n++] = '/';
	memcpy(buf + n, key, strlen(key));
	n += strlen(key);
	memcpy(buf + n, suffix, strlen(suffix) + 1);
}

static void sun_of(struct sockaddr_un *a)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	name_of(a->sun_path, ".sock");
}

/* Ours alone: a directory owned by us, nobody else's to enter. */
static bool private_dir(int fd)
{
	struct stat st;

	return fd >= 0 && !fstat(fd, &st) && S_ISDIR(st.st_mode) && st.st_uid == getuid() &&
	       !(st.st_mode & 077);
}

/* $XDG_RUNTIME_DIR/aijail, or else /tmp/aijail-UID; made only when a
 * project is marked (make): where none exists, no watcher can. */
static int runtime_dir(bool make)
{
	const char *x = getenv("XDG_RUNTIME_DIR");
	char tmp[32] = "/tmp/aijail-";
	int fd, sub;

	if (x && x[0] == '/') {
		fd = open(x, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (private_dir(fd)) {
			if (make)
				(void)mkdirat(fd, "aijail", 0700);
			sub = openat(fd, "aijail", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			close(fd);
			if (private_dir(sub))
				return sub;
			if (sub >= 0)
				close(sub);
			return -1;
		}
		if (fd >= 0)
			close(fd);
	}
	tmp[12 + fmt_u(tmp + 12, getuid())] = '\0';
	if (make)
		(void)mkdir(tmp, 0700);
	fd = open(tmp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (private_dir(fd))
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	for (const unsigned char *c = p; n--; c++)
		h = (h ^ *c) * 0x100000001b3ULL;
	return h;
}

/* Which watcher answers this launch: the project, the stub binary, the
 * policy, the variant's scan table, whether sockets are denied, the mount
 * namespace. */
static bool make_key(const struct aj_variant *v)
{
	const char *id = aj_the_policy->identity ? aj_the_policy->identity : "";
	struct stat pst, est, mst;
	uint64_t h = 0xcbf29ce484222325ULL, x[9];
	static const char hex[] = "0123456789abcdef";

	if (stat(".", &pst) || stat("/proc/self/exe", &est) || stat("/proc/self/ns/mnt", &mst))
		return false;
	proj_dev = pst.st_dev;
	proj_ino = pst.st_ino;
	x[0] = pst.st_dev;
	x[1] = pst.st_ino;
	x[2] = est.st_dev;
	x[3] = est.st_ino;
	x[4] = (uint64_t)est.st_mtim.tv_sec * 1000000000u + (uint64_t)est.st_mtim.tv_nsec;
	x[5] = (uintptr_t)v->scan;
	x[6] = (uint64_t)(v->network != AJ_NET_HOST) << 32 | AJ_ABI;
	x[7] = getuid();
	x[8] = mst.st_ino; /* a watcher sees the mounts of its own namespace */
	h = fnv(fnv(h, x, sizeof(x)), id, strlen(id));
	memcpy(key, "w-", 2);
	for (unsigned i = 0; i < 16; i++)
		key[2 + i] = hex[(h >> (60 - 4 * i)) & 15];
	key[18] = '\0';
	return true;
}

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

/* The watcher is a process of ours in our own user, pid and mount
 * namespaces, and still the one that holds the socket when looked at. */
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

static noreturn void serve(const struct aj_variant *v);

/* The watcher, forked twice (no zombie, no session, no terminal): before
 * any namespace, so that it is in none of the jail's. */
static void spawn(const struct aj_variant *v)
{
	pid_t pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);

	if (pid < 0)
		return;
	if (!pid) {
		setsid();
		if (syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0))
			_exit(0);
		serve(v);
	}
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

int watch_ask(const struct aj_variant *v)
{
	const char *e = getenv("AIJAIL_WATCH");
	struct timeval tv = {WATCH_WAIT_MS / 1000, WATCH_WAIT_MS % 1000 * 1000};
	struct sockaddr_un a;
	struct watch_req q = {.magic = WATCH_MAGIC};
	int s;

	key[0] = '\0';
	if ((e && (!strcmp(e, "0") || !strcmp(e, "off") || !strcmp(e, "no"))) || !scan_needed(v))
		return -1;
	watching = true;
	if ((rdir = runtime_dir(false)) < 0)
		return -1;
	if (!make_key(v)) {
		key[0] = '\0';
		return -1;
	}
	sun_of(&a);
	s = (int)syscall(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	if (syscall(SYS_connect, s, &a, sizeof(a))) {
		char lock[64];

		close(s);
		key_name(lock, ".lock");
		if (!faccessat(rdir, lock, F_OK, AT_SYMLINK_NOFOLLOW))
			spawn(v);
		return -1;
	}
	q.dev = proj_dev;
	q.ino = proj_ino;
	memcpy(q.key, key, sizeof(q.key));
	if (!peer_ok(s) || setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    syscall(SYS_sendto, s, &q, sizeof(q), MSG_NOSIGNAL, NULL, 0) != (long)sizeof(q)) {
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

	if (!get(s, &h, sizeof(h)) || h.magic != WATCH_MAGIC || h.status != ANS_OK ||
	    h.dev != proj_dev || h.ino != proj_ino || h.n > AJ_SCAN_MAX || h.used > AJ_SCAN_ARENA ||
	    (h.n && !h.used))
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
		return;
	}
	if (s >= 0)
		scan->n = scan->used = 0;
	t0 = now_ns();
	scan_project(".", v);
	min = env_num("AIJAIL_WATCH_MIN", WATCH_MIN);
	/* A large project, or a slow walk of a fair number of directories
	 * (a big repository in few of them): the next launch starts a
	 * watcher. */
	if (s < 0 && watching &&
	    (scan_dirs() >= min || (scan_dirs() >= min * 3 / 10 && now_ns() - t0 >= WATCH_SLOW_NS))) {
		char lock[64];
		int fd;

		if (rdir < 0 && (rdir = runtime_dir(true)) < 0)
			return;
		if (!key[0] && !make_key(v))
			return;
		key_name(lock, ".lock");
		fd = openat(rdir, lock, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0)
			close(fd);
	}
}

/* ---- the watcher --------------------------------------------------------- */

static int ifd = -1, pfd = -1, mfd = -1;
static bool ready;
static jmp_buf failed;
static struct scan_result ans;
static int client = -1;
static char sockname[64];

/* The whole index again: after anything it cannot follow event by event. */
static void rebuild(const struct aj_variant *v)
{
	ready = false;
	ifd = scan_watch_begin();
	if (ifd < 0)
		return;
	ready = scan_walk(pfd, v);
	if (!ready) {
		scan_watch_end();
		ifd = -1;
	}
}

static void on_die(void)
{
	longjmp(failed, 1);
}

/* The queue, drained into the index. */
static void follow(const struct aj_variant *v)
{
	int r = scan_events(pfd, 0);

	if (r == SCAN_EV_GONE) {
		(void)unlinkat(rdir, sockname, 0);
		_exit(0); /* the project is gone */
	}
	if (r < 0)
		rebuild(v);
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

static void reply(int c, const struct aj_variant *v)
{
	struct watch_req q;
	struct watch_ans h = {.magic = WATCH_MAGIC, .status = ANS_WALK};
	struct timeval tv = {1, 0};
	struct ucred cr;
	socklen_t l = sizeof(cr);

	if (setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) ||
	    getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &l) || cr.uid != getuid() ||
	    !get(c, &q, sizeof(q)) || q.magic != WATCH_MAGIC || q.dev != proj_dev ||
	    q.ino != proj_ino || memcmp(q.key, key, sizeof(q.key)))
		return;
	h.dev = proj_dev;
	h.ino = proj_ino;
	struct pollfd mp = {mfd, POLLPRI, 0};
	if (ready && poll(&mp, 1, 0) > 0)
		rebuild(v); /* a mount made or removed: what is below it now? */
	for (unsigned tries = 0; ready && tries < 8; tries++) {
		int r;

		follow(v);
		if (!ready || (r = check_hits()) == 2)
			break;
		if (!r) {
			h.status = ANS_OK;
			break;
		}
	}
	if (h.status == ANS_OK) {
		scan_compact();
		ans.n = scan->n;
		ans.used = scan->used;
		memcpy(ans.hits, scan->hits, scan->n * sizeof(scan->hits[0]));
		memcpy(ans.arena, scan->arena, scan->used);
		git_memo = scan_changes + 1;
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
}

static uint64_t now_s(void)
{
	return now_ns() / 1000000000u;
}

static noreturn void serve(const struct aj_variant *v)
{
	static struct sockaddr_un a;
	static char lock[64];
	static int ls = -1;
	static uint64_t last;
	static struct stat sst;
	unsigned idle = env_num("AIJAIL_WATCH_IDLE", WATCH_IDLE);
	int null = open("/dev/null", O_RDWR | O_CLOEXEC), lk;

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
	key_name(lock, ".lock");
	key_name(sockname, ".sock");
	lk = openat(rdir, lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (lk < 0 || flock(lk, LOCK_EX | LOCK_NB))
		_exit(0); /* another watcher has it */
	pfd = openat(AT_FDCWD, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	mfd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	sun_of(&a);
	(void)unlinkat(rdir, sockname, 0);
	ls = (int)syscall(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (pfd < 0 || mfd < 0 || ls < 0 || syscall(SYS_bind, ls, &a, sizeof(a)) ||
	    syscall(SYS_listen, ls, 64))
		_exit(1);
	if (fstatat(rdir, sockname, &sst, AT_SYMLINK_NOFOLLOW))
		_exit(1);
	last = now_s();
	if (setjmp(failed)) {
		/* A walk or an event that would have ended a launch: every
		 * request gets "walk" now, until the idle time is up. */
		ready = false;
		scan_watch_end();
		ifd = -1;
		if (client >= 0)
			close(client);
		client = -1;
	} else {
		rebuild(v);
	}
	for (;;) {
		struct pollfd p[3] = {{ls, POLLIN, 0}, {ifd, POLLIN, 0}, {mfd, POLLPRI, 0}};
		uint64_t t = now_s();
		int r;

		struct stat now;

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
		if ((p[1].revents & POLLIN) && ready)
			follow(v);
		if ((p[2].revents & (POLLPRI | POLLERR)) && ready)
			rebuild(v); /* a mount made or removed: what is below it now? */
		if (p[0].revents & POLLIN) {
			int c = (int)syscall(SYS_accept4, ls, NULL, NULL, SOCK_CLOEXEC);

			if ((client = c) >= 0) {
				reply(c, v);
				close(c);
				client = -1;
			}
			last = now_s();
		}
	}
	(void)unlinkat(rdir, sockname, 0);
	_exit(0);
}
