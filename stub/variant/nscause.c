/* nscause.c: why the namespaces cannot be had here, and what would
 * lift it, for the message of a stub that fails closed and for the
 * fallback (fallback.c).  unshare(CLONE_NEWUSER) fails for reasons the error
 * number does not tell apart, and each has its own remedy: a seccomp
 * filter that was there before we started (a container runtime's default
 * profile: Docker's, or Kubernetes' RuntimeDefault, refuse the namespace
 * flags without CAP_SYS_ADMIN), the sysctls user.max_user_namespaces and
 * kernel.unprivileged_userns_clone, AppArmor's
 * kernel.apparmor_restrict_unprivileged_userns (the namespace is made,
 * but holds no capability, so the first mount fails), an AppArmor profile
 * that denies mount (Docker's docker-default), and a /proc that the
 * container runtime covered in part (masked and read-only paths), under
 * which the kernel refuses a fresh procfs (mount_too_revealing()). */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "variant/variant.h"

/* ---- the cause ----------------------------------------------------------- */

/* A small kernel file's first line, NUL-terminated; "" when unreadable. */
static const char *read_line(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static bool sysctl_is(const char *path, const char *value)
{
	char buf[32];

	return !strcmp(read_line(path, buf, sizeof(buf)), value);
}

/* "Seccomp: 2" in /proc/self/status: a filter is loaded.  Asked before the
 * stub loads its own (and never inside one of our jails, mode_outer()), it
 * is the filter of whatever started us. */
static bool seccomp_outside(void)
{
	static char buf[4096];
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	for (const char *l = buf; *l;) {
		if (!strncmp(l, "Seccomp:", 8)) {
			l += 8;
			l += strspn(l, " \t");
			return *l == '2';
		}
		l = strchrnul(l, '\n');
		if (*l)
			l++;
	}
	return false;
}

static const char seccomp_hint[] =
    "a seccomp filter was already loaded when this program started (Seccomp: 2 in "
    "/proc/self/status): a container runtime's default profile refuses new namespaces; "
    "run the container with docker run --security-opt seccomp=unconfined, or in "
    "Kubernetes with securityContext.seccompProfile.type: Unconfined";
static const char max_hint[] =
    "user.max_user_namespaces is 0 here: sysctl -w user.max_user_namespaces=15000";
static const char clone_hint[] = "kernel.unprivileged_userns_clone is 0 here: sysctl -w "
                                 "kernel.unprivileged_userns_clone=1";
static const char apparmor_hint[] =
    "AppArmor's kernel.apparmor_restrict_unprivileged_userns is 1 here: a user namespace "
    "gets no capability unless an AppArmor profile for this program allows it (userns,), "
    "or sysctl -w kernel.apparmor_restrict_unprivileged_userns=0";
static const char generic_hint[] =
    "user namespaces are disabled or restricted here; check the sysctls "
    "kernel.unprivileged_userns_clone, user.max_user_namespaces and AppArmor's "
    "kernel.apparmor_restrict_unprivileged_userns";
static const char profile_hint[] =
    "this process runs under an AppArmor profile that denies mount (a container's "
    "docker-default): run the container with docker run --security-opt apparmor=unconfined, "
    "or in Kubernetes with securityContext.appArmorProfile.type: Unconfined";
static const char proc_hint[] =
    "parts of /proc are covered here (a container runtime's masked and read-only paths), "
    "and the kernel then refuses a fresh procfs: run the container with docker run "
    "--security-opt systempaths=unconfined, or in Kubernetes with "
    "securityContext.procMount: Unmasked (with hostUsers: false)";
static const char remedy_tail[] =
    "; or declare 'fallback landlock;' in the policy for a jail without namespaces";

static bool apparmor_restricts(void)
{
	return sysctl_is("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1");
}

/* An AppArmor profile other than "unconfined" (the newer attr file first). */
static bool apparmor_confined(void)
{
	char buf[128];
	const char *l = read_line("/proc/self/attr/apparmor/current", buf, sizeof(buf));

	if (!*l)
		l = read_line("/proc/self/attr/current", buf, sizeof(buf));
	return *l && strncmp(l, "unconfined", 10);
}

/* Why unshare(CLONE_NEWUSER) failed with err, or a mount in the new
 * namespace did (err EPERM then). */
const char *nscause_why(int err)
{
	if (mode_outer())
		return "this runs inside a jail, whose system call filter refuses new namespaces: "
		       "jails do not nest (run the command in the jail you are in)";
	if (err != EPERM && err != EINVAL && err != ENOSPC && err != EUSERS && err != EACCES)
		return NULL;
	if (seccomp_outside())
		return seccomp_hint;
	if (sysctl_is("/proc/sys/user/max_user_namespaces", "0"))
		return max_hint;
	if (getuid() && sysctl_is("/proc/sys/kernel/unprivileged_userns_clone", "0"))
		return clone_hint;
	if (apparmor_restricts() && getuid())
		return apparmor_hint;
	if (apparmor_confined())
		return profile_hint;
	return generic_hint;
}

/* The same, with the policy's other way out when it has none. */
const char *nscause_remedy(const struct aj_variant *v, const char *cause)
{
	static char buf[sizeof(seccomp_hint) + sizeof(remedy_tail) + 512];
	size_t n;

	if (!cause || (v->flags & AJ_VARIANT_FALLBACK) || mode_outer())
		return cause;
	n = strlen(cause);
	if (n + sizeof(remedy_tail) > sizeof(buf))
		return cause;
	memcpy(buf, cause, n);
	memcpy(buf + n, remedy_tail, sizeof(remedy_tail));
	return buf;
}

/* A mount that failed in the new namespaces: the hint for err. */
const char *nscause_mount_hint(int err, bool proc)
{
	/* A covered /proc has been seen to give ENOENT as well as EPERM;
	 * pid 1 asks after pivot_root, where the host's is below /oldroot. */
	if (proc && nscause_proc_covered("/oldroot/proc"))
		return proc_hint;
	if (err != EPERM && err != EACCES)
		return NULL;
	return nscause_why(err);
}

/* Is part of /proc covered by another mount?  A masked path is a bind of
 * another file system (Docker binds /dev/null on /proc/kcore, a tmpfs on
 * /proc/acpi), a read-only path a read-only bind of /proc/sys and the
 * like.  Either makes the kernel refuse a new procfs in a user namespace
 * (mount_too_revealing(): every locked mount on top of the visible procfs
 * must sit on an empty directory). */
bool nscause_proc_covered(const char *proc)
{
	static const char *const masked[] = {"kcore", "keys", "timer_list",
	                                     "acpi",  "scsi", "sched_debug"};
	static const char *const ro[] = {"sys", "bus", "irq", "fs"};
	char path[64];
	size_t n = strlen(proc);
	struct stat pst, st;
	struct statfs pf, sf;

	if (n + 16 > sizeof(path) || lstat(proc, &pst) || statfs(proc, &pf))
		return false;
	memcpy(path, proc, n);
	path[n++] = '/';
	for (unsigned i = 0; i < sizeof(masked) / sizeof(masked[0]); i++) {
		out_str_put(path, n, masked[i]);
		if (!lstat(path, &st) && st.st_dev != pst.st_dev)
			return true;
	}
	if (pf.f_flags & ST_RDONLY)
		return false;
	for (unsigned i = 0; i < sizeof(ro) / sizeof(ro[0]); i++) {
		out_str_put(path, n, ro[i]);
		if (!statfs(path, &sf) && (sf.f_flags & ST_RDONLY))
			return true;
	}
	return false;
}

static bool has_proc(const struct aj_variant *v)
{
	for (unsigned r = 0; r < v->n_mount_spans; r++)
		for (unsigned i = 0; i < v->mount_spans[r].n; i++)
			if (aj_op(v->mount_spans[r].v[i].op)->make == AJ_MAKE_PROC)
				return true;
	return false;
}

/* Tries what pid 1 would do first, in a child that then exits: a user
 * and a mount namespace, the caller's ids, private mounts.  NULL when all
 * of it works. */
static const char *probe(void)
{
	int status;
	pid_t pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);

	if (pid < 0)
		return NULL; /* cannot tell: the run itself will say */
	if (!pid) {
		uid_t uid = getuid();
		gid_t gid = getgid();
		char map[2 * AJ_DEC_MAX + 4];
		size_t n;
		int fd;

		if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
			_exit(1);
		fd = open("/proc/self/setgroups", O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, "deny", 4) != 4)
			_exit(2);
		close(fd);
		for (int k = 0; k < 2; k++) {
			n = out_fmt_u(map, k ? gid : uid);
			map[n] = ' ';
			memcpy(map + n + 1, map, n);
			memcpy(map + 2 * n + 1, " 1\n", 3);
			fd = open(k ? "/proc/self/gid_map" : "/proc/self/uid_map",
			          O_WRONLY | O_CLOEXEC);
			if (fd < 0 || write(fd, map, 2 * n + 4) != (ssize_t)(2 * n + 4))
				_exit(2);
			close(fd);
		}
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			_exit(3);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return NULL;
	if (!WIFEXITED(status) || !WEXITSTATUS(status) || WEXITSTATUS(status) > 3)
		return NULL;
	return nscause_why(EPERM);
}

/* Why the full jail cannot be built here, asked before anything is
 * created; NULL when nothing known is in the way.  explain: the probe
 * always, else only where AppArmor's restriction makes unshare succeed
 * and the mounts fail (the probe costs a fork there only). */
const char *nscause_blocked(const struct aj_variant *v, bool explain)
{
	const char *cause = NULL;

	if (explain || apparmor_restricts())
		cause = probe();
	if (!cause && has_proc(v) && nscause_proc_covered("/proc"))
		cause = proc_hint;
	return cause;
}
