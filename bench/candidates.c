/* candidates.c: prototypes of what could replace the per-launch walk of
 * the project (issue 13), each timed on a real tree.  Never part of the
 * stub; built by bench/run.sh (PARTS=candidates) with the host's cc.
 *
 *   candidates walk DIR ROUNDS          serial getdents walk, every entry
 *   candidates pwalk DIR ROUNDS THREADS the same walk by THREADS threads
 *   candidates statdirs DIR ROUNDS      fstatat of every directory by its
 *                                       path: what validating a cache costs
 *   candidates inotify DIR REQUESTS     a watcher: walk + a watch on every
 *                                       directory, then REQUESTS requests
 *                                       over a path socket, each answered
 *                                       after draining the queue; checks
 *                                       that a .env made just before a
 *                                       request (also in a new directory)
 *                                       is in its answer
 *   candidates notif MODE PROG ARG...   PROG under a seccomp filter on
 *                                       open/openat: MODE allow (a filter
 *                                       that decides nothing), continue
 *                                       (each open goes to this supervisor,
 *                                       which reads the path and lets the
 *                                       kernel go on) or addfd (the
 *                                       supervisor opens the file itself,
 *                                       /dev/null for a .env, and hands the
 *                                       descriptor back)
 *
 * The walks print "NAME median_ms min_ms entries dirs"; statdirs the same
 * for its stats; inotify prints its set-up time, the request latency
 * (median and 99th percentile, µs) and the checks. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* --- the directory list, for statdirs and the watcher ---------------------- */

static char **dirv;
static size_t ndir, capdir;
static long nent;

static void add_dir(const char *p)
{
	if (ndir == capdir) {
		capdir = capdir ? 2 * capdir : 4096;
		if (!(dirv = realloc(dirv, capdir * sizeof(*dirv))))
			die("realloc");
	}
	if (!(dirv[ndir++] = strdup(p)))
		die("strdup");
}

/* Serial walk: one openat + getdents loop per directory, no stat (d_type),
 * as the stub's walk does on ext4.  With collect, the paths are kept. */
static void walk(int dfd, char *rel, size_t len, bool collect, int ifd)
{
	char buf[32768];
	long n;

	for (;;) {
		n = syscall(SYS_getdents64, dfd, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (long off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			off += d->d_reclen;
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			if (!len && !strcmp(d->d_name, ".git"))
				continue;
			nent++;
			if (d->d_type != DT_DIR)
				continue;
			size_t nl = strlen(d->d_name);
			if (len + nl + 2 > 4096)
				continue;
			size_t l = len;
			if (l)
				rel[l++] = '/';
			memcpy(rel + l, d->d_name, nl + 1);
			int fd =
			    openat(dfd, d->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd >= 0) {
				if (collect)
					add_dir(rel);
				if (ifd >= 0 &&
				    inotify_add_watch(ifd, rel,
				                      IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM |
				                          IN_DELETE_SELF | IN_MOVE_SELF |
				                          IN_ONLYDIR | IN_DONT_FOLLOW) < 0)
					die("inotify_add_watch");
				walk(fd, rel, l + nl, collect, ifd);
				close(fd);
			}
			rel[len] = '\0';
		}
	}
}

/* --- the parallel walk ------------------------------------------------------ */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int *stackv;
static size_t nstack, capstack;
static int busy, nthreads;
static long pent;

static void push_fd(int fd)
{
	if (nstack == capstack) {
		capstack = capstack ? 2 * capstack : 4096;
		if (!(stackv = realloc(stackv, capstack * sizeof(*stackv))))
			die("realloc");
	}
	stackv[nstack++] = fd;
}

static void *worker(void *arg)
{
	char buf[32768];
	long mine = 0;
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&mu);
		while (!nstack && busy)
			pthread_cond_wait(&cv, &mu);
		if (!nstack) {
			pent += mine;
			pthread_cond_broadcast(&cv);
			pthread_mutex_unlock(&mu);
			return NULL;
		}
		int dfd = stackv[--nstack];
		busy++;
		pthread_mutex_unlock(&mu);
		int subs[256], ns = 0;
		long n;
		while ((n = syscall(SYS_getdents64, dfd, buf, sizeof(buf))) > 0) {
			for (long off = 0; off < n;) {
				struct dirent64 *d = (struct dirent64 *)(buf + off);
				off += d->d_reclen;
				if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..") ||
				    !strcmp(d->d_name, ".git"))
					continue;
				mine++;
				if (d->d_type != DT_DIR)
					continue;
				int fd = openat(dfd, d->d_name,
				                O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (fd < 0)
					continue;
				subs[ns++] = fd;
				if (ns == 256) {
					pthread_mutex_lock(&mu);
					while (ns)
						push_fd(subs[--ns]);
					pthread_cond_broadcast(&cv);
					pthread_mutex_unlock(&mu);
				}
			}
		}
		close(dfd);
		pthread_mutex_lock(&mu);
		while (ns)
			push_fd(subs[--ns]);
		busy--;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
	}
}

static long pwalk(int fd, int threads)
{
	pthread_t t[64];
	nthreads = threads;
	pent = 0;
	busy = 0;
	nstack = 0;
	push_fd(fd);
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	return pent;
}

/* --- timing in a fresh child each round (no state carried over) ----------- */

static void rounds_of(const char *name, const char *dir, int rounds, int mode, int threads)
{
	double *t = calloc((size_t)rounds, sizeof(double));
	long ents = 0;

	if (mode == 2) { /* statdirs: the list, made once */
		char rel[4096] = "";
		int fd = open(dir, O_RDONLY | O_DIRECTORY);
		walk(fd, rel, 0, true, -1);
		close(fd);
	}
	for (int r = 0; r < rounds; r++) {
		int p[2];
		if (pipe(p))
			die("pipe");
		pid_t pid = fork();
		if (!pid) {
			char rel[4096] = "";
			double t0 = now_ms(), res[2];
			int fd = open(dir, O_RDONLY | O_DIRECTORY);
			struct stat st;
			nent = 0;
			if (mode == 0)
				walk(fd, rel, 0, false, -1);
			else if (mode == 1)
				nent = pwalk(fd, threads);
			else
				for (size_t i = 0; i < ndir; i++)
					nent += !fstatat(fd, dirv[i], &st, AT_SYMLINK_NOFOLLOW);
			res[0] = now_ms() - t0;
			res[1] = (double)nent;
			if (write(p[1], res, sizeof(res)) != sizeof(res))
				_exit(1);
			_exit(0);
		}
		double res[2] = {0, 0};
		if (read(p[0], res, sizeof(res)) != sizeof(res))
			die("child");
		waitpid(pid, NULL, 0);
		close(p[0]);
		close(p[1]);
		t[r] = res[0];
		ents = (long)res[1];
	}
	qsort(t, (size_t)rounds, sizeof(double), cmpd);
	printf("%s\t%.2f\t%.2f\t%ld\t%zu\n", name, t[rounds / 2], t[0], ents, ndir);
	free(t);
}

/* --- the watcher ------------------------------------------------------------- */

/* The watcher's state: watch descriptor → directory path, and the hits. */
static char *wdpath[1 << 20];
static char *hits[4096];
static int nhits;
static long overflows;

static bool secret_name(const char *n)
{
	return !strcmp(n, ".env") || !strncmp(n, ".env.", 5);
}

static void note_hit(const char *dir, const char *name)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s%s%s", dir, *dir ? "/" : "", name);
	for (int i = 0; i < nhits; i++)
		if (!strcmp(hits[i], p))
			return;
	if (nhits < 4096)
		hits[nhits++] = strdup(p);
}

/* A directory new to the watcher: watch first, then list it, so that an
 * entry made between its creation and the watch is seen by the listing,
 * and one made after by the watch. */
static void watch_new(int ifd, int root, const char *rel)
{
	int wd = inotify_add_watch(ifd, rel,
	                           IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE_SELF |
	                               IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW);
	if (wd < 0)
		return;
	if (wd < (1 << 20) && !wdpath[wd])
		wdpath[wd] = strdup(rel);
	int fd = openat(root, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	DIR *d = fdopendir(fd);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' &&
		    (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
			continue;
		if (secret_name(e->d_name))
			note_hit(rel, e->d_name);
		else if (e->d_type == DT_DIR) {
			char sub[4096];
			snprintf(sub, sizeof(sub), "%s/%s", rel, e->d_name);
			watch_new(ifd, root, sub);
		}
	}
	closedir(d);
}

static void drain(int ifd, int root)
{
	char buf[65536] __attribute__((aligned(8)));
	ssize_t n;
	while ((n = read(ifd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)p;
			p += sizeof(*ev) + ev->len;
			if (ev->mask & IN_Q_OVERFLOW) {
				overflows++; /* the real helper answers "walk" from here on */
				continue;
			}
			if (ev->wd < 0 || ev->wd >= (1 << 20) || !wdpath[ev->wd] || !ev->len)
				continue;
			if (secret_name(ev->name))
				note_hit(wdpath[ev->wd], ev->name);
			else if (ev->mask & IN_ISDIR && ev->mask & (IN_CREATE | IN_MOVED_TO)) {
				char sub[4096];
				snprintf(sub, sizeof(sub), "%s%s%s", wdpath[ev->wd],
				         *wdpath[ev->wd] ? "/" : "", ev->name);
				watch_new(ifd, root, sub);
			}
		}
	}
}

static int connect_to(const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)))
		die("connect");
	return s;
}

/* One request: the answer's hit count, and whether it names want. */
static int ask(const char *sock, const char *want, bool *found)
{
	char buf[65536];
	int s = connect_to(sock);
	if (write(s, "?", 1) != 1)
		die("write");
	ssize_t n = read(s, buf, sizeof(buf) - 1);
	close(s);
	if (n < 0)
		die("read");
	buf[n] = '\0';
	*found = false;
	int cnt = 0;
	for (char *l = buf, *e; *l; l = e + 1) {
		if (!(e = strchr(l, '\n')))
			break;
		*e = '\0';
		cnt++;
		if (want && !strcmp(l, want))
			*found = true;
	}
	return cnt;
}

static void inotify_bench(const char *dir, int requests)
{
	char tmpl[] = "/tmp/ajwatch.XXXXXX", sock[96], rel[4096] = "";
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if (!mkdtemp(tmpl))
		die("mkdtemp");
	snprintf(sock, sizeof(sock), "%s/s", tmpl);
	int root = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0 || fchdir(root))
		die(dir);
	double t0 = now_ms();
	int ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	int wd = inotify_add_watch(ifd, ".", IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_ONLYDIR);
	wdpath[wd] = strdup("");
	nent = 0;
	ndir = 0;
	walk(root, rel, 0, true, -1);
	for (size_t i = 0; i < ndir; i++) {
		int w = inotify_add_watch(ifd, dirv[i],
		                          IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE_SELF |
		                              IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW);
		if (w < 0)
			die("inotify_add_watch (fs.inotify.max_user_watches?)");
		if (w < (1 << 20))
			wdpath[w] = dirv[i];
	}
	/* the hits of the initial walk: the .env files, by name */
	for (size_t i = 0; i < ndir; i++) {
		char p[4096];
		snprintf(p, sizeof(p), "%s/.env", dirv[i]);
		if (!faccessat(root, p, F_OK, AT_SYMLINK_NOFOLLOW))
			note_hit(dirv[i], ".env");
	}
	if (!faccessat(root, ".env", F_OK, AT_SYMLINK_NOFOLLOW))
		note_hit("", ".env");
	double setup = now_ms() - t0;
	int ls = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", sock);
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, 16))
		die("bind");
	pid_t helper = fork();
	if (!helper) {
		for (;;) {
			int c = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
			char q, out[65536];
			size_t used = 0;
			if (c < 0)
				continue;
			if (read(c, &q, 1) != 1) {
				close(c);
				continue;
			}
			drain(ifd, root);
			for (int i = 0; i < nhits && used + strlen(hits[i]) + 2 < sizeof(out); i++)
				used += (size_t)sprintf(out + used, "%s\n", hits[i]);
			if (overflows)
				used = (size_t)sprintf(out, "WALK\n");
			if (write(c, out, used) < 0)
				_exit(1);
			close(c);
		}
	}
	close(ifd);
	double *lat = calloc((size_t)requests, sizeof(double));
	bool found;
	int base = 0;
	for (int i = 0; i < requests; i++) {
		double s = now_ms();
		base = ask(sock, NULL, &found);
		lat[i] = (now_ms() - s) * 1000;
	}
	qsort(lat, (size_t)requests, sizeof(double), cmpd);
	/* A .env made deep in the tree, asked for at once. */
	char deep[4096], p[4096];
	size_t best = 0;
	for (size_t i = 0; i < ndir; i++)
		if (strlen(dirv[i]) > strlen(dirv[best]))
			best = i;
	snprintf(deep, sizeof(deep), "%s/.env.new", dirv[best]);
	int f = openat(root, deep, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	close(f);
	ask(sock, deep, &found);
	bool deep_ok = found;
	/* A new directory with a .env in it, made and asked for at once. */
	snprintf(p, sizeof(p), "%s/ajnew", dirv[best]);
	mkdirat(root, p, 0700);
	snprintf(p, sizeof(p), "%s/ajnew/sub", dirv[best]);
	mkdirat(root, p, 0700);
	snprintf(p, sizeof(p), "%s/ajnew/sub/.env", dirv[best]);
	f = openat(root, p, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	close(f);
	ask(sock, p, &found);
	bool newdir_ok = found;
	unlinkat(root, p, 0);
	snprintf(p, sizeof(p), "%s/ajnew/sub", dirv[best]);
	unlinkat(root, p, AT_REMOVEDIR);
	snprintf(p, sizeof(p), "%s/ajnew", dirv[best]);
	unlinkat(root, p, AT_REMOVEDIR);
	unlinkat(root, deep, 0);
	kill(helper, SIGKILL);
	waitpid(helper, NULL, 0);
	unlink(sock);
	rmdir(tmpl);
	printf(
	    "inotify\tsetup_ms %.1f\twatches %zu\trequest_us median %.0f p99 %.0f min %.0f\thits %d"
	    "\tnew_deep_env %s\tnew_dir_env %s\n",
	    setup, ndir + 1, lat[requests / 2], lat[requests * 99 / 100], lat[0], base,
	    deep_ok ? "found" : "MISSED", newdir_ok ? "found" : "MISSED");
}

/* --- seccomp user notification on open/openat -------------------------------- */

static int install_filter(bool notify)
{
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 2, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_open, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	    BPF_STMT(BPF_RET | BPF_K, notify ? SECCOMP_RET_USER_NOTIF : SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {sizeof(f) / sizeof(f[0]), f};
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	                    notify ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0, &prog);
}

static int read_path(pid_t pid, uint64_t addr, char *out, size_t max)
{
	/* page by page: the string may end just before an unmapped page */
	size_t got = 0;
	while (got < max) {
		size_t chunk = 4096 - ((addr + got) & 4095);
		if (chunk > max - got)
			chunk = max - got;
		struct iovec l = {out + got, chunk}, r = {(void *)(uintptr_t)(addr + got), chunk};
		ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);
		if (n <= 0)
			return -1;
		if (memchr(out + got, 0, (size_t)n))
			return 0;
		got += (size_t)n;
	}
	return -1;
}

static int notif_run(const char *mode, char **argv)
{
	bool notify = strcmp(mode, "allow"), addfd = !strcmp(mode, "addfd");
	int go[2], num[2];
	if (pipe(go) || pipe(num))
		die("pipe");
	pid_t pid = fork();
	if (!pid) {
		char c;
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
		int l = install_filter(notify);
		if (l < 0)
			_exit(125);
		if (write(num[1], &l, sizeof(l)) != sizeof(l) || read(go[0], &c, 1) != 1)
			_exit(125);
		execvp(argv[0], argv);
		_exit(127);
	}
	int lfd = -1, st;
	if (read(num[0], &lfd, sizeof(lfd)) != sizeof(lfd))
		die("child");
	if (notify) {
		int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
		lfd = (int)syscall(SYS_pidfd_getfd, pfd, lfd, 0);
		if (lfd < 0)
			die("pidfd_getfd");
	}
	if (write(go[1], "", 1) != 1)
		die("go");
	while (notify) {
		struct seccomp_notif req;
		struct seccomp_notif_resp resp;
		char path[4096];
		memset(&req, 0, sizeof(req));
		if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, &req)) {
			if (errno == EINTR)
				continue;
			break; /* ENOENT: every filtered task is gone */
		}
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		bool at = req.data.nr == SYS_openat;
		uint64_t pa = at ? req.data.args[1] : req.data.args[0];
		int dfd = at ? (int)req.data.args[0] : AT_FDCWD;
		int flags = (int)(at ? req.data.args[2] : req.data.args[1]);
		mode_t fm = (mode_t)(at ? req.data.args[3] : req.data.args[2]);
		if (read_path(req.pid, pa, path, sizeof(path))) {
			resp.error = -EFAULT;
		} else if (!addfd) {
			/* The kernel reads the path again when it goes on: what
			 * was decided here need not be what is opened. */
			resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		} else {
			char base[64];
			const char *b = strrchr(path, '/');
			b = b ? b + 1 : path;
			int bfd = AT_FDCWD, fd;
			if (path[0] != '/') {
				if (dfd == AT_FDCWD)
					snprintf(base, sizeof(base), "/proc/%d/cwd", req.pid);
				else
					snprintf(base, sizeof(base), "/proc/%d/fd/%d", req.pid,
					         dfd);
				bfd = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);
			}
			if (secret_name(b))
				fd = open("/dev/null", (flags & O_ACCMODE) | O_CLOEXEC);
			else
				fd = bfd < 0 && path[0] != '/'
				         ? -1
				         : openat(bfd, path, flags | O_CLOEXEC, fm);
			if (bfd >= 0)
				close(bfd);
			if (fd < 0) {
				resp.error = -errno;
			} else {
				struct seccomp_notif_addfd ad = {
				    .id = req.id,
				    .flags = SECCOMP_ADDFD_FLAG_SEND,
				    .srcfd = (uint32_t)fd,
				    .newfd_flags = (uint32_t)(flags & O_CLOEXEC),
				};
				ioctl(lfd, SECCOMP_IOCTL_NOTIF_ADDFD, &ad); /* answers the call */
				close(fd);
				continue;
			}
		}
		if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp) && errno != ENOENT)
			break;
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "walk"))
		rounds_of("walk", argv[2], atoi(argv[3]), 0, 1);
	else if (argc >= 5 && !strcmp(argv[1], "pwalk")) {
		char name[32];
		snprintf(name, sizeof(name), "pwalk-%s", argv[4]);
		rounds_of(name, argv[2], atoi(argv[3]), 1, atoi(argv[4]));
	} else if (argc >= 4 && !strcmp(argv[1], "statdirs"))
		rounds_of("statdirs", argv[2], atoi(argv[3]), 2, 1);
	else if (argc >= 4 && !strcmp(argv[1], "inotify"))
		inotify_bench(argv[2], atoi(argv[3]));
	else if (argc >= 4 && !strcmp(argv[1], "notif"))
		return notif_run(argv[2], argv + 3);
	else {
		fputs("usage: see the comment at the top of bench/candidates.c\n", stderr);
		return 2;
	}
	return 0;
}
