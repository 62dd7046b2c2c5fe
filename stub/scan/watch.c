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
 * without a request; AIJAIL_WATCH=0 turns it off.
 *
 * Three files, each calling only those below it: this one, the launch's
 * side (watch_ask, watch_scan, watch_explain); watchd.c, the watcher from
 * its entry point watchd_main(); watchtab.c, what both use (the key, the
 * runtime directory, the socket's names and peers, the table flattened
 * and back); watch.h, what they say to each other. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "scan/watch.h"

const char *watch_source = "the walk";

const char *watch_origin(void)
{
	return watch_source;
}
/* For --jail-explain: whether a watcher can serve this launch, and why not. */
const char *watch_state = "off, because this launch has nothing to scan";
static bool watching; /* a launch that may start a watcher */

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
		watchd_main();
	}
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
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

	watchtab_key[0] = '\0';
	if (!scan_needed(v))
		return -1;
	if (e && (!strcmp(e, "0") || !strcmp(e, "off") || !strcmp(e, "no"))) {
		watch_state = "off, because AIJAIL_WATCH=0";
		return -1;
	}
	watch_state = "on: none for this project yet (a walk of AIJAIL_WATCH_MIN directories or "
	              "more starts one)";
	if (pl + ml + 2 > sizeof(watchtab_label))
		pl = ml = 0;
	memcpy(watchtab_label, aj_the_policy->progname, pl);
	watchtab_label[pl] = '/';
	memcpy(watchtab_label + pl + 1, mode, ml + 1);
	watching = true;
	if ((watchtab_rdir = watchtab_runtime_dir(false)) < 0) {
		watching = watchtab_dir_absent;
		return -1;
	}
	if (!watchtab_make_key()) {
		watchtab_key[0] = '\0';
		return -1;
	}
	watchtab_sun_of(&a, watchtab_key);
	s = (int)syscall(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	if (syscall(SYS_connect, s, &a, sizeof(a))) {
		long need;
		unsigned lim;

		close(s);
		if ((need = watchtab_marked()) < 0)
			return -1;
		lim = watchtab_limit();
		if (need && lim && (unsigned long)need > lim) {
			watch_state = "off for this project, because it needs more inotify watches "
			              "than all watchers may hold (AIJAIL_WATCH_SHARE percent of "
			              "max_user_watches, 10 unless set): launches here walk";
			return -1;
		}
		if (watchtab_flatten(v)) {
			watch_state = "on: starting this project's watcher (this launch walks)";
			spawn();
		}
		return -1;
	}
	watch_state = "on: this project's watcher was not trusted or did not answer; this "
	              "launch walks";
	if (!watchtab_flatten(v)) {
		close(s);
		return -1;
	}
	q.dev = watchtab_proj_dev;
	q.ino = watchtab_proj_ino;
	q.tlen = watchtab_flat_len;
	memcpy(q.key, watchtab_key, sizeof(q.key));
	memcpy(q.label, watchtab_label, sizeof(q.label));
	iov[0] = (struct iovec){&q, sizeof(q)};
	iov[1] = (struct iovec){watchtab_flat, watchtab_flat_len};
	if (!watchtab_peer_ok(s) || setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) ||
	    syscall(SYS_sendmsg, s, &m, MSG_NOSIGNAL) != (long)(sizeof(q) + watchtab_flat_len)) {
		close(s);
		return -1;
	}
	return s;
}

/* The watcher's answer into the scan's result; false: walk. */
static bool take(int s)
{
	static uint8_t notes[AJ_SCAN_MAX];
	struct watch_ans h;

	if (!watchtab_get(s, &h, sizeof(h)) || h.magic != WATCH_MAGIC ||
	    h.dev != watchtab_proj_dev || h.ino != watchtab_proj_ino)
		return false;
	if (h.status != ANS_OK) {
		watch_state = "on: this project's watcher is making the index for this scan table; "
		              "this launch walks";
		return false;
	}
	if (h.n > AJ_SCAN_MAX || h.used > AJ_SCAN_ARENA || (h.n && !h.used))
		return false;
	hits_cur->n = hits_cur->used = hits_cur->n_pruned = 0;
	if (!watchtab_get(s, hits_cur->hits, h.n * sizeof(hits_cur->hits[0])) ||
	    !watchtab_get(s, hits_cur->arena, h.used) || !watchtab_get(s, notes, h.n) ||
	    (h.used && hits_cur->arena[h.used - 1]))
		return false;
	for (unsigned i = 0; i < h.n; i++)
		if (hits_cur->hits[i].off >= h.used || !hits_cur->hits[i].kind)
			return false;
	memset(notes + h.n, 0, sizeof(notes) - h.n);
	hits_cur->n = h.n;
	hits_cur->used = h.used;
	git_notes_apply(hits_cur, notes);
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
		guards_scan(pfd, v);
		close(pfd);
		watch_source = "the watcher";
		watch_state = "on: this project's watcher answered";
		return;
	}
	if (s >= 0)
		hits_cur->n = hits_cur->used = 0;
	t0 = watchtab_now_ns();
	settle_project(".", v);
	min = watchtab_env_num("AIJAIL_WATCH_MIN", WATCH_MIN);
	/* A large project, or a slow walk of a fair number of directories
	 * (a big repository in few of them): the next launch starts a
	 * watcher.  The mark holds the directories read: the watches it
	 * would need. */
	if (s < 0 && watching &&
	    (scan_dirs() >= min ||
	     (scan_dirs() >= min * 3 / 10 && watchtab_now_ns() - t0 >= WATCH_SLOW_NS))) {
		char lock[64], n[16];
		int fd;

		if (watchtab_rdir < 0 && (watchtab_rdir = watchtab_runtime_dir(true)) < 0) {
			watch_state =
			    "off, because there is no runtime directory only the caller can "
			    "make; launches walk";
			return;
		}
		if (!watchtab_key[0] && !watchtab_make_key())
			return;
		watchtab_key_name(lock, watchtab_key, ".lock");
		fd = openat(watchtab_rdir, lock, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			size_t l = out_fmt_u(n, scan_dirs());

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

	if (watching || !watchtab_why_no_dir || watchtab_dir_absent)
		return watch_state;
	n = strlen(watchtab_why_no_dir);
	memcpy(b, "off, because ", 13);
	if (n > sizeof(b) - 30)
		n = sizeof(b) - 30;
	memcpy(b + 13, watchtab_why_no_dir, n);
	memcpy(b + 13 + n, "; launches walk", 16);
	return b;
}
