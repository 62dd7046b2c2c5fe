/* plan.c: the interpreter of the mount table.
 *
 * Three calls over one table:
 *  plan_resolve       (caller, before any namespace) substitutes the
 *                     runtime variables and orders the entries by rank
 *                     (aj_table.h);
 *  plan_make          (pid 1, from build.c) in one call: clones every
 *                     RO/RW source with open_tree() while still seeing the
 *                     host's tree (open_sources: not later through the old
 *                     root, because an absolute symlink on the way
 *                     (Debian's /var/run -> /run, a $HOME under a linked
 *                     /home) must resolve against the host's "/", not the
 *                     new one), pivots into the new root's tmpfs, opens the
 *                     covers' stage (mask.c) and walks the table with one
 *                     switch, attaching everything below the new root;
 *  plan_landlock      (pid 1, the root finished, from fence_apply) gives
 *                     each mount it made the Landlock rights the compiler
 *                     gave it.
 *
 * Where Landlock is enforced, the scratch entries (AJ_MOUNT_SCRATCH: /tmp,
 * /run, /var/tmp, $HOME) and /dev become directories of the new root's own
 * tmpfs instead of tmpfs mounts of their own: a superblock less to create
 * and to tear down each (about 20 us apiece), and the root is not
 * remounted read-only.  Landlock grants writes only beneath them ("/"
 * itself may only be listed), which is what the read-only root did;
 * without Landlock the root stays read-only and each gets its tmpfs.
 *
 * The new root is a tmpfs mounted on /tmp of our private mount namespace;
 * the host's root hangs below it at /oldroot until build.c detaches
 * it.  It must stay attached while we build: a fresh procfs may only be
 * mounted while a full procfs is visible (the kernel's
 * mount_too_revealing()), and /dev's nodes are bound from /oldroot/dev. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "root/root.h"

struct plan_entry plan[AJ_PLAN_MAX];
unsigned plan_n;

/* The plan, for the rooms above (explain, the fallback): *n entries. */
struct plan_entry *plan_entries(unsigned *n)
{
	*n = plan_n;
	return plan;
}
static bool plan_dirs; /* scratch entries on the root are directories of it (Landlock on) */
static char plan_arena[AJ_PLAN_ARENA];

static const char bind_hint[] =
    "the policy needs it; make it readable by you, or mark it optional (?) in the policy";

/* A 'link?' entry, as the host has it (resolve.c: resolve_host_layout): the link
 * with the host's own target, a read-only bind of its directory, or
 * nothing.  The decided entry is a copy of the table's. */
static struct aj_mount layout[AJ_PLAN_MAX];
static unsigned n_layout;

static void follow_host(struct plan_entry *e, size_t *used)
{
	struct aj_mount *c = &layout[n_layout];
	char *target = plan_arena + *used;
	unsigned kind = resolve_host_layout(e->path, target, sizeof(plan_arena) - *used);

	*c = *e->m; /* AS_HOST stays: --jail-explain says what was chosen */
	if (kind == S_IFLNK) {
		c->target = target;
		c->landlock = 0; /* where it leads has its own rule */
		*used += strlen(target) + 1;
	} else if (kind == S_IFDIR) {
		c->op = AJ_MOUNT_RO;
		c->flags |= AJ_MOUNT_OPTIONAL;
	} else {
		e->missing = 1;
		return;
	}
	e->m = c;
	n_layout++;
}

/* The variant's spans, as one table, in the order of aj_table.h's rule:
 * by rank, the compiler's completed with what only the run knows (the
 * components of a path with a variable, or of a map), and in table order
 * between equal ranks. */
void plan_resolve(const struct aj_variant *v)
{
	size_t used = 0;

	plan_dirs = v->landlock != AJ_LANDLOCK_OFF && landlock_abi() > 0;

	for (unsigned r = 0; r < v->n_mount_spans; r++) {
		const struct aj_mount_span *span = &v->mount_spans[r];

		if (plan_n + span->n > AJ_PLAN_MAX)
			die("read the mount table", 0,
			    "it has more entries than this stub can hold");
		for (unsigned i = 0; i < span->n; i++) {
			const struct aj_mount *m = &span->v[i];
			struct plan_entry e = {.m = m, .fd = -1, .rank = UINT16_MAX};
			int l;
			unsigned j;

			/* A toggle the run has off brings nothing. */
			if (m->toggle && !(v->features & AJ_TOGGLE_BIT(m->toggle - 1)))
				continue;
			l = vars_path_join(&m->path, plan_arena + used, sizeof(plan_arena) - used);
			if (l == AJ_PATH_UNRESOLVED) {
				if (!(m->flags & AJ_MOUNT_OPTIONAL))
					diep("resolve the variable", vars_name(m->path.var), 0,
					     vars_why(m->path.var));
			} else if (l < 0) {
				die("resolve a mount path", ENAMETOOLONG, NULL);
			} else {
				e.path = plan_arena + used;
				used += (size_t)l + 1;
				if (m->flags & AJ_MOUNT_AS_HOST)
					follow_host(&e, &used);
				e.rank = m->rank;
				if (m->path.var || (m->flags & AJ_MOUNT_MAP))
					for (const char *p = e.path; *p; p++)
						e.rank += 2 * (*p == '/' && p[1]);
			}
			for (j = plan_n; j > 0 && plan[j - 1].rank > e.rank; j--)
				plan[j] = plan[j - 1];
			plan[j] = e;
			plan_n++;
		}
	}
}

/* True when a device entry of the plan has a node on the host (asked
 * before pivot_root, or by --jail-explain): the GPU's /sys is bound only
 * then.  Asked once. */
bool plan_has_devices(void)
{
	static int found = -1;

	for (unsigned i = 0; found < 0 && i < plan_n; i++)
		if (plan[i].path && aj_op(plan[i].m->op)->make == AJ_MAKE_NODES &&
		    dev_match("", plan[i].path, false))
			found = 1;
	if (found < 0)
		found = 0;
	return found;
}

/* A bind's source, opened once (resolve.c), the host directory made
 * first where the policy says so ('rw+'): also the fallback's. */
int plan_source_open(const struct aj_mount *m, const char *path, const char **why)
{
	int fd = resolve_source_open(m, path, why);

	if (fd < 0 && errno == ENOENT && (m->flags & AJ_MOUNT_CREATE)) {
		fs_mkdir_p(path);
		fd = resolve_source_open(m, path, why);
	}
	return fd;
}

/* Locked flags (nosuid, nodev, noexec, atime of a mount we inherited from
 * a more privileged namespace) can only be added to, never cleared, and
 * mount_setattr() only adds; AT_RECURSIVE makes every submount of the
 * source read-only too, which a bind + remount cannot do. */
static void open_source(struct plan_entry *e)
{
	const struct aj_mount *m = e->m;
	struct mount_attr attr = {.attr_set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV};
	struct stat st;
	int fd;

	if ((m->flags & AJ_MOUNT_WITH_DEVICES) && !plan_has_devices()) {
		e->missing = 1;
		return;
	}
	fd = plan_source_open(m, e->path, &e->why);
	if (fd < 0) {
		int err = errno;

		if ((m->flags & AJ_MOUNT_OPTIONAL) && (e->why || err == ENOENT || err == ENOTDIR)) {
			e->missing = 1;
			return;
		}
		diep("bind", e->path, e->why ? 0 : err, e->why ? e->why : bind_hint);
	}
	if (aj_op_is(m->op, AJ_OP_WRITES))
		reflog_guard(fd, e->path); /* on what is mounted, not on a name */
	/* The checked descriptor is what is cloned: no second lookup. */
	e->fd = sys_open_tree(fd, "",
	                      OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_EMPTY_PATH);
	if (e->fd < 0)
		diep("bind", e->path, errno, bind_hint);
	close(fd);
	if (fstat(e->fd, &st))
		diep("inspect", e->path, errno, NULL);
	e->isdir = S_ISDIR(st.st_mode);
	if (!aj_op_is(m->op, AJ_OP_WRITES))
		attr.attr_set |= MOUNT_ATTR_RDONLY;
	if (sys_mount_setattr(e->fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr))
		diep("restrict", e->path, errno, NULL);
}

static void open_sources(void)
{
	/* Our mounts must not propagate to the host, nor its to us.  This
	 * comes first: a clone of a shared mount would join its peer group. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		die("make the mounts private", errno, nscause_mount_hint(errno, false));
	for (unsigned i = 0; i < plan_n; i++)
		if (plan[i].path && aj_op_binds(plan[i].m->op))
			open_source(&plan[i]);
}

static void pivot(void)
{
	if (mount("aijail", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755"))
		die("mount the new root", errno, NULL);
	if (mkdir("/tmp/oldroot", 0700))
		die("create /oldroot", errno, NULL);
	if (sys_pivot_root("/tmp", "/tmp/oldroot"))
		die("pivot_root", errno,
		    errno == EINVAL ? "is \"/\" a mount point here (not a chroot)?" : NULL);
	if (chdir("/"))
		die("enter the new root", errno, NULL);
}

/* Is entry i below a mount the plan makes before it that is a tree of its
 * own (AJ_OP_TREE: a bind, /dev, /proc; not a tmpfs of ours, where what is
 * made is made in no host's tree)?  Names are right
 * here, unlike on the host: these are the new root's mount points, which
 * the plan itself lays out; the sources' identities are checked when they
 * are opened (resolve.c). */
static bool plan_under_mount(unsigned i)
{
	const char *p = plan[i].path;

	for (unsigned k = 0; k < i; k++) {
		const char *q = plan[k].path;
		size_t n;

		if (!q || plan[k].missing || !aj_op_is(plan[k].m->op, AJ_OP_TREE))
			continue;
		n = strlen(q);
		if (!strncmp(p, q, n) && p[n] == '/')
			return true;
	}
	return false;
}

bool plan_scratch_dir(unsigned i)
{
	return aj_op_is(plan[i].m->op, AJ_OP_ROOT_DIR) && plan_dirs && !plan_under_mount(i);
}

/* Is entry i below a bind the plan makes before it (a host tree, where
 * nothing is created)? */
static bool plan_under_bind(unsigned i)
{
	for (unsigned k = 0; k < i; k++)
		if (plan[k].path && !plan[k].missing && plan[k].fd >= 0 &&
		    resolve_within(plan[i].path, plan[k].path))
			return true;
	return false;
}

static void mount_tmpfs(const char *path, unsigned mode)
{
	char opt[16] = "mode=0";

	for (int i = 0; i < 4; i++)
		opt[6 + i] = (char)('0' + ((mode >> (3 * (3 - i))) & 7));
	fs_mkdir_p(path);
	if (mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, opt))
		diep("mount a tmpfs on", path, errno, NULL);
}

/* path in the new root, as an O_PATH descriptor: beneath the deepest bind
 * of plan[0..before) that holds it (a host tree that a jailed process may
 * be changing right now: the project, a writable cache), else from the
 * root, which is ours; no symlink is followed either way.  -1 when it is
 * not there. */
int plan_open_inside(const char *path, unsigned before)
{
	const struct plan_entry *in = NULL;
	const char *rel = path;
	int dfd = AT_FDCWD;

	for (unsigned k = 0; k < before; k++) {
		const struct plan_entry *o = &plan[k];

		if (o->path && !o->missing && o->fd >= 0 && resolve_within(path, o->path) &&
		    (!in || strlen(o->path) >= strlen(in->path)))
			in = o;
	}
	if (in) {
		dfd = in->fd;
		rel = path[strlen(in->path)] ? path + strlen(in->path) + 1 : ".";
		if (!strcmp(in->path, "/"))
			rel = path + 1;
	}
	return openat2_(dfd, rel, O_PATH | O_NOFOLLOW,
	                (in ? RESOLVE_BENEATH : 0) | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
}

/* The clone's fd stays open until privs_fds_close(): Landlock's rule goes on it
 * (plan_landlock), and mount points, covers and the fence below it are
 * opened beneath it. */
static void attach(unsigned i)
{
	struct plan_entry *e = &plan[i];
	int dfd;

	dfd = plan_open_inside(e->path, i);
	if (dfd < 0 && errno == ENOENT && !plan_under_bind(i)) {
		if (e->isdir)
			fs_mkdir_p(e->path);
		else
			fs_mkfile_p(e->path);
		dfd = plan_open_inside(e->path, i);
	}
	if (dfd < 0)
		diep("bind", e->path, errno,
		     errno == ELOOP ? "a symlink is where the mount point should be" : NULL);
	if (sys_move_mount(e->fd, "", dfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH))
		diep("bind", e->path, errno, NULL);
	close(dfd);
}

static void build(void)
{
	for (unsigned i = 0; i < plan_n; i++) {
		struct plan_entry *e = &plan[i];
		const struct aj_mount *m = e->m;

		if (!e->path || e->missing)
			continue;
		/* What the op makes (aj_table.h); every kind has its case, so
		 * that a new one does not compile until it is built here. */
		switch ((enum aj_mount_make)aj_op(m->op)->make) {
		case AJ_MAKE_BIND:
			attach(i);
			break;
		case AJ_MAKE_TMPFS:
			if (plan_scratch_dir(i)) {
				fs_mkdir_p(e->path);
				if (chmod(e->path, m->mode))
					diep("create", e->path, errno, NULL);
				break;
			}
			mount_tmpfs(e->path, m->mode);
			break;
		case AJ_MAKE_LINK:
			fs_link(e->path, m->target);
			break;
		case AJ_MAKE_DEV:
			dev_build(e->path, plan_scratch_dir(i));
			break;
		case AJ_MAKE_PROC:
			fs_mkdir_p(e->path);
			if (mount("proc", e->path, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
				diep("mount a procfs on", e->path, errno,
				     nscause_mount_hint(errno,
				                        true)); /* a covered /proc: fallback.c */
			break;
		case AJ_MAKE_NODES:
			if (!dev_match("/oldroot", e->path, true) &&
			    !(m->flags & AJ_MOUNT_OPTIONAL) && !strpbrk(e->path, "*?["))
				diep("bind", e->path, ENOENT, bind_hint);
			break;
		case AJ_MAKE_NONE:
			die("read the mount table", 0,
			    "unknown operation: the policy was compiled for another stub");
		}
	}
}

/* The covers' stage (mask.c), before the plan's mounts: the root tmpfs's
 * own directory that a top-level directory bind will be mounted on (/usr,
 * say), held open, where no path leads once the bind is there.  The
 * covers' nodes then stay linked, so that a covered file shows one link
 * and a directory two, as an unlinked stage would not; and nothing needs
 * removing at the end (a detached clone of the root to move the stage
 * there afterwards would cost an RCU grace period when closed, about
 * 100 us). */
static void stage_open(struct plan_made *made)
{
	for (unsigned i = 0; i < plan_n; i++) {
		const struct plan_entry *e = &plan[i];

		if (!e->path || e->missing || e->fd < 0 || !e->isdir || !aj_op_binds(e->m->op) ||
		    e->path[0] != '/' || !e->path[1] || strchr(e->path + 1, '/'))
			continue;
		fs_mkdir_p(e->path);
		made->stage_fd = open(e->path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (made->stage_fd < 0)
			diep("open", e->path, errno, NULL);
		made->stage_under = e->path;
		return;
	}
}

/* pid 1's mounts that need no scan, in one call (build.c): the parent
 * walks the project meanwhile. */
void plan_make(struct plan_made *made)
{
	*made = (struct plan_made){.stage_fd = -1, .root_ro = !plan_dirs};
	open_sources();
	TRACE_MARK("open-sources");
	pivot();
	TRACE_MARK("root-tmpfs");
	stage_open(made);
	TRACE_MARK("mask-stage");
	build();
}

/* Each mount the plan made gets the rights the compiler gave it beneath
 * it, but skip, whose rule the fence replaces (fence.c).  A bind's rule
 * goes on the clone's fd, still open: the mount's root, the very inode a
 * path lookup would find, without the lookup.  Fresh mounts (tmpfs, /dev,
 * /proc) are directories of ours, opened by path. */
void plan_landlock(int ruleset, const struct plan_entry *skip)
{
	for (unsigned i = 0; i < plan_n; i++) {
		const struct plan_entry *e = &plan[i];
		bool bind = aj_op_binds(e->m->op);
		int fd = e->fd;

		if (e == skip || !e->path || e->missing || (!e->m->landlock && !bind))
			continue;
		if (!bind) {
			/* The fd stays open until privs_fds_close(). */
			fd = openat(AT_FDCWD, e->path, O_PATH | O_CLOEXEC | O_DIRECTORY);
			if (fd < 0)
				diep("open the Landlock path", e->path, errno, NULL);
		}
		landlock_rule(ruleset, fd,
		              e->m->landlock | (bind && !e->isdir ? landlock_socket_right(fd) : 0),
		              bind ? e->isdir : 1, e->path);
	}
}

/* Once the plan is resolved, in the caller: the early refusal.  Each
 * source is resolved as pid 1 will resolve it (resolve.c); one that is
 * not there yet cannot hold the log, which exists. */
void plan_log_check(void)
{
	for (unsigned i = 0; reflog_named() && i < plan_n; i++) {
		const char *why;
		int fd;

		if (!plan[i].path || !aj_op_is(plan[i].m->op, AJ_OP_WRITES))
			continue;
		fd = resolve_source_open(plan[i].m, plan[i].path, &why);
		if (fd < 0)
			continue;
		reflog_guard(fd, plan[i].path);
		close(fd);
	}
}
