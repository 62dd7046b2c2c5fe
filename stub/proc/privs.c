/* privs.c: what the target inherits besides the root: no fd of ours or the
 * caller's beyond 0-2, the policy's rlimits (and the bounds of limits.c
 * that no cgroup holds), and no privilege at all. */
#include <errno.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <linux/capability.h>

#include "proc/proc.h"

/* keep: pid 1's socket to the parent, which still carries the listener
 * (ns_notify_send closes it before the target exists), or -1; keep2: the
 * status pipe's end (status.c), close-on-exec: the target's execve drops
 * it, pid 1 keeps it to the end, or -1. */
void privs_fds_close(int keep, int keep2, int keep3)
{
	int k[3] = {keep, keep2, keep3};
	unsigned lo = 3;
	struct rlimit rl;

	for (unsigned i = 1; i < 3; i++) /* in order, for close_range */
		for (unsigned j = i; j > 0 && k[j - 1] > k[j]; j--) {
			int t = k[j];

			k[j] = k[j - 1], k[j - 1] = t;
		}
	for (unsigned i = 0; i < 3; i++) {
		if (k[i] < (int)lo)
			continue;
		if (k[i] > (int)lo && syscall(SYS_close_range, lo, (unsigned)k[i] - 1, 0U))
			goto slow;
		lo = (unsigned)k[i] + 1;
	}
	if (!syscall(SYS_close_range, lo, ~0U, 0U))
		return;
slow:
	if (errno != ENOSYS && errno != EINVAL)
		die("close inherited file descriptors", errno, NULL);
	if (getrlimit(RLIMIT_NOFILE, &rl))
		die("read RLIMIT_NOFILE", errno, NULL);
	if (rl.rlim_cur > 1U << 20)
		rl.rlim_cur = 1U << 20;
	for (unsigned fd = 3; fd < rl.rlim_cur; fd++)
		if ((int)fd != keep && (int)fd != keep2 && (int)fd != keep3)
			close((int)fd);
}

/* A bound the policy adds on top of its rlimits ('limit memory', 'limit
 * processes'): lower than what is set, never higher. */
void privs_rlimit_tighten(int resource, uint64_t v)
{
	struct rlimit rl;

	if (syscall(SYS_prlimit64, 0, resource, NULL, &rl))
		die("read a resource limit", errno, NULL);
	if (rl.rlim_cur > v)
		rl.rlim_cur = v;
	if (rl.rlim_max > v)
		rl.rlim_max = v;
	if (syscall(SYS_prlimit64, 0, resource, &rl, NULL))
		die("set a resource limit", errno, NULL);
}

static void caps_set(int cap, bool effective)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2] = {{0}};

	if (cap >= 0) {
		data[cap / 32].permitted = 1U << (cap % 32);
		data[cap / 32].effective = effective ? 1U << (cap % 32) : 0;
	}
	if (syscall(SYS_capset, &hdr, data))
		die("drop capabilities", errno, NULL);
}

/* Every capability off, for this process, but keep (-1: none), permitted
 * and not in effect.  The parent needs it too: in the new user namespace
 * it could override the permissions of the caller's own files, and its
 * scan must see them as the caller does; it keeps CAP_DAC_OVERRIDE when
 * it made a cgroup where only that capability may remove it (limits.c),
 * which in this namespace is no more than the caller's own power. */
void privs_caps_clear(int keep)
{
	caps_set(keep, false);
}

/* keep of privs_caps_clear(), in effect, and only it. */
void privs_caps_raise(int cap)
{
	caps_set(cap, true);
}

/* Inside the user namespace we hold every capability; a caller who is root
 * would keep them across execve.  The bounding set and ambient set stop
 * that, capset stops it for the supervisor itself, so that a mode-000 deny
 * is EACCES for everyone in the jail. */
void privs_drop(void)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die("set no_new_privs", errno, NULL);
	for (unsigned cap = 0;; cap++) {
		if (!prctl(PR_CAPBSET_DROP, cap, 0, 0, 0))
			continue;
		if (errno == EINVAL)
			break; /* past the kernel's last capability */
		die("drop capabilities", errno, NULL);
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL)
		die("clear ambient capabilities", errno, NULL);
	privs_caps_clear(-1);
}

/* pid 1's last steps before its filter, in one call: Landlock enforced
 * (ruleset, -1: none), every descriptor closed but the ones kept, the
 * published ports armed (egress/publish.c: after Landlock, which rules
 * what it serves), the privileges dropped. */
void privs_confine(int ruleset, int keep, int keep2, int keep3)
{
	if (ruleset >= 0)
		landlock_enforce(ruleset);
	TRACE_MARK("landlock");
	privs_fds_close(keep, keep2, keep3);
	publish_arm();
	privs_drop();
	TRACE_MARK("privs");
}
