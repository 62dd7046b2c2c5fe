/* watchd.c: the watcher daemon (watch.c's first comment tells the
 * story), from its entry point watchd_main(): the launch's spawn() forks
 * it twice, before any namespace, and it inherits the launch's key,
 * runtime directory and scan table (watchtab.c).  It serves launches over
 * its socket, keeps one index per scan table current from one inotify
 * instance, and makes room within the users' share of watches. */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>

#include "watch/watch.h"

static uint64_t wall_ms(void)
{
	struct timespec t;

	syscall(SYS_clock_gettime, CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

static int ifd = -1, pfd = -1, mfd = -1, lk = -1, sfd = -1;
static jmp_buf failed;
static int client = -1;
static char sockname[64], statename[64], lockname[64];
static struct watchtab_table *tables[WATCH_TABLES];
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
	scan_index_use((char *)tables[t] + sizeof(struct watchtab_table), &tables[t]->v);
}

static void on_die(void)
{
	longjmp(failed, 1);
}

static void unlink_ours(bool mark)
{
	(void)unlinkat(watchtab_rdir, sockname, 0);
	(void)unlinkat(watchtab_rdir, statename, 0);
	if (mark)
		(void)unlinkat(watchtab_rdir, lockname, 0);
}

/* What aijail-status --watchers lists, and what other watchers count
 * against the share: one short text file beside the socket. */
static void publish(void)
{
	static char b[WATCH_STATE_SIZE];
	const char *proj = vars_value(AJ_VAR_PROJECT);
	size_t n = 0, l;

	if (sfd < 0 || (settle_watch_count() == written_watches && last_used == written_used))
		return;
	written_watches = settle_watch_count();
	written_used = last_used;
#define ADD(s)                                                                                     \
	(l = strlen(s), l = l < sizeof(b) - n - 2 ? l : sizeof(b) - n - 2, memcpy(b + n, s, l),    \
	 n += l)
#define NUM(u) (n += n + 24 < sizeof(b) ? out_fmt_u(b + n, (u)) : 0)
	ADD(WS_PID);
	NUM((unsigned long long)getpid());
	ADD(WS_WATCHES);
	NUM(settle_watch_count());
	ADD(WS_STARTED);
	NUM(started / 1000);
	ADD(WS_USED);
	NUM(last_used / 1000);
	ADD(WS_USED_MS);
	NUM(last_used);
	ADD(WS_TABLES);
	NUM(n_tables);
	for (unsigned t = 0; t < n_tables; t++) {
		ADD(WS_TABLE);
		if (!tables[t]->ready)
			ADD("(no index) ");
		ADD(tables[t]->labels);
	}
	ADD(WS_PROJECT);
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
	int d = openat(watchtab_rdir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dir_iter it = {d, buf, sizeof(buf), 0, 0};
	struct aj_dirent *e;

	old[0] = '\0';
	if (d < 0)
		return 0;
	while ((e = dir_next(&it, "list", "the watchers"))) {
		char st[WATCH_STATE_SIZE];
		bool can_ask = true;
		uint64_t used;

		if (!strncmp(e->d_name, watchtab_key, WATCH_KEY_LEN) ||
		    watch_state_read(watchtab_rdir, e->d_name, st, sizeof(st)) < 0 ||
		    !strstr(st, WS_WATCHES) || !strstr(st, WS_USED_MS))
			continue;
		sum += watch_state_num(st, WS_WATCHES);
		for (unsigned i = 0; i < n_refused && i < 8; i++)
			if (!strncmp(refused[i], e->d_name, WATCH_KEY_LEN))
				can_ask = false;
		used = watch_state_num(st, WS_USED_MS);
		if (can_ask && used <= oldest) {
			oldest = used;
			memcpy(old, e->d_name, WATCH_KEY_LEN);
			old[WATCH_KEY_LEN] = '\0';
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
	watchtab_sun_of(&a, k);
	memcpy(q.key, k, 18);
	if (!syscall(SYS_connect, s, &a, sizeof(a)) && watchtab_peer_ok(s))
		(void)syscall(SYS_sendto, s, &q, sizeof(q), MSG_NOSIGNAL, NULL, 0);
	close(s);
	watchtab_key_name(st, k, ".state");
	for (unsigned i = 0; !faccessat(watchtab_rdir, st, F_OK, AT_SYMLINK_NOFOLLOW); i++) {
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
			settle_budget_set((unsigned)(limit - o));
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
	uint64_t need = settle_watch_count() + settle_watch_count() / 8 + 64;

	for (unsigned t = 0; t < n_tables; t++)
		tables[t]->ready = false;
	ifd = settle_watch_begin();
	if (ifd < 0)
		return;
	for (unsigned round = 0; round < 2; round++) {
		bool over = false;

		for (unsigned t = 0; t < n_tables && !over; t++) {
			use(t);
			tables[t]->ready = scan_walk(pfd, &tables[t]->v);
			over = settle_over(false);
		}
		if (!over)
			break;
		/* Our share is used up: older watchers give way, or we do. */
		need = settle_watch_count() + settle_watch_count() / 8 + 64;
		ifd = settle_watch_begin();
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
		long n = settle_events_read(buf, sizeof(buf));

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
			r = settle_events_apply(pfd, buf, n);
			if (r == SCAN_EV_GONE)
				give_way(); /* the project is gone */
			lost |= r == SCAN_EV_LOST;
		}
		settle_events_done(buf, n);
	}
	if (lost)
		rebuild();
}

/* 0: every hit is what the index says; 1: something moved since (its
 * events are on the way); 2: a masked file has another name: walk. */
static int check_hits(void)
{
	for (unsigned i = 0; i < hits_now()->n; i++) {
		const struct scan_hit *h = &hits_now()->hits[i];
		struct stat st;
		int fd;

		if (!h->ino)
			continue;
		fd = openat2_(pfd, hits_now()->arena + h->off, O_PATH | O_NOFOLLOW,
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
	hits_links_clear(); /* checked here, answer by answer */
	return 0;
}

static void add_label(struct watchtab_table *t, const char *l)
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
	struct watchtab_table *t;
	size_t size = sizeof(struct watchtab_table) + scanidx_size();

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
	if (!watchtab_unflatten(t)) {
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
	if (settle_over(true)) {
		if (!make_room(settle_watch_count() + settle_watch_count() / 8 + 64))
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
	    !watchtab_get(c, &q, sizeof(q)) || q.magic != WATCH_MAGIC ||
	    memcmp(q.key, watchtab_key, 18))
		return -1;
	/* Only another watcher asks us to give way: a process whose
	 * namespaces stay what they were, and must be ours. */
	if (q.op == OP_YIELD && watchtab_peer_ok(c))
		give_way();
	if (q.op != OP_ASK || q.dev != watchtab_proj_dev || q.ino != watchtab_proj_ino ||
	    q.tlen > sizeof(blob) || !watchtab_get(c, blob, q.tlen))
		return -1;
	q.label[sizeof(q.label) - 1] = '\0';
	h.dev = watchtab_proj_dev;
	h.ino = watchtab_proj_ino;
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
		hits_compact();
		ans.n = hits_now()->n;
		ans.used = hits_now()->used;
		memcpy(ans.hits, hits_now()->hits, hits_now()->n * sizeof(hits_now()->hits[0]));
		memcpy(ans.arena, hits_now()->arena, hits_now()->used);
		/* Git's looks are replayed per table and generation of hits. */
		git_memo_set(scan_change_count() * WATCH_TABLES + (unsigned)t + 1);
		git_tracked_scan(&ans, pfd, vars_value(AJ_VAR_PROJECT));
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
	return watchtab_now_ns() / 1000000000u;
}

/* The watcher's entry point, in the launch's second child (spawn()):
 * whatever it inherited that is the caller's is let go first. */
noreturn void watchd_main(void)
{
	static struct sockaddr_un a;
	static int ls = -1;
	static uint64_t last;
	static struct stat sst;
	unsigned idle = watchtab_env_num("AIJAIL_WATCH_IDLE", WATCH_IDLE);
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	long need;
	bool fresh;

	/* Nothing of the caller's: its terminal, its pipes (a caller that
	 * waits for their end), its descriptors. */
	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
		_exit(1);
	if (watchtab_rdir != 3 && (dup2(watchtab_rdir, 3) < 0 || (close(watchtab_rdir), 0)))
		_exit(1);
	watchtab_rdir = 3;
	syscall(SYS_close_range, 4U, ~0U, 0U);
	umask(077);
	prctl(PR_SET_NAME, "aijail-watch");
	die_reap = 0;
	die_undo = NULL;
	die_cleanup = on_die;
	watchtab_key_name(lockname, watchtab_key, ".lock");
	watchtab_key_name(sockname, watchtab_key, ".sock");
	watchtab_key_name(statename, watchtab_key, ".state");
	need = watchtab_marked();
	lk = openat(watchtab_rdir, lockname, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (lk < 0 || flock(lk, LOCK_EX | LOCK_NB))
		_exit(0); /* another watcher has it */
	started = last_used = wall_ms();
	limit = watchtab_limit();
	if (setjmp(failed))
		_exit(1);
	/* Room for what the last walk read, before walking. */
	if (limit && !make_room(need > 0 ? (uint64_t)need : 0)) {
		(void)unlinkat(watchtab_rdir, lockname, 0);
		_exit(0);
	}
	pfd = openat(AT_FDCWD, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	mfd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	sfd = openat(watchtab_rdir, statename, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
	             0600);
	watchtab_sun_of(&a, watchtab_key);
	(void)unlinkat(watchtab_rdir, sockname, 0);
	ls = (int)syscall(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (pfd < 0 || mfd < 0 || ls < 0 || syscall(SYS_bind, ls, &a, sizeof(a)) ||
	    syscall(SYS_listen, ls, 64))
		_exit(1);
	if (fstatat(watchtab_rdir, sockname, &sst, AT_SYMLINK_NOFOLLOW))
		_exit(1);
	last = now_s();
	if (table_of(watchtab_flat, watchtab_flat_len, watchtab_label, &fresh) < 0)
		give_way();
	if (setjmp(failed)) {
		/* A walk or an event that would have ended a launch: every
		 * request gets "walk" now, until the idle time is up. */
		for (unsigned t = 0; t < n_tables; t++)
			tables[t]->ready = false;
		settle_watch_end();
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
		if (fstatat(watchtab_rdir, sockname, &now, AT_SYMLINK_NOFOLLOW) ||
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
