/* landlock.c: the kernel's Landlock, at the highest ABI it has: the
 * ruleset, the variant's own rules (those that are not a mount's: "/"),
 * the one helper every rule goes through, and enforcement.  The rules
 * mirror the mounts: each mount the plan made carries the rights granted
 * beneath it (plan.c adds them), the fence replaces the project's
 * where it can (fence.c).
 *
 * Compatibility is one table, as in the kernel's own Landlock sample: the
 * rights each ABI handles.  Every right the kernel knows is handled, so
 * whatever a rule does not grant is denied; the rules' masks (written for
 * the newest ABI) are cut down to what the kernel handles, in
 * landlock_rule().  ABI 8 adds no right; ABI 9 adds resolve_unix
 * (sockets.c).  Debian 12's <linux/landlock.h> stops at ABI 2,
 * so the UAPI structs and constants are ours. */
#include <errno.h>
#include <sys/stat.h>

#include "confine/confine.h"

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net; /* ABI 4 */
	uint64_t scoped;             /* ABI 6 */
};

struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

/* struct landlock_net_port_attr (ABI 4). */
struct ll_net_port_attr {
	uint64_t allowed_access;
	uint64_t port;
} __attribute__((packed));

#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH      1
#define LL_RULE_NET_PORT          2
#define LL_SCOPE_ABSTRACT_UNIX    (1ULL << 0)
#define LL_SCOPE_SIGNAL           (1ULL << 1)

#define LL_ABI_KNOWN AJ_LL_ABI_KNOWN

/* ABI 9: connecting (or sending) to a named Unix socket resolves its path
 * only where a rule grants this beneath it; sockets made inside the same
 * Landlock domain stay reachable.  Not in the compiler's 16-bit masks:
 * the stub grants it on the sockets a file bind names (toggles, policy). */
#define LL_RESOLVE_UNIX (1ULL << 16)

/* What each ABI handles; the size of the ruleset attribute it reads. */
static const struct {
	uint64_t fs;
	uint64_t scoped;
	uint8_t net;
	uint8_t attr_size;
} ll_abi[LL_ABI_KNOWN + 1] = {
    [1] = {AJ_LL_MAKE_SYM * 2 - 1, 0, 0, 8},               /* execute .. make_sym */
    [2] = {AJ_LL_REFER * 2 - 1, 0, 0, 8},                  /* + refer */
    [3] = {AJ_LL_TRUNCATE * 2 - 1, 0, 0, 8},               /* + truncate */
    [4] = {AJ_LL_TRUNCATE * 2 - 1, 0, AJ_LL_NET_TCP, 16},  /* + TCP */
    [5] = {AJ_LL_IOCTL_DEV * 2 - 1, 0, AJ_LL_NET_TCP, 16}, /* + ioctl on devices */
    [6] = {AJ_LL_IOCTL_DEV * 2 - 1, LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL, AJ_LL_NET_TCP, 24},
    [7] = {AJ_LL_IOCTL_DEV * 2 - 1, LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL, AJ_LL_NET_TCP, 24},
    [8] = {AJ_LL_IOCTL_DEV * 2 - 1, LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL, AJ_LL_NET_TCP, 24},
    [9] = {LL_RESOLVE_UNIX * 2 - 1, LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL, AJ_LL_NET_TCP, 24},
};

/* What the ruleset handles, once it is made: every rule is cut down to it. */
static uint64_t handled_fs, handled_net;

/* The network rights each level handles with no rule (aj_table.h). */
static const uint8_t net_handled[AJ_NET_COUNT] = AJ_LL_NET_HANDLED;

/* Rights that mean something on a file; the kernel refuses a rule on a
 * non-directory that grants any other. */
#define LL_FILE_RIGHTS                                                                             \
	(AJ_LL_EXECUTE | AJ_LL_WRITE_FILE | AJ_LL_READ_FILE | AJ_LL_TRUNCATE | AJ_LL_IOCTL_DEV |   \
	 LL_RESOLVE_UNIX)

int landlock_abi(void)
{
	static int abi = -1;

	if (abi < 0) {
		long a = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);

		abi = a < 0 ? 0 : (int)a; /* ENOSYS, or EOPNOTSUPP when booted without it */
	}
	return abi;
}

/* The filesystem rights a ruleset handles on a kernel of this ABI.  With
 * the host's network the jail reaches the host's services anyway, and a
 * socket of the project is the user's to use: resolve_unix is handled
 * only without it, as the covers of sockets.c are made only then. */
uint64_t landlock_fs_handled(int abi, unsigned network)
{
	uint64_t fs;

	if (abi <= 0)
		return 0;
	fs = ll_abi[abi > LL_ABI_KNOWN ? LL_ABI_KNOWN : abi].fs;
	return network == AJ_NET_HOST ? fs & ~LL_RESOLVE_UNIX : fs;
}

/* What a bind's rule grants beyond the compiler's rights: resolving the
 * socket it is, where it is one (a toggle's, or one the policy names). */
uint64_t landlock_bind_extra(uint64_t handled, unsigned mode)
{
	return S_ISSOCK(mode) ? handled & LL_RESOLVE_UNIX : 0;
}

uint64_t landlock_socket_right(int fd)
{
	struct stat st;

	if (!(handled_fs & LL_RESOLVE_UNIX) || fstat(fd, &st))
		return 0;
	return landlock_bind_extra(handled_fs, st.st_mode);
}

/* 'network blocked' stays in the host's network namespace only where
 * Landlock will scope the host's abstract Unix sockets away (ABI 6);
 * elsewhere it gets a private namespace, as 'none' (aj_table.h). */
bool landlock_net_blocked(const struct aj_variant *v)
{
	return v->network == AJ_NET_BLOCKED && v->landlock != AJ_LANDLOCK_OFF &&
	       landlock_abi() >= 6;
}

/* The one test of whether a run gets a network namespace of its own
 * (proc/ns.c makes it, explain/ says so): every level but 'host' and a
 * 'blocked' that Landlock scopes. */
bool landlock_net_private(const struct aj_variant *v)
{
	return v->network != AJ_NET_HOST && !landlock_net_blocked(v);
}

/* The one place a rule's rights are narrowed: to what the ruleset handles
 * (the compiler wrote them for the newest ABI) and, on a file (isdir 0),
 * to the rights that mean something on a file, since the kernel refuses a
 * rule on a non-directory that grants any other.  isdir < 0: not known;
 * rules are nearly always on directories, so the directory's rights are
 * tried first and a file's EINVAL answered with a second try, which costs
 * less than asking (fstat) every time.  The fd is the caller's. */
void landlock_rule(int ruleset, int fd, uint64_t access, int isdir, const char *path)
{
	struct ll_path_beneath_attr pb = {.allowed_access = access & handled_fs, .parent_fd = fd};

	if (!isdir)
		pb.allowed_access &= LL_FILE_RIGHTS;
	if (!pb.allowed_access ||
	    !syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &pb, 0))
		return;
	pb.allowed_access &= LL_FILE_RIGHTS;
	if (isdir >= 0 || errno != EINVAL || !pb.allowed_access ||
	    syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &pb, 0))
		diep("add the Landlock rule for", path, errno, NULL);
}

/* A rule that is not a mount's ("/"). */
static void add_rule(int ruleset, const struct aj_landlock_rule *r)
{
	char path[AJ_PATH_MAX];
	int fd, l = vars_path_join(&r->path, path, sizeof(path));

	if (l == AJ_PATH_UNRESOLVED)
		diep("resolve the variable", vars_name(r->path.var), 0, vars_why(r->path.var));
	if (l < 0)
		die("resolve a Landlock path", ENAMETOOLONG, NULL);
	/* The fd stays open until privs_fds_close(): one syscall less per rule. */
	fd = openat(AT_FDCWD, path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		diep("open the Landlock path", path, errno, NULL);
	landlock_rule(ruleset, fd, r->access, -1, path);
}

int landlock_create(const struct aj_variant *v)
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
	attr.handled_access_fs = handled_fs = landlock_fs_handled(abi, v->network);
	attr.scoped = ll_abi[abi].scoped;
	attr.handled_access_net = handled_net =
	    net_handled[v->network % AJ_NET_COUNT] & ll_abi[abi].net;
	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, (size_t)ll_abi[abi].attr_size, 0);
	if (fd < 0)
		die("create the Landlock ruleset", errno, NULL);
	for (unsigned i = 0; i < v->n_landlock_rules; i++)
		add_rule(fd, &v->landlock_rules[i]);
	return fd;
}

/* A TCP port the jail may connect to where the ruleset handles TCP (a
 * forwarded host port: egress/forward.c), or bind (a published port of
 * the jail's); nothing to add where it does not, since then every port
 * is open. */
void landlock_port(int ruleset, unsigned port, bool bind)
{
	struct ll_net_port_attr np = {
	    .allowed_access = bind ? AJ_LL_NET_BIND_TCP : AJ_LL_NET_CONNECT_TCP, .port = port};

	if ((handled_net & np.allowed_access) &&
	    syscall(SYS_landlock_add_rule, ruleset, LL_RULE_NET_PORT, &np, 0))
		die("let the jail connect to a forwarded port", errno, NULL);
}

void landlock_enforce(int ruleset)
{
	if (syscall(SYS_landlock_restrict_self, ruleset, 0))
		die("enforce Landlock", errno, NULL);
}

static const char *const ll_rights[] = {
    "execute",   "write_file", "read_file", "read_dir",  "remove_dir", "remove_file",
    "make_char", "make_dir",   "make_reg",  "make_sock", "make_fifo",  "make_block",
    "make_sym",  "refer",      "truncate",  "ioctl_dev",
};

static void print_rights(uint64_t a)
{
	rp_open("rights", '[');
	if (a == AJ_LL_RIGHTS_ALL)
		rp_t(" all");
	for (unsigned i = 0; i < sizeof(ll_rights) / sizeof(ll_rights[0]); i++)
		if ((a & (1ULL << i)) && (rp_json || a != AJ_LL_RIGHTS_ALL)) {
			rp_t(" ");
			rp_str(NULL, ll_rights[i]);
		}
	rp_close();
}

/* One Landlock rule; path NULL: its variable is unset, and it is skipped.
 * (The fallback's rules too: fallback/fallback.c.) */
void landlock_explain_rule(const char *path, unsigned var, bool optional, uint64_t access)
{
	rp_open(NULL, '{');
	rp_t("  ");
	if (!path) {
		rp_t("$");
		rp_t(vars_name(var));
	}
	rp_str("path", path);
	rp_jstr("var", var ? vars_name(var) : NULL);
	rp_bool("optional", optional);
	if (optional)
		rp_t("?");
	print_rights(access);
	rp_bool("skipped", !path);
	rp_t(!path ? "\t(skipped: unset)\n" : "\n");
	rp_close();
}
