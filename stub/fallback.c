/* fallback.c: the fallback's entry point, the jail a policy declaring
 * 'fallback landlock;' gets where the namespaces cannot be had
 * (variant/nscause.c says why): no namespace at all.  The caller's
 * process stays the supervisor outside; a child, confined like pid 1 would
 * be, supervises the target.  What it confines with (the Landlock rules
 * standing for the mounts, the socket filter, the private directory, the
 * record of secrets) is the room fallback/'s. */
#include <errno.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <linux/capability.h>

#include "stub.h"

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
	privs_caps_clear(-1);
}

/* The caller stays the parent: the scan, handed to the child, then the
 * one loop. */
static noreturn void fallback_parent(struct run *r, pid_t pid, int fd)
{
	die_reap = pid;
	limits_place(pid);
	record_load(r, true);
	settle_project(".", r->v);
	record_save();
	ns_scan_send(fd);
	const struct ev_source *src[] = {notify_start(r->v, fd), term_start()};

	supervise_parent(pid, src, src[1] ? 2 : 1);
}

/* The child, in the caller's namespaces: the bounds, Landlock, the
 * privileges dropped, the filters; then it supervises the target. */
static noreturn void fallback_child(struct run *r)
{
	term_child();
	ns_scan_receive();
	/* Orphans of the target come to the supervisor, not the host's
	 * init, and die with the target's process group at the end. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		die("become the jail's reaper", errno, NULL);
	limits_rlimits(r->v);
	limits_apply();
	/* Without CAP_SYS_ADMIN, Landlock wants it first. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die("set no_new_privs", errno, NULL);
	fallback_landlock(r);
	if (chdir(r->project))
		diep("enter the project", r->project, errno, NULL);
	privs_fds_close(ns_parent_sock(r->v), status_keep(), -1);
	fallback_privs();
	/* First: a policy's allowlist need not allow seccomp(2) itself. */
	fallback_unix_only(r->v);
	seccomp_install(r->v);
	supervise_init(r);
}

noreturn void fallback_run(struct run *r)
{
	pid_t pid;
	int fd;

	supervise_block();
	/* The launcher is empty (ns_enter says why); here the child and
	 * the target are of the same user in the same pid namespace. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		die("make the supervisor undumpable", errno, NULL);
	pid = ns_clone(SIGCHLD, &fd);
	if (pid)
		fallback_parent(r, pid, fd);
	fallback_child(r);
}
