/* resolve.c: the one rule for every mount source.
 *
 * A source (the project, a policy's bind, a toggle's socket or file, an
 * --ro or --rw map) is opened exactly once, by pid 1 while it still sees
 * the host's tree, checked on that descriptor, and cloned from it with
 * open_tree(fd, "", AT_EMPTY_PATH): its name is never looked up again.
 * The caller runs the same checks for --jail-explain and for an early,
 * clear refusal, but what is mounted is what pid 1 checked.
 *
 * How a name is resolved depends on who could have changed it:
 *  - the project is the caller's working directory, inherited by pid 1:
 *    no name at all.  Anything at or below the project's path is opened
 *    beneath it with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, because a
 *    jailed process (this run's, or a concurrent one on the same project)
 *    can rename directories there and plant symlinks;
 *  - everything else is opened with RESOLVE_NO_SYMLINKS; a symlink on the
 *    way is followed only when the jail cannot have made it: owned by
 *    root, in a root-owned directory nobody else may write, and neither in
 *    $HOME nor in the project (Debian's /var/run -> /run, a /home that is
 *    a link).  An --ro or --rw map follows no symlink at all: a link a
 *    jailed run planted in the project (ln -s ~/.bashrc out.log) must not
 *    steer the user's next map (flatpak's CVE-2024-42472).
 *
 * Then the checks a source's kind asks for: the X11, Wayland and Docker
 * toggles take only a Unix socket (Wayland's named wayland-*, in the
 * caller's runtime directory: a session bus or an agent's socket there is
 * not a display), the X authority only a regular file of the caller's in
 * the Xauthority format, so that XAUTHORITY=~/.ssh/id_rsa shows nothing;
 * an environment-derived path and a map get the refusals of
 * resolve_place_refused() below. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "variant/variant.h"

static const char *project_path(void)
{
	return vars_value(AJ_VAR_PROJECT);
}

/* a is b, or below it. */
bool resolve_within(const char *a, const char *b)
{
	size_t n = strlen(b);

	if (n == 1 && b[0] == '/')
		return true;
	return !strncmp(a, b, n) && (a[n] == '\0' || a[n] == '/');
}

/* ---- identities -------------------------------------------------------
 *
 * "Is this at or below that" is asked of the objects, never of their
 * names: a name may hold a link anywhere (~/.cache -> /data/cache, a
 * project reached through /work -> /srv/work) or reach the object through
 * a second mount of it, and then two spellings of one place compare
 * unequal.  The chain of a directory is its identity and that of each
 * directory above it, found with ".." on descriptors up to our root:
 * ".." at a mount's root is its mount point's parent, so the chain is the
 * one the kernel sees, whatever name found the start. */

bool resolve_ident_in(const struct ident *ids, unsigned n, const struct stat *st)
{
	for (unsigned i = 0; i < n; i++)
		if (ids[i].dev == (uint64_t)st->st_dev && ids[i].ino == (uint64_t)st->st_ino)
			return true;
	return false;
}

int resolve_ident_chain(int dfd, struct ident *ids, unsigned max)
{
	struct stat st, up;
	unsigned n = 0;
	int fd = openat(dfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st)) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		errno = e;
		return -1;
	}
	for (;;) {
		int pfd;

		if (n == max) {
			close(fd);
			errno = ENAMETOOLONG;
			return -1;
		}
		ids[n].dev = (uint64_t)st.st_dev;
		ids[n].ino = (uint64_t)st.st_ino;
		n++;
		pfd = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		if (pfd < 0 || fstat(pfd, &up)) {
			int e = errno;
			if (pfd >= 0)
				close(pfd);
			errno = e;
			return -1;
		}
		if (up.st_dev == st.st_dev && up.st_ino == st.st_ino) {
			close(pfd);
			return (int)n; /* the root: its ".." is itself */
		}
		fd = pfd;
		st = up;
	}
}

/* The chain of the directory at path, links followed (where it really
 * is), or -1. */
int resolve_ident_chain_at(const char *path, struct ident *ids, unsigned max)
{
	int fd = openat(AT_FDCWD, path, O_PATH | O_DIRECTORY | O_CLOEXEC), n;

	if (fd < 0)
		return -1;
	n = resolve_ident_chain(fd, ids, max);
	close(fd);
	return n;
}

static bool is_link(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISLNK(st.st_mode);
}

/* The kernel's default overflow uid: what an unmapped owner shows as. */
#define OVERFLOW_UID 65534

/* Owned by root.  In the jail's user namespace only the caller's uid is
 * mapped, and root's files show as the overflow uid there: the stub
 * resolves its sources in that namespace, so /var/run -> /run was refused
 * by the same rule that followed it in --jail-explain (outside it), and
 * Debian 12's Docker socket was skipped without a word.  An unmapped
 * owner is one no process of the jail can be (they all have the caller's
 * uid), which is what this rule is for; it counts only when "/" itself
 * shows so, i.e. root is unmapped here. */
static bool root_owned(uid_t uid)
{
	struct stat st;

	if (uid == 0)
		return true;
	/* Asked each time: the caller asks before and after it enters the
	 * namespace, and this is rare (a link of an unmapped owner). */
	return uid == OVERFLOW_UID && uid != getuid() && !stat("/", &st) &&
	       st.st_uid == OVERFLOW_UID;
}

/* A symlink on the way to a policy's source (at where) that the jail
 * cannot have made: root's, in a directory only root may write, outside
 * $HOME and the project (/var/run -> /run, a /home that is a link); or
 * the caller's own on the way, never as the source itself, outside the
 * project (~/.cache -> /data/cache).  A jailed process writes only in the
 * project and the writable caches and maps, and a link it put in place
 * of a cache (~/.cache/huggingface -> ~/.ssh, through an --rw of
 * ~/.cache) is the last component. */
static bool trusted_link(int dfd, const struct stat *lst, const char *where, bool last)
{
	static struct ident ids[AJ_IDENT_DEPTH];
	const char *home = vars_value(AJ_VAR_HOME), *proj = project_path();
	struct stat dst, o;
	int n;

	/* In the project or $HOME: by name, and by identity, the directory
	 * that holds the link and each one above it against the project (the
	 * working directory) and $HOME, for where's text is only a guess
	 * after a relative link upwards, or a second mount. */
	if (proj && resolve_within(where, proj))
		return false;
	n = resolve_ident_chain(dfd, ids, AJ_IDENT_DEPTH);
	if (n <= 0 || (proj && (stat(".", &o) || resolve_ident_in(ids, (unsigned)n, &o))))
		return false;
	if (lst->st_uid == getuid() && lst->st_uid != 0 && !last)
		return true;
	if (!root_owned(lst->st_uid) || fstat(dfd, &dst) || !root_owned(dst.st_uid) ||
	    (dst.st_mode & 022))
		return false;
	return !(home && (resolve_within(where, home) ||
	                  (!stat(home, &o) && resolve_ident_in(ids, (unsigned)n, &o))));
}

/* The slow path, for an absolute path with a symlink on the way: one
 * component at a time, following only trusted links (at most 40). */
static int walk_trusted(const char *path, int flags, const char **why)
{
	char rest[AJ_PATH_MAX], where[AJ_PATH_MAX], link[AJ_PATH_MAX];
	size_t wl = 0;
	unsigned hops = 0;
	int dfd = openat2_(AT_FDCWD, "/", O_PATH | O_DIRECTORY, 0);

	if (dfd < 0 || strlen(path) >= sizeof(rest))
		return -1;
	strcpy(rest, path);
	for (char *p = rest;;) {
		struct stat st;
		char *end;
		int fd;

		while (*p == '/')
			p++;
		if (!*p)
			return dfd;
		end = strchrnul(p, '/');
		if (*end) {
			*end = '\0';
			end++;
		}
		if (wl + 1 + strlen(p) >= sizeof(where))
			break;
		where[wl] = '/';
		strcpy(where + wl + 1, p);
		fd = openat(dfd, p, O_PATH | O_NOFOLLOW | O_CLOEXEC | (*end ? 0 : flags));
		if (fd < 0 || fstat(fd, &st)) {
			int e = errno;
			close(dfd);
			errno = e;
			return -1;
		}
		if (!S_ISLNK(st.st_mode)) {
			close(dfd);
			dfd = fd;
			wl += 1 + strlen(p);
			p = end;
			continue;
		}
		if (!trusted_link(dfd, &st, where, !*end) || ++hops > 40) {
			close(fd);
			close(dfd);
			*why = "a symlink on the way could have been made by a jailed process";
			errno = ELOOP;
			return -1;
		}
		ssize_t n = readlinkat(fd, "", link, sizeof(link) - 1);
		close(fd);
		if (n <= 0 || (size_t)n + 2 + strlen(end) >= sizeof(rest))
			break;
		link[n] = '\0';
		/* The link's text, then what was left after it. */
		size_t rl = strlen(end);
		memmove(rest + n + 1, end, rl + 1);
		memcpy(rest, link, (size_t)n);
		rest[n] = '/';
		p = rest;
		if (link[0] == '/') {
			close(dfd);
			dfd = openat2_(AT_FDCWD, "/", O_PATH | O_DIRECTORY, 0);
			wl = 0;
			if (dfd < 0)
				return -1;
		} else if (!strncmp(link, "..", 2)) {
			/* where is only for the trust rule: a relative link
			 * upwards makes it imprecise, so trust nothing after. */
			wl = 0;
			where[0] = '\0';
		}
	}
	close(dfd);
	errno = ENAMETOOLONG;
	return -1;
}

int resolve_source(const char *path, bool follow, const char **why)
{
	const char *proj = project_path();
	int fd;

	*why = NULL;
	if (proj && resolve_within(path, proj)) {
		const char *rel = path[strlen(proj)] ? path + strlen(proj) + 1 : ".";

		fd = openat2_(AT_FDCWD, rel, O_PATH | O_NOFOLLOW,
		              RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
		if (fd >= 0 && is_link(fd)) {
			close(fd);
			fd = -1;
			errno = ELOOP;
		}
		if (fd < 0 && errno == ELOOP)
			*why = "a symlink is on the way, inside the project";
		else if (fd < 0 && errno == EXDEV)
			*why = "it leads out of the project";
		return fd;
	}
	fd = openat2_(AT_FDCWD, path, O_PATH | O_NOFOLLOW, RESOLVE_NO_SYMLINKS);
	/* O_PATH | O_NOFOLLOW returns a trailing symlink itself. */
	if (fd >= 0 && is_link(fd)) {
		close(fd);
		fd = -1;
		errno = ELOOP;
	}
	if (fd >= 0 || errno != ELOOP)
		return fd;
	if (!follow) {
		*why = "a symlink is on the way; map the place it leads to";
		return -1;
	}
	return walk_trusted(path, O_NOFOLLOW, why);
}

/* What the host has at path, for a 'link?' entry (plan.c): S_IFLNK
 * with its target in target, S_IFDIR, another type, or 0 for nothing.
 * Looked at on one descriptor, the trusted links on the way followed as
 * for any source; the entry is then bound (opened again, and checked, by
 * pid 1) or made a link, neither of which a stale answer can widen. */
unsigned resolve_host_layout(const char *path, char *target, size_t n)
{
	const char *why;
	struct stat st;
	ssize_t l;
	int fd = openat2_(AT_FDCWD, path, O_PATH | O_NOFOLLOW, RESOLVE_NO_SYMLINKS);

	if (fd < 0 && errno == ELOOP)
		fd = walk_trusted(path, O_NOFOLLOW, &why);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st)) {
		close(fd);
		return 0;
	}
	if (S_ISLNK(st.st_mode)) {
		l = readlinkat(fd, "", target, n - 1);
		close(fd);
		if (l <= 0 || (size_t)l >= n - 1)
			return 0;
		target[l] = '\0';
		return S_IFLNK;
	}
	close(fd);
	return st.st_mode & S_IFMT;
}

/* ---- the checks of a source's kind ----------------------------------- */

/* "/proc/self/fd/N", where the kernel tells what a descriptor is. */
void resolve_fd_path(char *buf, int fd)
{
	memcpy(buf, "/proc/self/fd/", 14);
	out_fmt_u(buf + 14, (unsigned)fd);
}

static const char *const system_trees[] = AJ_REFUSED_TREES;
static const char *const system_dirs[] = AJ_REFUSED_DIRS;

/* Is st one of the directories at names (a list of paths), or is the
 * chain of p's object below one (within)?  Links on the names are
 * followed: the question is where they really are. */
static bool ident_is(const struct stat *st, const char *name)
{
	struct stat o;

	return !stat(name, &o) && o.st_dev == st->st_dev && o.st_ino == st->st_ino;
}

static bool chain_holds(const struct ident *ids, unsigned n, const char *name)
{
	struct stat o;

	return !stat(name, &o) && resolve_ident_in(ids, n, &o);
}

/* Why p (absolute, normal; its object open at fd, or -1 before it is
 * opened) may not be mapped, or NULL: the rule for --ro and --rw maps
 * (extra.c) and for the paths that come from the environment.  The
 * names are compared first, for the early refusal; then, on fd, the
 * identities, so that no spelling (a link on the way to $HOME, to the
 * runtime directory or to a system tree, a second mount of one) gets
 * around a refusal.  A directory or file whose chain cannot be walked
 * is refused: fail closed. */
const char *resolve_place_refused(const char *p, int fd)
{
	static struct ident home_ids[AJ_IDENT_DEPTH], xdg_ids[AJ_IDENT_DEPTH],
	    p_ids[AJ_IDENT_DEPTH];
	const char *home = vars_value(AJ_VAR_HOME);
	const char *xdg = vars_value(AJ_VAR_XDG_RUNTIME_DIR);
	struct stat st;
	int n;

	if (!strcmp(p, "/"))
		return "it is the root directory";
	if (home && resolve_within(home, p))
		return "it is your home directory or a parent of it; map the directories the "
		       "command needs";
	/* The session's sockets (a bus, agents, a rootless Docker) live there. */
	if (xdg && resolve_within(xdg, p))
		return "it is your runtime directory ($XDG_RUNTIME_DIR) or a parent of it";
	for (unsigned i = 0; i < sizeof(system_trees) / sizeof(system_trees[0]); i++)
		if (resolve_within(p, system_trees[i]))
			return "it is a system directory, or below one";
	for (unsigned i = 0; i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++)
		if (!strcmp(p, system_dirs[i]))
			return "it is a system directory";
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st))
		return "it cannot be inspected";
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
		return "only directories and regular files are mapped; sockets and devices come "
		       "in through the toggles:" AJ_TOGGLES(AJ_WORD_ITEM);
	if (ident_is(&st, "/"))
		return "it is the root directory";
	if (S_ISDIR(st.st_mode)) {
		if (home && (n = resolve_ident_chain_at(home, home_ids, AJ_IDENT_DEPTH)) > 0 &&
		    resolve_ident_in(home_ids, (unsigned)n, &st))
			return "it is your home directory or a parent of it (under another name); "
			       "map the directories the command needs";
		if (xdg && (n = resolve_ident_chain_at(xdg, xdg_ids, AJ_IDENT_DEPTH)) > 0 &&
		    resolve_ident_in(xdg_ids, (unsigned)n, &st))
			return "it is your runtime directory ($XDG_RUNTIME_DIR) or a parent of it "
			       "(under another name)";
		n = resolve_ident_chain(fd, p_ids, AJ_IDENT_DEPTH);
	} else {
		/* A file: the chain of the directory that holds it, where the
		 * kernel says it is. */
		static char real[AJ_PATH_MAX];
		char link[32], *slash;
		ssize_t l;

		resolve_fd_path(link, fd);
		l = readlink(link, real, sizeof(real) - 1);
		if (l <= 0)
			return "it cannot be inspected";
		real[l] = '\0';
		slash = strrchr(real, '/');
		if (!slash || real[0] != '/')
			return "it cannot be inspected";
		slash[slash == real] = '\0';
		n = resolve_ident_chain_at(real, p_ids, AJ_IDENT_DEPTH);
	}
	if (n <= 0)
		return "the directories above it cannot be inspected";
	for (unsigned i = 0; i < sizeof(system_trees) / sizeof(system_trees[0]); i++)
		if (chain_holds(p_ids, (unsigned)n, system_trees[i]))
			return "it is a system directory, or below one (under another name)";
	for (unsigned i = 0; i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++)
		if (ident_is(&st, system_dirs[i]))
			return "it is a system directory (under another name)";
	return NULL;
}

static const char *source_check(const struct aj_mount *m, const char *path, int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return "it cannot be inspected";
	switch (m->path.var) {
	case AJ_VAR_X11_SOCKET:
	case AJ_VAR_DOCKER_SOCKET:
		if (!S_ISSOCK(st.st_mode))
			return "it is not a Unix socket";
		return NULL;
	case AJ_VAR_WAYLAND_SOCKET: {
		const char *base = strrchr(path, '/') + 1;

		if (!S_ISSOCK(st.st_mode))
			return "it is not a Unix socket";
		if (strncmp(base, "wayland-", 8))
			return "a Wayland socket is named wayland-*; this is another service's";
		if (st.st_uid != getuid())
			return "the socket is not yours";
		return NULL;
	}
	case AJ_VAR_XAUTHORITY:
		if (!S_ISREG(st.st_mode))
			return "it is not a regular file";
		if (st.st_uid != getuid())
			return "the file is not yours";
		if (!xauth_is(fd))
			return "it is not an X authority file";
		return NULL;
	case AJ_VAR_HOME:
	case AJ_VAR_XDG_RUNTIME_DIR: {
		/* Where the links on the way led, as the kernel has it. */
		static char real[AJ_PATH_MAX];
		char link[32];
		ssize_t n;

		resolve_fd_path(link, fd);
		n = readlink(link, real, sizeof(real) - 1);
		if (n <= 0)
			return "it cannot be inspected";
		real[n] = '\0';
		return resolve_place_refused(path, -1) ? resolve_place_refused(path, -1)
		                                       : resolve_place_refused(real, fd);
	}
	}
	if (m->flags & AJ_MOUNT_MAP)
		return resolve_place_refused(path, fd);
	return NULL;
}

/* Does the source open at fd, to be mounted at path, hold the project
 * (the working directory) where the project's own mount does not lie over
 * it?  The masks and denies are made on the project's mount: a cache that
 * holds the project under another name (~/.cache -> /data/cache, the
 * project /data/cache/huggingface/p) would show it bare at
 * ~/.cache/huggingface/p.  By identity: the source against the project
 * and each directory above it; then the project's path below the mount
 * point, opened beneath the source, must be the project itself.  NULL
 * when it does not hold it, or holds it only there. */
const char *resolve_hides_project(int fd, const char *path)
{
	static struct ident ids[AJ_IDENT_DEPTH];
	static int n = -1;
	const char *proj = project_path(), *rel;
	struct stat st, ps, at;
	int pfd;
	bool same;

	if (!proj)
		return NULL;
	if (n < 0)
		n = resolve_ident_chain(AT_FDCWD, ids, AJ_IDENT_DEPTH);
	if (n <= 0 || fstat(fd, &st) || stat(".", &ps))
		return "it cannot be told whether it holds the project";
	if (!resolve_ident_in(ids, (unsigned)n, &st))
		return NULL;
	if (!resolve_within(proj, path))
		goto bare;
	rel = proj[strlen(path)] ? proj + strlen(path) + 1 : ".";
	if (!strcmp(path, "/"))
		rel = proj[1] ? proj + 1 : ".";
	pfd = openat2_(fd, rel, O_PATH | O_NOFOLLOW,
	               RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	same = pfd >= 0 && !fstat(pfd, &at) && at.st_dev == ps.st_dev && at.st_ino == ps.st_ino;
	if (pfd >= 0)
		close(pfd);
	if (same)
		return NULL;
bare:
	return "the project is inside it under another name (a link on the way, or a second "
	       "mount), where the project's masks and denies would not reach; run the jail from "
	       "a project outside it";
}

/* Sources whose path a variable of the environment decides: a refusal
 * skips them (the toggles' are optional) and --jail-explain says why. */
int resolve_source_open(const struct aj_mount *m, const char *path, const char **why)
{
	bool follow = !(m->flags & AJ_MOUNT_MAP);
	int fd = resolve_source(path, follow, why);

	if (fd < 0)
		return -1;
	*why = source_check(m, path, fd);
	if (!*why)
		*why = resolve_hides_project(fd, path);
	if (*why) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}
