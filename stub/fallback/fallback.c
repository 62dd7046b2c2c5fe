/* fallback/fallback.c: the jail that a policy declaring 'fallback landlock;'
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
 * fds and the new session are the full jail's.  What a mount would pin
 * (a secret's name) a record of the secrets' inodes keeps across runs.
 * What cannot be had without namespaces, --jail-explain lists as not in
 * force, and its rules are printed by the code that makes them. */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "fallback/fallback.h"

static const char *docker_reachable(const struct aj_variant *v)
{
	if (v->features & AJ_FEATURE_DOCKER)
		return NULL;
	return vars_value(AJ_VAR_DOCKER_SOCKET);
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
	private_make(make);
	vars_set(AJ_VAR_HOME, private_home);
}

/* TMPDIR into the private directory, after the environment is built. */
void fallback_env(char **envp, size_t max)
{
	size_t n = 0, i;

	out_str_put(private_tmpdir_env, out_str_put(private_tmpdir_env, 0, "TMPDIR="), private_tmp);
	for (i = 0; envp[i]; i++)
		if (!strncmp(envp[i], "TMPDIR=", 7)) {
			envp[i] = private_tmpdir_env;
			return;
		}
	n = i;
	if (n + 1 >= max)
		die("build the environment", E2BIG, "the host passes too many variables");
	envp[n] = private_tmpdir_env;
	envp[n + 1] = NULL;
}

/* Landlock without a mount namespace: rules on the host's own paths. */
static int fb_fd(const char *path, bool dir)
{
	return openat(AT_FDCWD, path, O_PATH | O_CLOEXEC | (dir ? O_DIRECTORY : 0));
}

#define FILE_RIGHTS                                                                                \
	(AJ_LL_EXECUTE | AJ_LL_WRITE_FILE | AJ_LL_READ_FILE | AJ_LL_TRUNCATE | AJ_LL_IOCTL_DEV)

/* A rule; ruleset < 0: --jail-explain's line for it instead, from the
 * same code, so that the list is the one in force. */
static void fb_rule(int ruleset, int fd, uint64_t access, bool isdir, const char *path)
{
	if (ruleset >= 0) {
		landlock_rule(ruleset, fd, access, isdir, path);
		return;
	}
	landlock_explain_rule(path, 0, false, isdir ? access : access & FILE_RIGHTS);
	if (fd > 2)
		close(fd);
}

/* The caller's own terminal, if one of fds 0-2 is a pty: the jail may
 * open it again by its name (/proc/self/fd/0, $(tty)). */
static int own_tty(struct stat *st)
{
	for (int fd = 0; fd < 3; fd++) {
		struct termios t;

		if (!fstat(fd, st) && S_ISCHR(st->st_mode) && !ioctl(fd, TCGETS, &t))
			return fd;
	}
	return -1;
}

/* The devices minimal /dev would hold, as the host has them.  Not the
 * container's /dev/shm nor /dev/pts: without a mount namespace neither
 * can be the jail's own, and both are shared with every other process
 * of the container (another session's terminal could be read and
 * written).  /dev/ptmx stays (a new pty's other end is reached through
 * the descriptor, TIOCGPTPEER, not by a name in /dev/pts), and so does
 * the terminal fds 0-2 hold: the jail's own pseudo-terminal, or with
 * --jail-terminal=passthrough the caller's. */
static void dev_rules(int ruleset, uint64_t access)
{
	char path[32];
	struct stat st;
	int fd;

	access &= ~(AJ_LL_MAKE_CHAR | AJ_LL_MAKE_BLOCK | AJ_LL_EXECUTE);
	for (unsigned i = 0; dev_names()[i]; i++) {
		out_str_put(path, out_str_put(path, 0, "/dev/"), dev_names()[i]);
		fd = fb_fd(path, false);
		if (fd >= 0)
			fb_rule(ruleset, fd, access, false, path);
	}
	fd = fb_fd("/dev/ptmx", false);
	if (fd >= 0 && !fstat(fd, &st) && S_ISCHR(st.st_mode))
		fb_rule(ruleset, fd, access, false, "/dev/ptmx");
	else if (fd >= 0)
		close(fd);
	if ((fd = own_tty(&st)) >= 0) {
		char tty[64];

		/* At run time fds 0-2 hold the jail's pseudo-terminal
		 * (term_child() comes first), not the caller's. */
		resolve_fd_path(tty, fd);
		fb_rule(ruleset, fd, access, false,
		        ruleset < 0 && term_pty() ? "/dev/pts/N (the jail's own pseudo-terminal)"
		                                  : tty);
	}
}

/* The child, before its seccomp filter: every rule, then the domain. */
static bool fence_needed(void)
{
	for (unsigned i = 0; i < hits_now()->n; i++)
		if (hits_now()->hits[i].kind != AJ_PATTERN_PRUNE)
			return true;
	return false;
}

/* No empty file can stand for a masked one: it is denied. */
static void masks_denied(void)
{
	for (unsigned i = 0; i < hits_now()->n; i++)
		if (hits_now()->hits[i].kind == AJ_PATTERN_MASK)
			hits_now()->hits[i].kind = AJ_PATTERN_DENY;
}

/* The project's plan entry, when it is a directory mount of its own. */
static struct plan_entry *fb_project(const char *project)
{
	unsigned pn;
	struct plan_entry *pl = plan_entries(&pn);

	for (unsigned i = 0; i < pn; i++)
		if (pl[i].path && !pl[i].missing && !strcmp(pl[i].path, project) &&
		    aj_op_binds(pl[i].m->op))
			return &pl[i];
	return NULL;
}

/* The rules, into ruleset; describe: printed for --jail-explain instead
 * (nothing is opened that could fail the explanation). */
static void fallback_rules(const struct run *r, int ruleset, bool describe)
{
	const struct aj_variant *v = r->v;
	struct plan_entry *project = NULL;
	char path[AJ_PATH_MAX];
	int fd;
	unsigned pn;
	struct plan_entry *pl = plan_entries(&pn);

	if (describe)
		for (unsigned i = 0; i < v->n_landlock_rules; i++) {
			const struct aj_landlock_rule *l = &v->landlock_rules[i];

			landlock_explain_rule(
			    vars_path_join(&l->path, path, sizeof(path)) < 0 ? NULL : path,
			    l->path.var, false, l->access);
		}
	for (unsigned i = 0; i < pn; i++) {
		struct plan_entry *e = &pl[i];
		const struct aj_mount *m = e->m;
		struct stat st;

		if (!e->path || e->missing)
			continue;
		/* Nothing is mounted here: only what the op takes from the
		 * host gets a rule (aj_table.h, enum aj_mount_make). */
		switch ((enum aj_mount_make)aj_op(m->op)->make) {
		case AJ_MAKE_BIND:
			if ((m->flags & AJ_MOUNT_WITH_DEVICES) && !plan_has_devices())
				continue;
			fd = describe ? fb_fd(e->path, false)
			              : plan_source_open(m, e->path, &e->why);
			if (fd < 0) {
				if (describe || ((m->flags & AJ_MOUNT_OPTIONAL) &&
				                 (e->why || errno == ENOENT || errno == ENOTDIR)))
					continue;
				diep("open", e->path, e->why ? 0 : errno,
				     e->why ? e->why : "the policy needs it");
			}
			if (fstat(fd, &st))
				diep("inspect", e->path, errno, NULL);
			if (aj_op_is(m->op, AJ_OP_WRITES) && !describe)
				reflog_guard(fd, e->path);
			if (!describe) {
				e->fd = fd;
				e->isdir = S_ISDIR(st.st_mode);
			}
			if (!strcmp(e->path, r->project) && S_ISDIR(st.st_mode)) {
				project = e;
				if (describe)
					close(fd);
				continue;
			}
			fb_rule(ruleset, fd,
			        m->landlock | (S_ISDIR(st.st_mode) ? 0 : landlock_socket_right(fd)),
			        S_ISDIR(st.st_mode), e->path);
			break;
		case AJ_MAKE_DEV:
			dev_rules(ruleset, m->landlock);
			break;
		case AJ_MAKE_PROC:
			/* The container's /proc, read-only: Landlock keeps
			 * other domains' memory and environment out of reach
			 * (its ptrace rule), not their command lines. */
			fd = fb_fd(e->path, true);
			if (fd >= 0)
				fb_rule(ruleset, fd, AJ_LL_READ_FILE | AJ_LL_READ_DIR, true,
				        e->path);
			break;
		case AJ_MAKE_TMPFS:
		case AJ_MAKE_LINK:
		case AJ_MAKE_NODES: /* under /dev's rules */
		case AJ_MAKE_NONE:
			break; /* the jail's own: nothing of the host's */
		}
	}
	if (describe) {
		landlock_explain_rule(private_dir, 0, false, AJ_LL_RIGHTS_ALL);
	} else {
		fd = fb_fd(private_dir, true);
		if (fd < 0)
			diep("open", private_dir, errno, NULL);
		landlock_rule(ruleset, fd, AJ_LL_RIGHTS_ALL, true, private_dir);
	}
	if (project && fence_needed()) {
		/* Every denied entry is left out of the rules (the fence). */
		masks_denied();
		if (describe)
			landlock_explain_rule(project->path, 0, false,
			                      project->m->landlock &
			                          ~(AJ_LL_READ_FILE | AJ_LL_EXECUTE));
		else
			(void)fence_project(ruleset, project);
	} else if (project) {
		fb_rule(ruleset, describe ? -1 : project->fd, project->m->landlock, true,
		        project->path);
	}
}

/* --jail-explain's "landlock rules" and "fence" here: the rules above,
 * and how many the fence takes (0: none, why says). */
void fallback_explain_rules(const struct run *r)
{
	rp_open("landlock_rules", '[');
	if (r->v->landlock != AJ_LANDLOCK_OFF) {
		rp_t("landlock rules (the fallback's, on the container's own paths):\n");
		fallback_rules(r, -1, true);
	}
	rp_close();
}

unsigned fallback_fence(const struct run *r, const struct plan_entry **e)
{
	*e = fence_needed() ? fb_project(r->project) : NULL;
	return *e ? fence_count(*e) : 0;
}

void fallback_landlock(const struct run *r)
{
	/* With the variant's own rules ("/"); every rule's rights are
	 * narrowed in landlock_rule(). */
	int ruleset = landlock_create(r->v);

	if (ruleset < 0)
		die("enforce Landlock", 0,
		    "the fallback confines the filesystem with Landlock alone, and the kernel has "
		    "none (CONFIG_SECURITY_LANDLOCK, and \"landlock\" in the lsm= boot parameter)");
	fallback_rules(r, ruleset, false);
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

/* Its length where the fallback installs it (--jail-explain), else 0. */
unsigned fallback_socket_filter(const struct run *r)
{
	const struct aj_variant *v = r->v;

	if (!run_in_fallback(r) || v->network == AJ_NET_HOST || v->network == AJ_NET_BLOCKED)
		return 0;
	return sizeof(unix_only) / sizeof(unix_only[0]);
}

void fallback_unix_only(const struct aj_variant *v)
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
	    "can still be overwritten, truncated, removed or renamed within its directory (not "
	    "read); the record above keeps what a run renames, moves or links denied in the "
	    "runs after it",
	    "hiding what a denied directory holds: its names, and the sizes, owners and times "
	    "of what is in it, can be listed and looked up (Landlock refuses reading a file, "
	    "not listing a directory below a granted one, nor stat(2))",
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
	    "defaults), not only the jail's, and binds no root of the host's user namespace",
	    "hiding Unix sockets: Landlock does not restrict connecting to a named one, so a "
	    "socket of the container (or a denied one in the project) can be connected to; "
	    "the Docker socket makes the fallback refuse to start",
	    "a fresh /proc and a minimal /dev: the container's, with rules on the nodes "
	    "minimal /dev holds",
	    "a private /dev/shm and /dev/pts: the container's are shared with its other "
	    "processes, so neither is granted: POSIX shared memory and named semaphores fail "
	    "with EACCES (Python multiprocessing's Lock, Queue, Pool and shared_memory), and so "
	    "does opening a new pty's other end by its name (openpty(3); TIOCGPTPEER works); "
	    "/dev/ptmx and the terminal on stdin, stdout, stderr stay (the jail's own "
	    "pseudo-terminal; the caller's with --jail-terminal=passthrough)",
	    "the mode's record for a jail inside this one: a nested jail's own layers add "
	    "to these, its mode floor is not checked",
	};
	bool declared = (r->v->flags & AJ_VARIANT_FALLBACK) && !mode_outer();
	const char *refused = declared && cause && docker_reachable(r->v) ? docker_hint : NULL;
	bool no_landlock = r->v->landlock == AJ_LANDLOCK_OFF || !landlock_abi();
	int status = !cause                                                ? 0
	             : !declared || refused || no_landlock || record_why() ? AJ_EXIT_SETUP
	                                                                   : 2;
	bool listed = declared && !refused && !no_landlock;

	if (run_in_fallback(r))
		masks_denied();
	rp_open("home", '{');
	rp_bool("private", private_home_why != NULL);
	if (private_home_why) {
		rp_field("home");
		rp_t("$HOME: ");
		rp_str("why", private_home_why);
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
		rp_jstr("record", NULL);
		rp_ju("record_objects", 0);
		rp_jstr("record_why", NULL);
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
		rp_t(vars_value(AJ_VAR_DOCKER_SOCKET));
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
		rp_t("), a random name, made for the run and removed after it\n");
		record_explain();
		rp_t("not in force:\n");
	}
	if (!declared || refused) {
		rp_jstr("private_dir", NULL);
		rp_jstr("record", NULL);
		rp_ju("record_objects", 0);
		rp_jstr("record_why", NULL);
	}
	rp_open("not_in_force", '[');
	for (unsigned i = 0; listed && i < sizeof(missing) / sizeof(missing[0]); i++) {
		rp_t("  ");
		rp_str(NULL, missing[i]);
		rp_t("\n");
	}
	rp_close();
	rp_close();
	return status;
}
