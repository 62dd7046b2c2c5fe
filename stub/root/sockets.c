/* sockets.c: no named socket is reachable unless the policy or a toggle
 * names it.  A read-only bind does not stop connect(2), and Landlock
 * restricts resolving a named Unix socket only from ABI 9
 * (LANDLOCK_ACCESS_FS_RESOLVE_UNIX, landlock.c).  Below that, the host's
 * own list of bound sockets (/proc/net/unix, read in its network
 * namespace) says where the sockets are: each that lies beneath a
 * directory the plan binds is covered like a denied file (mask.c asks
 * sockets_next()), so that the bind's view of it is an empty file of
 * mode 000.
 *
 * The parent reads the list while pid 1 builds the root, off the critical
 * path as the project's walk is, and sends pid 1 only what lies beneath a
 * bind: its plan index and the path below it.  pid 1 opens that beneath
 * the bind's own descriptor (no symlink, no "..") and covers what it finds
 * there if it is a socket, whatever its identity, unless it is one a file
 * bind names (a toggle's, the policy's): those are the jail's to use.
 *
 * What the list cannot show stays reachable below ABI 9, and
 * --jail-explain says so: a socket made on the host during the run in a
 * directory the jail sees, one bound by a relative name or in another
 * network namespace (outside the project's walk and the top of a map).
 * With the host's network (network host) nothing is covered: the jail
 * reaches the host's services through it anyway. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "root/root.h"

/* [1] the parent's end, [0] pid 1's; -1 when the run covers nothing.  A
 * socket pair, not a pipe: the parent sends with MSG_NOSIGNAL, so that a
 * pid 1 gone early is its own failure to report, not a SIGPIPE. */
static int sock_pipe[2] = {-1, -1};

bool sockets_by_landlock(const struct aj_variant *v)
{
	return v->network != AJ_NET_HOST && v->landlock != AJ_LANDLOCK_OFF && landlock_abi() >= 9;
}

bool sockets_covered(const struct aj_variant *v)
{
	return v->network != AJ_NET_HOST && !sockets_by_landlock(v);
}

/* The canonical paths of the plan's directory binds, as the host resolves
 * them (the parent's view; pid 1 checks beneath its own descriptors). */
static char bind_arena[4 * AJ_PLAN_ARENA];
static uint32_t bind_off[AJ_PLAN_MAX]; /* 0: not a directory bind; else offset + 1 */

/* A bind of the plan a run makes here (the GPU's /sys only with a GPU). */
static bool bound(const struct plan_entry *e)
{
	return e->path && !e->missing && aj_op_binds(e->m->op) &&
	       (!(e->m->flags & AJ_MOUNT_WITH_DEVICES) || plan_has_devices());
}

static size_t canonical(const char *path, char *buf, size_t size)
{
	char link[32];
	long n;
	int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	resolve_fd_path(link, fd);
	n = syscall(SYS_readlinkat, AT_FDCWD, link, buf, size - 1);
	close(fd);
	if (n > 0 && (size_t)n >= size - 1)
		errno = ENAMETOOLONG;
	if (n <= 0 || (size_t)n >= size - 1 || buf[0] != '/')
		return 0;
	buf[n] = '\0';
	return (size_t)n;
}

static void binds_resolve(void)
{
	size_t used = 0;

	for (unsigned i = 0; i < plan_n; i++) {
		const struct plan_entry *e = &plan[i];
		size_t n;

		if (!bound(e))
			continue;
		errno = 0;
		n = canonical(e->path, bind_arena + used, sizeof(bind_arena) - used);
		/* A bind left out would be a folder whose sockets stay open. */
		if (!n && errno == ENAMETOOLONG)
			diep("list the host's sockets beneath", e->path, errno, NULL);
		if (!n)
			continue; /* a file, or absent: pid 1 decides */
		bind_off[i] = (uint32_t)(used + 1);
		used += n + 1;
	}
}

/* The deepest directory bind that holds the canonical path dir, or -1. */
static int bind_of(const char *dir)
{
	int best = -1;
	size_t best_n = 0;

	for (unsigned i = 0; i < plan_n; i++) {
		const char *b = bind_off[i] ? bind_arena + bind_off[i] - 1 : NULL;
		size_t n;

		if (b && resolve_within(dir, b) && (n = strlen(b)) >= best_n)
			best = (int)i, best_n = n;
	}
	return best;
}

static unsigned long hex(const char **l)
{
	unsigned long v = 0;

	for (; **l == ' '; (*l)++)
		;
	for (char c; (c = **l) && c != ' '; (*l)++)
		v = v * 16 + (unsigned long)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
	return v;
}

/* The path of one line of /proc/net/unix ("Num RefCount Protocol Flags
 * Type St Inode Path"), when it names a socket one can connect or send
 * to by an absolute path: a listening one (__SO_ACCEPTCON in Flags) or a
 * datagram one.  The accepted ends of a listener repeat its path, and a
 * connected stream socket refuses a connect(). */
static char *line_path(char *l)
{
	const char *p = l;
	unsigned long flags, type;

	for (int f = 0; f < 3; f++)
		(void)hex(&p);
	flags = hex(&p);
	type = hex(&p);
	for (int f = 0; f < 2; f++)
		(void)hex(&p);
	if (!(flags & 0x10000) && type != 2) /* __SO_ACCEPTCON, SOCK_DGRAM */
		return NULL;
	return p[0] == ' ' && p[1] == '/' ? (char *)p + 1 : NULL;
}

typedef void (*sock_fn)(unsigned i, const char *rel, const char *host, void *arg);

/* The folders resolved so far: a host's sockets share few of them (a
 * session's runtime folder, /run/systemd), and resolving one costs an
 * open and a readlink (about 5 us here).  Open addressing on a hash of
 * the folder as listed; a full table or arena only stops the caching. */
#define DIR_SLOTS 256
static struct {
	uint32_t hash;
	uint32_t dir; /* offset + 1 in dir_arena: the folder as listed; 0: free */
	uint32_t rel; /* offset in dir_arena: the folder below its bind ("" or "a/b") */
	int16_t bind; /* plan index, -1: beneath none */
} dirs[DIR_SLOTS];
static char dir_arena[65536];
static size_t dir_used;

static uint32_t fnv(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* The bind that holds the folder dir (-1: none) and where below it. */
static int folder(const char *dir, const char **below)
{
	static char canon[AJ_PATH_MAX];
	uint32_t h = fnv(dir), k = h % DIR_SLOTS;
	size_t dl, bl, cl;
	const char *b;
	int i;

	for (unsigned n = 0; n < DIR_SLOTS && dirs[k].dir; n++, k = (k + 1) % DIR_SLOTS)
		if (dirs[k].hash == h && !strcmp(dir_arena + dirs[k].dir - 1, dir)) {
			*below = dir_arena + dirs[k].rel;
			return dirs[k].bind;
		}
	i = canonical(dir, canon, sizeof(canon)) ? bind_of(canon) : -1;
	*below = "";
	if (i >= 0) {
		/* canon + bl is "" or "/sub/dir": below it is "sub/dir". */
		b = bind_arena + bind_off[i] - 1;
		bl = strcmp(b, "/") ? strlen(b) : 0;
		cl = strlen(canon + bl);
		*below = cl ? canon + bl + 1 : "";
	}
	dl = strlen(dir) + 1;
	cl = strlen(*below) + 1;
	if (dirs[k].dir || dir_used + dl + cl > sizeof(dir_arena))
		return i;
	memcpy(dir_arena + dir_used, dir, dl);
	memcpy(dir_arena + dir_used + dl, *below, cl);
	dirs[k].hash = h;
	dirs[k].dir = (uint32_t)(dir_used + 1);
	dirs[k].rel = (uint32_t)(dir_used + dl);
	dirs[k].bind = (int16_t)i;
	dir_used += dl + cl;
	*below = dir_arena + dirs[k].rel;
	return i;
}

/* One listed socket: its folder resolved as connect(2) would, the bind
 * that holds it, the path below that bind. */
static void one(char *path, sock_fn fn, void *arg)
{
	char rel[AJ_PATH_MAX];
	char *slash = strrchr(path, '/');
	const char *name = slash + 1, *below;
	size_t l;
	int i;

	if (!*name)
		return;
	*slash = '\0';
	i = folder(path[0] ? path : "/", &below);
	*slash = '/';
	if (i < 0)
		return;
	l = strlen(below);
	if (l + strlen(name) + 2 > sizeof(rel))
		return;
	memcpy(rel, below, l);
	if (l)
		rel[l++] = '/';
	strcpy(rel + l, name);
	fn((unsigned)i, rel, path, arg);
}

/* Calls fn for each socket of the host's list beneath a directory bind;
 * false when the list cannot be read. */
static bool sockets_list(sock_fn fn, void *arg)
{
	static char buf[65536];
	size_t have = 0;
	bool first = true, resolved = false;
	int fd = open("/proc/self/net/unix", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	for (;;) {
		ssize_t r = read(fd, buf + have, sizeof(buf) - 1 - have);
		char *p = buf, *nl;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		have += (size_t)r;
		buf[have] = '\0';
		while ((nl = memchr(p, '\n', have - (size_t)(p - buf)))) {
			char *path;

			*nl = '\0';
			if (!first && (path = line_path(p))) {
				if (!resolved)
					binds_resolve(), resolved = true;
				one(path, fn, arg);
			}
			first = false;
			p = nl + 1;
		}
		have -= (size_t)(p - buf);
		memmove(buf, p, have);
		if (have == sizeof(buf) - 1)
			have = 0; /* a line longer than the buffer: not a path we can bind */
	}
	close(fd);
	return true;
}

/* --- the parent and pid 1 -------------------------------------------------- */

void sockets_prepare(const struct aj_variant *v)
{
	if (sockets_covered(v) &&
	    syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sock_pipe))
		die("create a socket pair for the host's sockets", errno, NULL);
}

struct out_buf {
	char b[65536];
	size_t n;
	int fd;
};

static void flush(struct out_buf *o)
{
	size_t off = 0;

	while (off < o->n) {
		long w = syscall(SYS_sendto, o->fd, o->b + off, o->n - off, MSG_NOSIGNAL, NULL, 0);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break; /* pid 1 is gone: its own end says so */
		off += (size_t)w;
	}
	o->n = 0;
}

static void put(unsigned i, const char *rel, const char *host, void *arg)
{
	struct out_buf *o = arg;
	size_t l = strlen(rel);

	if (o->n + 4 + l > sizeof(o->b))
		flush(o);
	o->b[o->n++] = (char)(i & 0xff);
	o->b[o->n++] = (char)(i >> 8);
	o->b[o->n++] = (char)(l & 0xff);
	o->b[o->n++] = (char)(l >> 8);
	memcpy(o->b + o->n, rel, l);
	o->n += l;
}

/* The parent, in the host's network namespace.  A list that cannot be
 * read sends a mark of its own (index 0xffff): pid 1 fails closed. */
void sockets_send(void)
{
	static struct out_buf o;

	if (sock_pipe[1] < 0)
		return;
	close(sock_pipe[0]);
	o.fd = sock_pipe[1];
	if (!sockets_list(put, &o)) {
		o.b[0] = o.b[1] = (char)0xff;
		o.b[2] = o.b[3] = 0;
		o.n = 4;
	}
	flush(&o);
	close(sock_pipe[1]);
	sock_pipe[1] = -1;
}

/* A socket a file bind brings in (a toggle's, the policy's): the jail's. */
static bool named(const struct stat *st)
{
	for (unsigned i = 0; i < plan_n; i++) {
		const struct plan_entry *e = &plan[i];
		struct stat b;

		if (e->path && !e->missing && e->fd >= 0 && !e->isdir && !fstat(e->fd, &b) &&
		    b.st_dev == st->st_dev && b.st_ino == st->st_ino)
			return true;
	}
	return false;
}

static size_t read_all(int fd, char *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, p + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}

/* pid 1, the plan built: the next socket to cover, as an O_PATH
 * descriptor beneath its bind (the caller covers and closes it), its path
 * below the bind in what; -1 at the end.  mask.c asks after the
 * project's covers, so that a socket the walk covered is a file by now. */
int sockets_next(char *what, size_t size)
{
	unsigned char h[4];

	if (sock_pipe[0] < 0)
		return -1;
	if (sock_pipe[1] >= 0)
		close(sock_pipe[1]), sock_pipe[1] = -1;
	while (read_all(sock_pipe[0], (char *)h, 4) == 4) {
		unsigned i = h[0] | (unsigned)h[1] << 8, l = h[2] | (unsigned)h[3] << 8;
		const struct plan_entry *e;
		struct stat st;
		int tfd;

		if (i == 0xffff)
			die("cover the host's sockets", 0,
			    "/proc/self/net/unix could not be read (is /proc mounted?)");
		if (i >= plan_n || l >= size || read_all(sock_pipe[0], what, l) != l)
			die("cover the host's sockets", EPROTO, NULL);
		what[l] = '\0';
		e = &plan[i];
		if (!e->path || e->missing || e->fd < 0 || !e->isdir)
			continue;
		tfd = openat2_(e->fd, what, O_PATH | O_NOFOLLOW,
		               RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
		if (tfd < 0) {
			/* Gone since the list was read, or reached through a
			 * link: nothing of it at this path in the jail. */
			if (errno == ENOENT || errno == ELOOP || errno == EXDEV || errno == ENOTDIR)
				continue;
			diep("cover the host's socket", what, errno, NULL);
		}
		if (fstat(tfd, &st))
			diep("inspect the host's socket", what, errno, NULL);
		if (S_ISSOCK(st.st_mode) && !named(&st))
			return tfd;
		close(tfd);
	}
	close(sock_pipe[0]);
	sock_pipe[0] = -1;
	return -1;
}

/* --- --jail-explain ----------------------------------------------------------- */

static void shown(unsigned i, const char *rel, const char *host, void *arg)
{
	struct stat st, b;

	(void)rel;
	if (stat(host, &st) || !S_ISSOCK(st.st_mode))
		return;
	/* Named by a file bind: shown as reachable, not covered. */
	for (unsigned k = 0; k < plan_n; k++)
		if (plan[k].path && !plan[k].missing && !bind_off[k] &&
		    aj_op_binds(plan[k].m->op) && !stat(plan[k].path, &b) &&
		    b.st_dev == st.st_dev && b.st_ino == st.st_ino)
			return;
	rp_t(*(unsigned *)arg ? " " : "");
	rp_str(NULL, host);
	(*(unsigned *)arg)++;
}

void sockets_explain(const struct aj_variant *v, bool fallback)
{
	unsigned n = 0;

	rp_field("sockets");
	rp_open("sockets", '{');
	if (v->network == AJ_NET_HOST) {
		rp_str("by", "none");
		rp_t(": ");
		rp_str("meaning",
		       "the host's network: every named socket the jail sees is reachable, "
		       "as the host's services are over the network");
		rp_close();
		rp_t("\n");
		return;
	}
	if (fallback && !sockets_by_landlock(v)) {
		rp_str("by", "none");
		rp_t(": ");
		rp_str("meaning",
		       "the fallback (no namespaces) mounts nothing, so covers nothing: "
		       "every named socket of the host is reachable below Landlock ABI 9");
		rp_close();
		rp_t("\n");
		return;
	}
	if (sockets_by_landlock(v)) {
		rp_str("by", "landlock");
		rp_t(": ");
		rp_str("meaning",
		       "Landlock (ABI 9, resolve_unix) lets the jail connect only to the "
		       "sockets a toggle or the policy binds, and to those it makes itself");
	} else {
		rp_str("by", "covers");
		rp_t(": ");
		rp_str("meaning",
		       "the host's named sockets beneath a bound folder, as the host lists "
		       "them at the start, are covered (denied); Landlock below ABI 9 does "
		       "not restrict connecting to one");
		rp_t("\n  covered now:");
		rp_open("covered", '[');
		rp_t(" ");
		if (!sockets_list(shown, &n))
			rp_t(
			    "(the host's list, /proc/self/net/unix, cannot be read: the jail would "
			    "not start)");
		else if (!n)
			rp_t("none");
		rp_close();
	}
	/* What stays reachable, and why: the sockets the file binds name,
	 * and, below ABI 9, what the list at the start cannot show. */
	n = 0;
	rp_t("\n  named, reachable:");
	rp_open("named", '[');
	for (unsigned i = 0; i < plan_n; i++) {
		const struct plan_entry *e = &plan[i];
		struct stat st;

		if (bound(e) && !stat(e->path, &st) && S_ISSOCK(st.st_mode)) {
			rp_t(" ");
			rp_str(NULL, e->path);
			rp_t(e->m->toggle ? " (a toggle's)" : " (the policy's)");
			n++;
		}
	}
	if (!n)
		rp_t(" none");
	rp_close();
	if (!sockets_by_landlock(v)) {
		rp_t("\n  not covered: ");
		rp_open("unlisted", '{');
		rp_str("why",
		       "a socket made on the host during the run beneath a bound folder, or one "
		       "bound there by a relative name or in another network namespace, is not "
		       "in the list at the start and stays reachable (Landlock below ABI 9); "
		       "the folders:");
		rp_open("beneath", '[');
		for (unsigned i = 0; i < plan_n; i++) {
			const struct plan_entry *e = &plan[i];
			struct stat st;

			if (bound(e) && !stat(e->path, &st) && S_ISDIR(st.st_mode)) {
				rp_t(" ");
				rp_str(NULL, e->path);
			}
		}
		rp_close();
		rp_close();
	}
	rp_close();
	rp_t("\n");
}
