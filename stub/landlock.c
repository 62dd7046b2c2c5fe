/* landlock.c: the variant's filesystem rules, at the highest Landlock ABI
 * the kernel has.  The rules mirror the mounts: each mount the plan made
 * carries the rights granted beneath it; the variant adds the few rules
 * that are not a mount's ("/").
 *
 * Compatibility is one table, as in the kernel's
 * samples/landlock/sandboxer.c: the rights each ABI handles.  Every right
 * the kernel knows is handled, so whatever a rule does not grant is
 * denied; the rules' masks (written for the newest ABI) are cut down to
 * what the kernel handles.  Debian 12's <linux/landlock.h> stops at ABI 2,
 * so the UAPI structs and constants are ours. */
#include <errno.h>

#include "sys.h"

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net; /* ABI 4 */
	uint64_t scoped;             /* ABI 6 */
};

struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH      1
#define LL_SCOPE_ABSTRACT_UNIX    (1ULL << 0)
#define LL_SCOPE_SIGNAL           (1ULL << 1)

#define LL_ABI_KNOWN 7

/* What each ABI handles; the size of the ruleset attribute it reads. */
static const struct {
	uint64_t fs;
	uint64_t scoped;
	uint8_t net;
	uint8_t attr_size;
} ll_abi[LL_ABI_KNOWN + 1] = {
    [1] = {AJ_LL_MAKE_SYM * 2 - 1, 0, 0, 8},            /* execute .. make_sym */
    [2] = {AJ_LL_REFER * 2 - 1, 0, 0, 8},               /* + refer */
    [3] = {AJ_LL_TRUNCATE * 2 - 1, 0, 0, 8},            /* + truncate */
    [4] = {AJ_LL_TRUNCATE * 2 - 1, 0, AJ_LL_NET_TCP, 16},  /* + TCP */
    [5] = {AJ_LL_IOCTL_DEV * 2 - 1, 0, AJ_LL_NET_TCP, 16}, /* + ioctl on devices */
    [6] = {AJ_LL_IOCTL_DEV * 2 - 1, LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL, AJ_LL_NET_TCP, 24},
    [7] = {AJ_LL_IOCTL_DEV * 2 - 1, LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL, AJ_LL_NET_TCP, 24},
};

/* The network rights each level handles with no rule (aj_table.h). */
static const uint8_t net_handled[AJ_NET_COUNT] = AJ_LL_NET_HANDLED;

/* Rights that mean something on a file; the kernel refuses a rule on a
 * non-directory that grants any other. */
#define LL_FILE_RIGHTS                                                                             \
	(AJ_LL_EXECUTE | AJ_LL_WRITE_FILE | AJ_LL_READ_FILE | AJ_LL_TRUNCATE | AJ_LL_IOCTL_DEV)

int landlock_abi(void)
{
	static int abi = -1;

	if (abi < 0) {
		long a = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);

		abi = a < 0 ? 0 : (int)a; /* ENOSYS, or EOPNOTSUPP when booted without it */
	}
	return abi;
}

/* 'network blocked' stays in the host's network namespace only where
 * Landlock will scope the host's abstract Unix sockets away (ABI 6);
 * elsewhere it gets a private namespace, as 'none' (aj_table.h). */
bool net_blocked_here(const struct aj_variant *v)
{
	return v->network == AJ_NET_BLOCKED && v->landlock != AJ_LANDLOCK_OFF && landlock_abi() >= 6;
}

static void add_fd_rule(int ruleset, int fd, uint64_t access, const char *path)
{
	struct ll_path_beneath_attr pb = {.allowed_access = access, .parent_fd = fd};

	if (access && syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &pb, 0))
		diep("add the Landlock rule for", path, errno, NULL);
}

/* Also the fence's (mask.c): a file keeps only the rights that mean
 * something on a file. */
void landlock_rule(int ruleset, int fd, uint64_t access, bool isdir, const char *path)
{
	add_fd_rule(ruleset, fd, isdir ? access : access & LL_FILE_RIGHTS, path);
}

/* A mount the plan made: a bind's rule goes on the clone's fd, still open
 * (mount_plan.c); a file gets only the rights that mean something on a
 * file.  Fresh mounts (tmpfs, /dev, /proc) are directories. */
static void add_mount_rule(int ruleset, const struct plan_entry *e, uint64_t handled)
{
	uint64_t access = e->m->landlock & handled;
	int fd = e->fd;

	if (!e->path || e->missing || !access)
		return;
	if (e->m->op == AJ_MOUNT_RO || e->m->op == AJ_MOUNT_RW) {
		if (!e->isdir)
			access &= LL_FILE_RIGHTS;
	} else {
		fd = openat(AT_FDCWD, e->path, O_PATH | O_CLOEXEC | O_DIRECTORY);
		if (fd < 0)
			diep("open the Landlock path", e->path, errno, NULL);
	}
	add_fd_rule(ruleset, fd, access, e->path);
}

static void add_rule(int ruleset, const struct aj_landlock_rule *r, uint64_t handled)
{
	char path[AJ_PATH_MAX];
	struct ll_path_beneath_attr pb;
	int l = path_join(&r->path, path, sizeof(path));

	if (l == AJ_PATH_UNRESOLVED)
		diep("resolve the variable", var_name(r->path.var), 0, var_why(r->path.var));
	if (l < 0)
		die("resolve a Landlock path", ENAMETOOLONG, NULL);
	/* The fd stays open until fds_close(): one syscall less per rule. */
	pb.parent_fd = openat(AT_FDCWD, path, O_PATH | O_CLOEXEC);
	if (pb.parent_fd < 0)
		diep("open the Landlock path", path, errno, NULL);
	pb.allowed_access = r->access & handled;
	if (!pb.allowed_access)
		return;
	if (!syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &pb, 0))
		return;
	/* EINVAL for directory rights on a file: rules are nearly always on
	 * directories, so asking first (fstat) would cost more than this. */
	pb.allowed_access &= LL_FILE_RIGHTS;
	if (errno != EINVAL || !pb.allowed_access ||
	    syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &pb, 0))
		diep("add the Landlock rule for", path, errno, NULL);
}

/* The variant's ruleset, every right this kernel knows handled; -1 when
 * Landlock is off, or absent and only asked for at best effort.  Also the
 * fallback's (fallback.c), which adds rules of its own. */
int landlock_ruleset(const struct aj_variant *v, uint64_t *handled)
{
	struct ll_ruleset_attr attr = {0};
	int abi, fd;

	if (v->landlock == AJ_LANDLOCK_OFF)
		return -1;
	abi = landlock_abi();
	if (v->landlock == AJ_LANDLOCK_REQUIRE && (abi == 0 || abi < v->landlock_min_abi))
		die("enforce Landlock", 0,
		    abi ? "the kernel's Landlock ABI is older than the policy requires; "
		          "use a newer kernel or lower the policy's requirement"
		        : "the kernel has no Landlock (CONFIG_SECURITY_LANDLOCK, and \"landlock\" "
		          "in the lsm= boot parameter)");
	if (abi == 0)
		return -1; /* best effort: --jail-explain says it is absent */
	if (abi > LL_ABI_KNOWN)
		abi = LL_ABI_KNOWN;
	attr.handled_access_fs = ll_abi[abi].fs;
	attr.scoped = ll_abi[abi].scoped;
	attr.handled_access_net = net_handled[v->network % AJ_NET_COUNT] & ll_abi[abi].net;
	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, (size_t)ll_abi[abi].attr_size, 0);
	if (fd < 0)
		die("create the Landlock ruleset", errno, NULL);
	*handled = attr.handled_access_fs;
	return fd;
}

void landlock_enforce(int ruleset)
{
	if (syscall(SYS_landlock_restrict_self, ruleset, 0))
		die("enforce Landlock", errno, NULL);
}

void landlock_apply(const struct aj_variant *v)
{
	const struct plan_entry *fenced;
	const char *why, *where;
	uint64_t handled = 0;
	int fd = landlock_ruleset(v, &handled);

	if (fd < 0)
		return;
	for (unsigned i = 0; i < v->n_landlock_rules; i++)
		add_rule(fd, &v->landlock_rules[i], handled);
	fenced = fence_plan(v, &why, &where);
	for (unsigned i = 0; i < plan_n; i++)
		if (&plan[i] == fenced)
			fence_apply(fd, fenced, handled);
		else
			add_mount_rule(fd, &plan[i], handled);
	landlock_enforce(fd);
}
