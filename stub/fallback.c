/* fallback.c: the jail that a policy declaring 'fallback landlock;'
 * gets where the namespaces cannot be had (nscause.c says why).
 *
 * Then the fallback: no namespace at all.  The caller's process stays the
 * supervisor outside; a child, confined like pid 1 would be, supervises
 * the target.  Landlock does the filesystem: the read-only mounts become
 * read-only rules on the host's own paths, the writable ones writable
 * rules, the tmpfs mounts ($HOME, /tmp, /var/tmp, /run) are not granted at
 * all and a private directory made for the run takes their place ($HOME
 * and $TMPDIR point into it); a masked entry is denied instead (nothing
 * can show an empty file in its place), and a denied one is left out of
 * every rule by granting its siblings (the fence of mask.c).  The seccomp
 * filter, the environment, rlimits and bounds, no_new_privs, the closed
 * fds and the new session are the full jail's.  What cannot be had
 * without namespaces, --jail-explain lists as not in force. */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "sys.h"

/* ---- the fallback -------------------------------------------------------- */

/* --jail-explain's "name:" column (explain.c). */
static char private_dir[64]; /* made for this run: $HOME and $TMPDIR go into it */
static char private_home[80];
static char private_tmp[80];
static bool private_made;
static char tmpdir_env[96];
static const char *home_why; /* why $HOME is not the caller's own here */

/* Removed once the target is gone: beneath descriptors, never following
 * a symlink the jail put there; a directory it made unreadable is made
 * ours again first.  Nothing here may fail the run: the target's status
 * is already decided, so what cannot be removed stays. */
static void remove_tree(int dfd, const char *name, unsigned depth)
{
	static _Alignas(8) char buf[32][1024];
	char self[32];
	long n;
	int pfd, fd;

	if (!unlinkat(dfd, name, 0) || errno != EISDIR || depth >= 32)
		return;
	pfd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return;
	fd_path(self, pfd);
	(void)chmod(self, 0700); /* the directory itself: pfd is no symlink */
	fd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(pfd);
	if (fd < 0)
		return;
	while ((n = syscall(SYS_getdents64, fd, buf[depth], sizeof(buf[depth]))) > 0)
		for (long off = 0; off < n;) {
			struct aj_dirent *d = (struct aj_dirent *)(buf[depth] + off);
			const char *e = d->d_name;

			off += d->d_reclen;
			if (!(e[0] == '.' && (!e[1] || (e[1] == '.' && !e[2]))))
				remove_tree(fd, e, depth + 1);
		}
	close(fd);
	unlinkat(dfd, name, AT_REMOVEDIR);
}

void private_release(void)
{
	if (!private_made)
		return;
	private_made = false;
	remove_tree(AT_FDCWD, private_dir, 0);
}

/* /tmp/aijail.PID.N, mode 0700, made by mkdir, which never follows a link
 * that someone put in its place; make false: only the name (explain). */
static void private_make(bool make)
{
	if (private_dir[0])
		return;
	for (unsigned k = 0;; k++) {
		size_t n = str_put(private_dir, 0, "/tmp/aijail.");

		n += fmt_u(private_dir + n, (unsigned long long)getpid());
		private_dir[n++] = '.';
		fmt_u(private_dir + n, k);
		if (!make || !mkdir(private_dir, 0700))
			break;
		if (errno != EEXIST || k > 100)
			diep("create", private_dir, errno,
			     "a private $HOME, and the fallback's $TMPDIR, need a writable /tmp "
			     "(in Kubernetes, an emptyDir there)");
	}
	str_put(private_home, str_put(private_home, 0, private_dir), "/home");
	str_put(private_tmp, str_put(private_tmp, 0, private_dir), "/tmp");
	if (!make)
		return;
	private_made = true;
	aj_die_cleanup = private_release;
	if (mkdir(private_home, 0700) || mkdir(private_tmp, 0700))
		diep("create", private_home, errno, NULL);
}

/* $HOME is "/", unset or not a directory: the jail gets a private home
 * (empty, removed afterwards) instead of a refusal. */
const char *home_private(bool make)
{
	const char *home = var_value(AJ_VAR_HOME);
	struct stat st;

	if (home && !stat(home, &st) && S_ISDIR(st.st_mode))
		return NULL;
	home_why = home ? "it is not a directory here" : var_why(AJ_VAR_HOME);
	private_make(make);
	vars_set(AJ_VAR_HOME, private_home);
	return home_why;
}

/* Landlock does not restrict connect(2) to a named Unix socket, and no
 * mount hides one here: the Docker socket, root on the host, stays
 * reachable however the policy has the docker toggle.  Off, the fallback
 * refuses to start where it is. */
static const char *docker_reachable(const struct aj_variant *v)
{
	if (v->features & AJ_FEATURE_DOCKER)
		return NULL;
	return var_value(AJ_VAR_DOCKER_SOCKET);
}

static const char docker_hint[] =
    "the fallback cannot hide a Unix socket (Landlock does not restrict connecting to one), "
    "and a Docker socket is root on its host; remove it from the container, or give the "
    "container the options that allow namespaces";

/* The fallback is chosen: $HOME and $TMPDIR are the private directory's. */
void fallback_prepare(const struct aj_variant *v, bool make)
{
	const char *sock = docker_reachable(v);

	if (make && sock)
		diep("run without namespaces beside", sock, 0, docker_hint);
	fallback_active = true;
	private_make(make);
	vars_set(AJ_VAR_HOME, private_home);
}

/* TMPDIR into the private directory, after the environment is built. */
void fallback_env(char **envp, size_t max)
{
	size_t n = 0, i;

	str_put(tmpdir_env, str_put(tmpdir_env, 0, "TMPDIR="), private_tmp);
	for (i = 0; envp[i]; i++)
		if (!strncmp(envp[i], "TMPDIR=", 7)) {
			envp[i] = tmpdir_env;
			return;
		}
	n = i;
	if (n + 1 >= max)
		die("build the environment", E2BIG, "the host passes too many variables");
	envp[n] = tmpdir_env;
	envp[n + 1] = NULL;
}

/* Landlock without a mount namespace: rules on the host's own paths. */
static int fb_fd(const char *path, bool dir)
{
	return openat(AT_FDCWD, path, O_PATH | O_CLOEXEC | (dir ? O_DIRECTORY : 0));
}

/* The devices minimal /dev would hold, as the host has them. */
static void dev_rules(int ruleset, uint64_t access)
{
	static const char *const more[] = {"/dev/pts", "/dev/shm", "/dev/ptmx"};
	char path[32];

	access &= ~(AJ_LL_MAKE_CHAR | AJ_LL_MAKE_BLOCK | AJ_LL_EXECUTE);
	for (unsigned i = 0; dev_nodes[i]; i++) {
		int fd;

		str_put(path, str_put(path, 0, "/dev/"), dev_nodes[i]);
		fd = fb_fd(path, false);
		if (fd >= 0)
			landlock_rule(ruleset, fd, access, false, path);
	}
	for (unsigned i = 0; i < sizeof(more) / sizeof(more[0]); i++) {
		struct stat st;
		int fd = fb_fd(more[i], false);

		if (fd >= 0 && !fstat(fd, &st))
			landlock_rule(ruleset, fd, access, S_ISDIR(st.st_mode), more[i]);
	}
}

/* The child, before its seccomp filter: every rule, then the domain. */
static bool fence_needed(void)
{
	for (unsigned i = 0; i < scan->n; i++)
		if (scan->hits[i].kind != AJ_PATTERN_PRUNE)
			return true;
	return false;
}

static void fallback_landlock(const struct run *r)
{
	const struct aj_variant *v = r->v;
	struct plan_entry *project = NULL;
	int ruleset, fd;

	/* With the variant's own rules ("/"); every rule's rights are
	 * narrowed in landlock_rule(). */
	ruleset = landlock_create(v);
	if (ruleset < 0)
		die("enforce Landlock", 0,
		    "the fallback confines the filesystem with Landlock alone, and the kernel has "
		    "none (CONFIG_SECURITY_LANDLOCK, and \"landlock\" in the lsm= boot parameter)");
	for (unsigned i = 0; i < plan_n; i++) {
		struct plan_entry *e = &plan[i];
		const struct aj_mount *m = e->m;
		struct stat st;

		if (!e->path || e->missing)
			continue;
		switch (m->op) {
		case AJ_MOUNT_RO:
		case AJ_MOUNT_RW:
			if ((m->flags & AJ_MOUNT_WITH_DEVICES) && !plan_has_devices())
				continue;
			fd = plan_source_open(m, e->path, &e->why);
			if (fd < 0) {
				if ((m->flags & AJ_MOUNT_OPTIONAL) &&
				    (e->why || errno == ENOENT || errno == ENOTDIR))
					continue;
				diep("open", e->path, e->why ? 0 : errno,
				     e->why ? e->why : "the policy needs it");
			}
			if (fstat(fd, &st))
				diep("inspect", e->path, errno, NULL);
			if (m->op == AJ_MOUNT_RW)
				refusals_log_guard(fd, e->path);
			e->fd = fd;
			e->isdir = S_ISDIR(st.st_mode);
			if (!strcmp(e->path, r->project) && e->isdir) {
				project = e;
				continue;
			}
			landlock_rule(ruleset, fd, m->landlock, e->isdir, e->path);
			break;
		case AJ_MOUNT_DEV:
			dev_rules(ruleset, m->landlock);
			break;
		case AJ_MOUNT_PROC:
			/* The container's /proc, read-only: Landlock keeps
			 * other domains' memory and environment out of reach
			 * (its ptrace rule), not their command lines. */
			fd = fb_fd(e->path, true);
			if (fd >= 0)
				landlock_rule(ruleset, fd, AJ_LL_READ_FILE | AJ_LL_READ_DIR, true,
				              e->path);
			break;
		default:
			break; /* links, tmpfs and device nodes: nothing of the host's */
		}
	}
	fd = fb_fd(private_dir, true);
	if (fd < 0)
		diep("open", private_dir, errno, NULL);
	landlock_rule(ruleset, fd, AJ_LL_RIGHTS_ALL, true, private_dir);
	if (project && fence_needed()) {
		/* No empty file can stand for a masked one: it is denied, and
		 * every denied entry is left out of the rules (the fence). */
		for (unsigned i = 0; i < scan->n; i++)
			if (scan->hits[i].kind == AJ_PATTERN_MASK)
				scan->hits[i].kind = AJ_PATTERN_DENY;
		(void)fence_project(ruleset, project);
	} else if (project) {
		landlock_rule(ruleset, project->fd, project->m->landlock, true, project->path);
	}
	landlock_enforce(ruleset);
}

/* Without a network namespace, no socket but a Unix one where the policy
 * has no network (none, loopback): what 'network blocked' compiles in,
 * for every other variant.  One program, installed beside the policy's:
 * the kernel applies the strictest verdict, and the policy's filter
 * already kills every foreign architecture, so the number is the native
 * one.  socket(2) reads its family as an int: the low 32 bits. */
static const struct sock_filter unix_only[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 3),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 1, 0),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EAFNOSUPPORT),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};

static void sockets_unix_only(const struct aj_variant *v)
{
	struct sock_fprog prog = {sizeof(unix_only) / sizeof(unix_only[0]),
	                          (struct sock_filter *)(uintptr_t)unix_only};

	if (v->network == AJ_NET_HOST || v->network == AJ_NET_BLOCKED)
		return;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		die("install the seccomp filter", errno, NULL);
}

/* As privs_drop(), for a process that may hold no capability at all: the
 * bounding set is dropped where we may (a root caller must: its execve
 * would take them back), and no_new_privs keeps the rest out of reach. */
static void fallback_privs(void)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die("set no_new_privs", errno, NULL);
	for (unsigned cap = 0;; cap++) {
		int in = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);

		if (in < 0)
			break; /* past the kernel's last capability */
		if (in && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && (errno != EPERM || !geteuid()))
			die("drop capabilities", errno,
			    "root needs CAP_SETPCAP to drop the capability bounding set");
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL)
		die("clear ambient capabilities", errno, NULL);
	caps_clear(-1);
}

noreturn void fallback_run(struct run *r)
{
	pid_t pid;
	int fd;

	signals_block();
	/* The launcher is empty (ns_enter says why); here the child and
	 * the target are of the same user in the same pid namespace. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		die("make the supervisor undumpable", errno, NULL);
	pid = ns_clone(SIGCHLD, &fd);
	if (pid) {
		aj_die_reap = pid;
		limits_place(pid);
		scan_project(".", r->v);
		ns_scan_send(fd);
		notify_start(r->v, fd);
		supervise_parent(pid);
	}
	ns_scan_receive();
	/* Orphans of the target come to the supervisor, not the host's
	 * init, and die with the target's process group at the end. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		die("become the jail's reaper", errno, NULL);
	rlimits_apply(r->v);
	limits_apply();
	/* Without CAP_SYS_ADMIN, Landlock wants it first. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die("set no_new_privs", errno, NULL);
	fallback_landlock(r);
	if (chdir(r->project))
		diep("enter the project", r->project, errno, NULL);
	fds_close(ns_parent_sock(r->v));
	fallback_privs();
	/* First: a policy's allowlist need not allow seccomp(2) itself. */
	sockets_unix_only(r->v);
	seccomp_install(r->v);
	supervise_init(r);
}

/* --jail-explain: the cause, what is used instead, what is not in force.
 * Returns the exit status explain ends with. */
int fallback_explain(const struct run *r, const char *cause)
{
	static const char *const missing[] = {
	    "a private root: the host's paths are reached through Landlock rules instead "
	    "(read-only mounts as read-only rules, writable ones as writable rules, the "
	    "rest of the host not at all)",
	    "masks: a masked entry cannot be shown empty, it is denied instead (EACCES); "
	    "denied entries are left out of every rule by granting their siblings, so a new "
	    "file in a directory on the way to one cannot be read back, and a denied file "
	    "can still be overwritten or removed (not read)",
	    "a private, empty $HOME and /tmp: writes are confined to the project and the "
	    "private directory above",
	    "a pid namespace: the jail sees the container's processes (Landlock keeps their "
	    "memory and environment out of reach), and a process that leaves the command's "
	    "session outlives it",
	    "a network namespace: where the policy has no network, TCP is refused by "
	    "Landlock (ABI 4) and every socket family but AF_UNIX by seccomp; the "
	    "container's network tables in /proc/net stay readable",
	    "the IPC and UTS namespaces: System V IPC and the host name are the container's",
	    "a per-jail process bound without a cgroup: RLIMIT_NPROC then counts every process "
	    "of the user in the container's user namespace (the host's, under Docker's "
	    "defaults), not only the jail's",
	    "hiding Unix sockets: Landlock does not restrict connecting to a named one, so a "
	    "socket of the container (or a denied one in the project) can be connected to; "
	    "the Docker socket makes the fallback refuse to start",
	    "a fresh /proc and a minimal /dev: the container's, with rules on the nodes "
	    "minimal /dev holds",
	    "the mode's record for a jail inside this one: a nested jail's own layers add "
	    "to these, its mode floor is not checked",
	};
	bool declared = (r->v->flags & AJ_VARIANT_FALLBACK) && !mode_outer();
	const char *refused = declared && cause && docker_reachable(r->v) ? docker_hint : NULL;
	bool no_landlock = r->v->landlock == AJ_LANDLOCK_OFF || !landlock_abi();
	int status = !cause ? 0 : !declared || refused || no_landlock ? AJ_EXIT_SETUP : 2;

	rp_open("home", '{');
	rp_bool("private", home_why != NULL);
	if (home_why) {
		rp_field("home");
		rp_t("$HOME: ");
		rp_str("why", home_why);
		rp_t(": the jail gets a private one, ");
		rp_str("path", private_home);
		rp_t(", made for the run and removed after it\n");
	} else {
		rp_jstr("why", NULL);
		rp_jstr("path", NULL);
	}
	rp_close();
	rp_open("fallback", '{');
	rp_bool("declared", declared);
	rp_bool("runs", status == 2);
	if (!cause) {
		rp_jstr("why", NULL);
		rp_jstr("private_dir", NULL);
		rp_open("not_in_force", '[');
		rp_close();
		rp_close();
		return 0;
	}
	rp_field("fallback");
	if (!declared) {
		rp_str("why", "none declared: the jail would not start (exit 125); 'fallback "
		              "landlock;' in the policy would run it with Landlock alone");
		rp_t("\n");
	} else if (refused) {
		rp_t("landlock, declared by the policy, but REFUSED here: ");
		rp_t(var_value(AJ_VAR_DOCKER_SOCKET));
		rp_t(": ");
		rp_str("why", refused);
		rp_t(" (exit 125)\n");
	} else {
		rp_t("landlock, declared by the policy: the command runs without namespaces, with "
		     "Landlock, seccomp, the environment, rlimits and bounds, no_new_privs, closed "
		     "fds and a new session\n");
		rp_jstr("why", no_landlock
		                   ? "the kernel has no Landlock, or the policy turns it off"
		                   : NULL);
		if (no_landlock)
			rp_t("  the kernel has no Landlock, or the policy turns it off: the jail "
			     "would "
			     "not start (exit 125)\n");
		else if (landlock_abi() < 4 && r->v->network != AJ_NET_HOST)
			rp_t("  WARNING: Landlock ABI below 4 here: TCP is NOT refused\n");
		rp_t("  private directory ");
		rp_str("private_dir", private_dir);
		rp_t(" ($HOME ");
		rp_t(private_home);
		rp_t(", $TMPDIR ");
		rp_t(private_tmp);
		rp_t("), made for the run and removed after it\n");
		rp_t("not in force:\n");
	}
	if (!declared || refused)
		rp_jstr("private_dir", NULL);
	rp_open("not_in_force", '[');
	for (unsigned i = 0; status == 2 && i < sizeof(missing) / sizeof(missing[0]); i++) {
		rp_t("  ");
		rp_str(NULL, missing[i]);
		rp_t("\n");
	}
	rp_close();
	rp_close();
	return status;
}
