/* watchtab.c: what the launch (watch.c) and the watcher (watchd.c) both
 * use: the runtime directory, the key, the socket's names and peers, the
 * mark a large walk leaves, and the scan table flattened and back.  Below
 * both, so that neither file calls the other back; the watcher is forked
 * from the launch and inherits this file's state (the key, the runtime
 * directory, the launch's table flattened).  watch.c's first comment
 * tells the whole story. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>

#include "watch/watch.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif
/* The stub's sources (the Makefile's hash of them): a watcher forked
 * from another build classifies as that build did, so it is not asked. */
#ifndef AJ_WATCH_BUILD
#define AJ_WATCH_BUILD 0ULL
#endif

char watchtab_key[24];
int watchtab_rdir = -1;
uint64_t watchtab_proj_dev, watchtab_proj_ino;
const char *watchtab_why_no_dir;
bool watchtab_dir_absent;
char watchtab_label[40];
_Alignas(8) uint8_t watchtab_flat[WATCH_TABLE_MAX];
uint32_t watchtab_flat_len;

unsigned watchtab_env_num(const char *name, unsigned dflt)
{
	return (unsigned)watch_env_num(name, dflt);
}

uint64_t watchtab_now_ns(void)
{
	struct timespec t;

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The key's file with suffix, in the runtime directory. */
void watchtab_key_name(char *buf, const char *k, const char *suffix)
{
	memcpy(buf, k, 18);
	memcpy(buf + 18, suffix, strlen(suffix) + 1);
}

void watchtab_sun_of(struct sockaddr_un *a, const char *k)
{
	size_t n;

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	memcpy(a->sun_path, "/proc/self/fd/", 14);
	n = 14 + out_fmt_u(a->sun_path + 14, (unsigned)watchtab_rdir);
	a->sun_path[n++] = '/';
	watchtab_key_name(a->sun_path + n, k, ".sock");
}

/* Where the sockets live: the watchers' directory (include/aj_owndir.h,
 * through variant/own.c), which aijail-status --watchers lists.  Made only
 * when a project is marked (make): where none exists, no watcher can. */
int watchtab_runtime_dir(bool make)
{
	char path[AJ_PATH_MAX];
	bool absent = false;
	unsigned k;
	int fd = own_watch(make, path, sizeof(path), &absent, &k);

	if (fd == OWN_NONE) {
		watchtab_why_no_dir =
		    "$XDG_RUNTIME_DIR is unset or not the caller's alone (0700), and "
		    "the cache ($XDG_CACHE_HOME, or $HOME/.cache) is not in a "
		    "directory of the caller's that only the caller may write";
		return -1;
	}
	watchtab_dir_absent = fd < 0 && absent && !make;
	if (fd < 0)
		watchtab_why_no_dir = k ? "the cache's aijail/run is not a directory of "
		                          "the caller's alone (0700)"
		                        : "$XDG_RUNTIME_DIR/aijail is not a directory of "
		                          "the caller's alone (0700)";
	return fd < 0 ? -1 : fd;
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
bool watchtab_make_key(void)
{
	struct stat pst, mst;
	uint64_t h = 0xcbf29ce484222325ULL, x[7];
	static const char hex[] = "0123456789abcdef";

	if (stat(".", &pst) || stat("/proc/self/ns/mnt", &mst))
		return false;
	watchtab_proj_dev = pst.st_dev;
	watchtab_proj_ino = pst.st_ino;
	x[0] = pst.st_dev;
	x[1] = pst.st_ino;
	x[2] = AJ_WATCH_BUILD;
	x[3] = AJ_ABI;
	x[4] = getuid();
	x[5] = mst.st_ino; /* a watcher sees the mounts of its own namespace */
	x[6] = mst.st_dev;
	h = fnv(h, x, sizeof(x));
	memcpy(watchtab_key, "w-", 2);
	for (unsigned i = 0; i < 16; i++)
		watchtab_key[2 + i] = hex[(h >> (60 - 4 * i)) & 15];
	watchtab_key[18] = '\0';
	return true;
}

/* ---- the scan table, flattened and back --------------------------------- */

static bool put(uint32_t *at, const void *p, size_t n)
{
	if (*at + n > sizeof(watchtab_flat))
		return false;
	memcpy(watchtab_flat + *at, p, n);
	*at += (uint32_t)n;
	return true;
}

bool watchtab_flatten(const struct aj_variant *v)
{
	const struct aj_scan *sc = v->scan;
	unsigned n = sc->n_floating + sc->n_steps;
	uint32_t at = sizeof(struct watchtab_hdr) + n * sizeof(struct watchtab_step), s;
	struct watchtab_hdr h = {
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
		struct watchtab_step w = {
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
		memcpy(watchtab_flat + s, &w, sizeof(w));
	}
	h.len = at;
	memcpy(watchtab_flat, &h, sizeof(h));
	watchtab_flat_len = at;
	return true;
}

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
bool watchtab_unflatten(struct watchtab_table *t)
{
	struct watchtab_hdr h;
	unsigned n;
	uint32_t sets;
	uint64_t all;

	if (t->len < sizeof(h))
		return false;
	memcpy(&h, t->blob, sizeof(h));
	n = h.n_floating + h.n_steps;
	sets = sizeof(h) + n * sizeof(struct watchtab_step);
	if (h.len != t->len || n > WATCH_STEPS || h.n_steps > AJ_SCAN_STEPS || !h.depth ||
	    h.depth > AJ_SCAN_DEPTH_MAX || sets + h.n_sets * 32u > t->len)
		return false;
	all = h.n_steps == 64 ? ~0ULL : (1ULL << h.n_steps) - 1;
	if (h.start & ~all)
		return false;
	for (unsigned i = 0; i < n; i++) {
		struct watchtab_step w;
		struct aj_step *st = &t->steps[i];
		/* gcc 14 (Debian 13) cannot see that str_at sets them first. */
		size_t la = 0, lb = 0;

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

/* ---- both ends of the socket --------------------------------------------- */

static bool same_ns(pid_t pid, const char *ns)
{
	char p[64] = "/proc/", s[64] = "/proc/self/ns/";
	struct stat a, b;
	size_t n = 6 + out_fmt_u(p + 6, (unsigned)pid);

	memcpy(p + n, "/ns/", 4);
	memcpy(p + n + 4, ns, strlen(ns) + 1);
	memcpy(s + 14, ns, strlen(ns) + 1);
	return !stat(p, &a) && !stat(s, &b) && a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

/* The other end is a process of ours in our own user, pid and mount
 * namespaces, and still the one that holds the socket when looked at:
 * the watcher, for a launch or for a watcher asking it to give way. */
bool watchtab_peer_ok(int s)
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
unsigned watchtab_limit(void)
{
	char b[24];
	int fd;
	size_t r;

	if (getenv("AIJAIL_WATCH_LIMIT"))
		return (unsigned)watch_share_of(0);
	fd = open("/proc/sys/fs/inotify/max_user_watches", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	r = out_read(fd, b, sizeof(b) - 1);
	close(fd);
	b[r] = '\0';
	return (unsigned)watch_share_of((unsigned long)watch_digits(b));
}

unsigned watchtab_num(const char *s)
{
	unsigned long n = 0;

	for (; *s >= '0' && *s <= '9'; s++)
		n = n * 10 + (unsigned)(*s - '0');
	return n > 0xffffffffUL ? 0xffffffffU : (unsigned)n;
}

/* The mark a large walk left: the directories it read (the watches the
 * project needs), or -1: none. */
long watchtab_marked(void)
{
	char lock[64], b[16];
	int fd;
	size_t r;

	watchtab_key_name(lock, watchtab_key, ".lock");
	fd = openat(watchtab_rdir, lock, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	r = out_read(fd, b, sizeof(b) - 1);
	close(fd);
	b[r] = '\0';
	return watchtab_num(b);
}

bool watchtab_get(int s, void *buf, size_t n)
{
	return out_read(s, buf, n) == n;
}
