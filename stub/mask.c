/* mask.c: masks and denies, from the scan's results.
 *
 * Four covers are staged in the new root's tmpfs at /.aj: an empty 0444
 * file and an empty 0555 directory (masks: present, empty), and the same
 * with mode 000 (denies: present, EACCES, since the target keeps no
 * CAP_DAC_OVERRIDE).  Each cover is a clone made read-only, nosuid, nodev
 * and noexec, and attached with move_mount(), which, unlike mount(2), does
 * not follow a symlink at the destination: a symlink whose name matches is
 * covered itself (reading it gives the empty file; its target keeps its
 * own rules), and an entry swapped for a link since the scan cannot steer
 * the cover elsewhere.  The stage is removed at the end; the covers keep
 * the inodes they show.  (A separate read-only tmpfs would make the covers
 * read-only at the superblock, but costs a mount, a remount and an unmount,
 * about 60 us, where the flags cost 1 us per cover; with no capability and
 * no mount(2) left in the jail, nobody can clear the flags.) */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "sys.h"

static const char *const cover[2][2] = {
    {"/.aj/f", "/.aj/d"}, /* mask: file, directory */
    {"/.aj/F", "/.aj/D"}, /* deny */
};

static void stage(void)
{
	if (mkdir("/.aj", 0755) || mknod("/.aj/f", S_IFREG | 0444, 0) ||
	    mknod("/.aj/F", S_IFREG, 0) || mkdir("/.aj/d", 0555) || mkdir("/.aj/D", 0))
		die("create the covers in /.aj", errno, NULL);
}

static void unstage(void)
{
	if (unlink("/.aj/f") || unlink("/.aj/F") || rmdir("/.aj/d") || rmdir("/.aj/D") ||
	    rmdir("/.aj"))
		die("remove /.aj", errno, NULL);
}

/* The project in the new root, as the plan attached it (or the bind that
 * holds it): covers and the fence are opened beneath it. */
static int project_fd(const char *project)
{
	int fd = plan_open_inside(project, plan_n);

	if (fd < 0 && errno != ENOENT)
		diep("open the project in the jail", project, errno, NULL);
	return fd;
}

static struct mount_attr cover_attr = {
    .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
};
static bool staged;

/* A cover onto the descriptor itself: a symlink is covered as it is (it
 * leads nowhere then); nothing is looked up by name. */
static void cover_fd(int tfd, bool deny, bool isdir, const char *what)
{
	int fd;

	if (!staged) {
		stage();
		staged = true;
	}
	fd = sys_open_tree(AT_FDCWD, cover[deny][isdir], OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (fd < 0 || sys_mount_setattr(fd, "", AT_EMPTY_PATH, &cover_attr))
		die("make a cover", errno, NULL);
	if (sys_move_mount(fd, "", tfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH))
		diep("cover", what, errno, NULL);
	close(fd);
}

/* The sockets at the top of a directory an --ro or --rw map brings in,
 * in a jail without the host's network: denied, as the project's are
 * (scan.c).  Only the top: a map is not walked (its size is the user's),
 * so a socket deeper in it, or made there during the run, stays
 * reachable; docs/secrets.md says so. */
static void cover_map_sockets(const struct plan_entry *e)
{
	static _Alignas(8) char buf[4096];
	int dfd = openat2_(e->fd, ".", O_RDONLY | O_DIRECTORY | O_NOFOLLOW, RESOLVE_BENEATH);

	if (dfd < 0)
		diep("list", e->path, errno, NULL);
	struct dir_iter it = {dfd, buf, sizeof(buf), 0, 0};
	for (struct aj_dirent *d; (d = dir_next(&it, "list", e->path));) {
		struct stat st;
		int tfd;

		if (d->d_type != DT_SOCK && d->d_type != DT_UNKNOWN)
			continue;
		tfd = openat(dfd, d->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (tfd < 0 || fstat(tfd, &st))
			diep("inspect", d->d_name, errno, NULL);
		if (S_ISSOCK(st.st_mode))
			cover_fd(tfd, true, false, d->d_name);
		close(tfd);
	}
	close(dfd);
}

void mask_apply(const char *project, const struct aj_variant *v)
{
	int pfd = -1;

	if (v->network != AJ_NET_HOST)
		for (unsigned i = 0; i < plan_n; i++)
			if (plan[i].path && !plan[i].missing && plan[i].isdir && plan[i].fd >= 0 &&
			    (plan[i].m->flags & AJ_MOUNT_MAP))
				cover_map_sockets(&plan[i]);
	for (unsigned i = 0; i < scan->n; i++) {
		const struct scan_hit *h = &scan->hits[i];
		const char *rel = scan->arena + h->off;
		struct stat st;
		int tfd;

		if (!h->kind)
			continue; /* an absent guarded path: only the fence keeps it */
		if (pfd < 0) {
			pfd = project_fd(project);
			if (pfd < 0)
				break; /* the policy does not bring the project in */
		}
		/* The object the scan saw, by the way it saw it: beneath the
		 * project, no symlink followed, the same device and inode.  A
		 * concurrent jailed process may have renamed a directory on the
		 * way since; then the secret is somewhere the scan did not look,
		 * and the jail does not start. */
		tfd = openat2_(pfd, rel, O_PATH | O_NOFOLLOW,
		               RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
		if (tfd < 0 || fstat(tfd, &st) ||
		    (h->ino && (st.st_ino != h->ino || st.st_dev != h->dev)) ||
		    (!h->islink && !S_ISDIR(st.st_mode) != !h->isdir))
			diep("cover", rel, tfd < 0 ? errno : 0,
			     "it changed while the jail was being built (another process is "
			     "renaming or replacing files in the project); try again");
		cover_fd(tfd, h->kind == AJ_PATTERN_DENY, h->isdir, rel);
		close(tfd);
	}
	if (pfd >= 0)
		close(pfd);
	if (staged)
		unstage();
}

/* ---- the fence: Landlock behind the covers -------------------------------
 *
 * Nothing in the jail can take a cover away (no capability, no mount
 * call), but a kernel or stub bug might.  Behind the covers, Landlock then
 * grants nothing on a denied entry, nor on an absent guarded path, where
 * that costs nothing: the rule on the project's mount keeps only what is
 * not reading (listing, for a read-only mount), and every other entry of
 * each directory on the way to them gets the mount's rights as a rule of
 * its own.  Landlock rights reach everything beneath a rule, without
 * exception, so a directory on the way has no read right of its own: a
 * file that appears in it during the run cannot be read.  For an absent
 * guarded path that is the point; for anything else it is a cost, and it
 * is free only where nothing can appear from inside: a read-only project,
 * with no rule above it that grants reading.  A project below $HOME or
 * /tmp (writable tmpfs mounts: their rules reach it) is never fenced.
 * Listing stays allowed ("/" lets every directory be listed): the names in
 * a denied directory would show, never their content. */
#define FENCE_READ (AJ_LL_READ_FILE | AJ_LL_EXECUTE)

/* A rule costs an open, a landlock_add_rule and its share of
 * landlock_restrict_self: 1.5 us measured (docs/secrets.md, bench/scan.sh).
 * 64 keep the fence within 0.1 ms, and cover a typical project's root. */
#define FENCE_MAX_RULES 64

static bool fence_target(const struct scan_hit *h)
{
	return h->kind == AJ_PATTERN_DENY || !h->kind;
}

/* Is rel (len bytes, relative to the project; "" the project) a directory
 * on the way to a target?  Only the targets before hit number first count. */
static bool on_the_way(const char *rel, size_t len, unsigned first)
{
	for (unsigned i = 0; i < first && i < scan->n; i++) {
		const char *t = scan->arena + scan->hits[i].off;

		if (fence_target(&scan->hits[i]) && (!len || (!strncmp(t, rel, len) && t[len] == '/')))
			return true;
	}
	return false;
}

static bool is_target(const char *rel)
{
	for (unsigned i = 0; i < scan->n; i++)
		if (fence_target(&scan->hits[i]) && !strcmp(scan->arena + scan->hits[i].off, rel))
			return true;
	return false;
}

/* Is path a (non-strict) ancestor of the relative or absolute path p? */
static bool above(const char *path, const char *p)
{
	size_t n = strlen(path);

	if (n == 1 && path[0] == '/')
		return true;
	return !strncmp(path, p, n) && (p[n] == '/' || !p[n]);
}

/* Does a mount rule other than e's, or a variant rule, grant reading on
 * the way to a target? */
static const char *granted_above(const struct aj_variant *v, const char *project,
                                 const struct plan_entry *e)
{
	static char path[AJ_PATH_MAX];
	size_t pl = strlen(project);

	for (unsigned i = 0; i < plan_n; i++) {
		const struct plan_entry *o = &plan[i];

		if (o == e || !o->path || o->missing || !(o->m->landlock & FENCE_READ))
			continue;
		if (above(o->path, project))
			return o->path;
		if (!strncmp(o->path, project, pl) && o->path[pl] == '/')
			for (unsigned k = 0; k < scan->n; k++)
				if (fence_target(&scan->hits[k]) &&
				    above(o->path + pl + 1, scan->arena + scan->hits[k].off))
					return o->path;
	}
	for (unsigned i = 0; i < v->n_landlock_rules; i++) {
		const struct aj_landlock_rule *r = &v->landlock_rules[i];

		if ((r->access & FENCE_READ) && path_join(&r->path, path, sizeof(path)) >= 0 &&
		    above(path, project))
			return path;
	}
	return NULL;
}

const struct plan_entry *fence_plan(const struct aj_variant *v, const char **why,
                                    const char **where)
{
	const char *project = var_value(AJ_VAR_PROJECT);
	const struct plan_entry *e = NULL;

	*why = *where = NULL;
	if (!on_the_way("", 0, scan->n)) {
		*why = "nothing is denied or guarded here";
		return NULL;
	}
	if (v->landlock == AJ_LANDLOCK_OFF) {
		*why = "Landlock is off";
		return NULL;
	}
	for (unsigned i = 0; i < plan_n && !e; i++)
		if (plan[i].path && !plan[i].missing && !strcmp(plan[i].path, project) &&
		    (plan[i].m->op == AJ_MOUNT_RO || plan[i].m->op == AJ_MOUNT_RW))
			e = &plan[i];
	if (!e)
		*why = "the project is not a mount of its own";
	else if (e->m->op != AJ_MOUNT_RO)
		*why = "the project is writable: a file made beside a denied one could not be "
		       "read back";
	else if ((*where = granted_above(v, project, e)))
		*why = "a writable or readable mount above it reaches it:";
	else if (fence_apply(-1, e, AJ_LL_RIGHTS_ALL) > FENCE_MAX_RULES)
		*why = "too many entries on the way (a rule each; the fence stops at 64)";
	return *why ? NULL : e;
}

/* One directory on the way (rel: len bytes, relative to the project):
 * a rule for each of its entries that is neither a target nor itself on
 * the way.  Symlinks get none: what they point at has its own. */
static unsigned fence_dir(int ruleset, const struct plan_entry *e, const char *rel, size_t len,
                          uint64_t access)
{
	static _Alignas(8) char buf[8192];
	char path[AJ_PATH_MAX];
	size_t pl = strlen(e->path), base = pl + 1 + len + !!len;
	unsigned rules = 0;
	int dfd;

	if (base + 1 >= sizeof(path))
		diep("fence", rel, ENAMETOOLONG, NULL);
	memcpy(path, e->path, pl);
	path[pl] = '/';
	memcpy(path + pl + 1, rel, len);
	path[pl + 1 + len] = '\0';
	/* In pid 1, beneath the project's mount, as the covers; the caller
	 * (--jail-explain, counting only) has no mount yet. */
	if (e->fd >= 0)
		dfd = openat2_(e->fd, len ? path + pl + 1 : ".", O_RDONLY | O_DIRECTORY | O_NOFOLLOW,
		               RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	else
		dfd = openat(AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		diep("fence", path, errno, NULL);
	if (len)
		path[base - 1] = '/';
	struct dir_iter it = {dfd, buf, sizeof(buf), 0, 0};
	for (struct aj_dirent *d; (d = dir_next(&it, "fence", path));) {
		const char *name = d->d_name;
		size_t nl = strlen(name);
		struct stat st;
		bool isdir = d->d_type == DT_DIR;
		int fd;

		if (d->d_type == DT_LNK || base + nl >= sizeof(path))
			continue;
		memcpy(path + base, name, nl + 1);
		if (on_the_way(path + pl + 1, len + !!len + nl, scan->n) ||
		    is_target(path + pl + 1))
			continue;
		rules++;
		if (ruleset < 0)
			continue;
		fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT)
			continue; /* gone since it was listed: nothing to grant */
		if (fd < 0)
			diep("fence", path, errno, NULL);
		if (d->d_type == DT_UNKNOWN) {
			if (fstat(fd, &st))
				diep("fence", path, errno, NULL);
			if (S_ISLNK(st.st_mode))
				continue; /* counted once too many: harmless */
			isdir = S_ISDIR(st.st_mode);
		}
		/* The fd stays open until fds_close(): one call less. */
		landlock_rule(ruleset, fd, access, isdir, path);
	}
	close(dfd);
	return rules;
}

/* The fence's rules (ruleset < 0: only counted, for --jail-explain), in
 * place of the project mount's own.  Returns how many rules it takes. */
unsigned fence_apply(int ruleset, const struct plan_entry *e, uint64_t handled)
{
	uint64_t access = e->m->landlock & handled;
	unsigned rules = 1;

	if (ruleset >= 0)
		landlock_rule(ruleset, e->fd, access & ~FENCE_READ, true, e->path);
	rules += fence_dir(ruleset, e, "", 0, access);
	/* Every other directory on the way, once: each proper prefix of a
	 * target that no earlier target went through. */
	for (unsigned i = 0; i < scan->n; i++) {
		const char *t = scan->arena + scan->hits[i].off;

		if (!fence_target(&scan->hits[i]))
			continue;
		for (const char *sl = strchr(t, '/'); sl; sl = strchr(sl + 1, '/'))
			if (!on_the_way(t, (size_t)(sl - t), i))
				rules += fence_dir(ruleset, e, t, (size_t)(sl - t), access);
	}
	return rules;
}
