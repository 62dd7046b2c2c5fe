/* ns.c: the namespaces, the caller's ids inside them, and the clone that
 * makes pid 1 of the new pid namespace.
 *
 * The caller's process joins only the user namespace; pid 1 is cloned
 * into new pid, mount, IPC, UTS and network namespaces (none for 'network host', nor for 'network
 * blocked' where Landlock scopes abstract sockets: landlock_net_blocked()).
 * The parent keeps the host's view of the files, which its scan of the
 * project needs while pid 1 builds the root (see main.c), and the jail's
 * mounts die with pid 1. */
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include "proc/proc.h"

static int parent_sock = -1; /* pid 1's end of the socket to the parent */

static void write_file(const char *path, const char *s, size_t n)
{
	int fd = openat(AT_FDCWD, path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, s, n) != (ssize_t)n)
		diep("write", path, errno, nscause_why(errno));
	close(fd);
}

/* "ID ID 1\n": the caller keeps its own ids, root included. */
static void write_map(const char *path, unsigned long id)
{
	char line[2 * AJ_DEC_MAX + 4];
	size_t nl, n;

	nl = out_fmt_u(line, id);
	line[nl] = ' ';
	memcpy(line + nl + 1, line, nl);
	n = 2 * nl + 1;
	memcpy(line + n, " 1\n", 3);
	write_file(path, line, n + 3);
}

/* Returns 0, or the errno of a failed unshare (nothing changed then). */
int ns_enter(const struct aj_variant *v)
{
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWUSER))
		return errno;
	write_file("/proc/self/setgroups", "deny\n", 5);
	write_map("/proc/self/uid_map", uid);
	write_map("/proc/self/gid_map", gid);
	/* Whatever the filter lets through, the kernel itself then refuses a
	 * user namespace below the jail's, but for the ones a policy allows
	 * (a browser's sandbox).  The value is this namespace's own, written
	 * while we hold its capabilities; the jail's processes do not, so
	 * they cannot raise it, and a namespace below cannot exceed it. */
	limits_userns(v);
	/* The launcher is empty: neither this process nor pid 1 (which
	 * inherits it) is dumpable, so no process of the jail, though of the
	 * same uid, reads our memory, environment, fds or maps through /proc
	 * (the kernel wants CAP_SYS_PTRACE over the user namespace our memory
	 * was created in, the host's).  Their /proc files then belong to the
	 * host's root: "nobody" in the jail, or root for a root caller, whose
	 * jail still lacks that capability.  Not earlier: the maps above are
	 * written through /proc/self, which is then no longer ours. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		die("make the supervisor undumpable", errno, NULL);
	return 0;
}

/* The namespaces, or why they cannot be had here when the policy has a
 * fallback (fallback.c); without one, the real cause and its remedy. */
const char *ns_start(const struct aj_variant *v)
{
	bool fallback = (v->flags & AJ_VARIANT_FALLBACK) && !mode_outer();
	const char *cause = fallback ? nscause_blocked(v, false) : NULL;
	int e;

	if (cause)
		return cause;
	e = ns_enter(v);
	if (!e)
		return NULL;
	cause = nscause_why(e);
	if (fallback && cause)
		return cause;
	die("create the namespaces", e, nscause_remedy(v, cause));
}

/* pid 1 is born in its own mount, IPC, UTS (and network) namespaces: one
 * clone instead of a fork and an unshare.  The raw system call, not
 * fork(): musl's brings its atfork locks along, and nothing in the stub
 * depends on the thread id musl caches.  (The socket calls are raw too:
 * musl's wrappers carry fallbacks for kernels older than 2.6.27.)
 *
 * A socket pair joins the parent and pid 1: the parent sends the scan's
 * results on it, and pid 1 sees the parent's death as a hang-up.  That
 * check is needed once, after PR_SET_PDEATHSIG, for a parent that died
 * before it: getppid() cannot tell, it is 0 for pid 1 of a namespace
 * either way.  *parent_fd receives the parent's end. */
pid_t ns_fork_init(const struct aj_variant *v, int *parent_fd)
{
	/* The pid namespace by the clone, not by an unshare before it: the
	 * parent's own children stay in the caller's pid namespace, so the
	 * parent can still fork once pid 1 has ended (appear_end). */
	unsigned long flags = SIGCHLD | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS;

	if (netns_later(v))
		netns_spawn();
	else if (landlock_net_private(v))
		flags |= CLONE_NEWNET;
	return ns_clone(flags, parent_fd);
}

/* Also the fallback's child, with no namespace flag. */
pid_t ns_clone(unsigned long flags, int *parent_fd)
{
	struct pollfd pfd;
	int sv[2];
	pid_t pid;

	if (syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		die("create a socket pair", errno, NULL);
	status_pipe();
	pid = (pid_t)syscall(SYS_clone, flags, 0, 0, 0, 0);
	if (pid < 0)
		die("create the namespaces", errno, nscause_why(errno));
	if (pid) {
		status_parent();
		close(sv[1]);
		*parent_fd = sv[0];
		return pid;
	}
	status_child(); /* first: nothing of the jail holds the caller's record */
	close(sv[0]);
	parent_sock = sv[1];
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0))
		die("set the parent-death signal", errno, NULL);
	/* Only a hang-up counts: the parent may already have written. */
	pfd = (struct pollfd){.fd = sv[1], .events = POLLIN};
	if (poll(&pfd, 1, 0) < 0)
		die("poll", errno, NULL);
	if (pfd.revents & (POLLHUP | POLLERR))
		_exit(AJ_EXIT_SETUP); /* no one is left to tell */
	return 0;
}

/* The scan's results go to pid 1 over the socket, in one message
 * (WIRE_SCAN): a header, the hits, the bytes of paths they use, and which
 * bounds a cgroup holds (pid 1 takes the others as rlimits), with the fds
 * of the cgroups pid 1 is to join itself (limits.c).  A parent that died
 * on the way (a scan that failed closed) sends nothing: pid 1 then
 * stops. */
void ns_scan_send(int parent_fd)
{
	struct iovec iov[4] = {
	    {hits_now(), offsetof(struct scan_result, hits)},
	    {hits_now()->hits, hits_now()->n * sizeof(hits_now()->hits[0])},
	    {hits_now()->arena, hits_now()->used},
	    {&limits_how, sizeof(limits_how)},
	};
	int fds[LIMIT_N];
	unsigned n = limits_join_fds(fds);
	bool sent = wire_send(parent_fd, WIRE_SCAN, iov, 4, fds, n);
	int e = errno;

	for (unsigned i = 0; i < n; i++)
		close(fds[i]); /* pid 1 has its own, or is gone */
	if (sent)
		return;
	if (e != EPIPE && e != ECONNRESET) /* else pid 1 is gone: its status says why */
		die("hand the scan to the jail", e, NULL);
}

/* pid 1's fd to the parent: kept by privs_fds_close() while a listener is to
 * be handed over (ns_notify_send), else -1. */
int ns_parent_sock(const struct aj_variant *v)
{
	return v->n_refused ? parent_sock : -1;
}

/* pid 1, once the filters are in: the listener (fd), or why there is none
 * (err), in one message; then the socket is closed, before the target
 * exists. */
void ns_notify_send(int fd, int err)
{
	struct iovec iov = {&err, sizeof(err)};

	if (!wire_send(parent_sock, WIRE_NOTIFY, &iov, 1, &fd, fd >= 0))
		_exit(AJ_EXIT_SETUP); /* the parent is gone, or has said why */
	if (fd >= 0)
		close(fd);
	close(parent_sock);
	parent_sock = -1;
}

/* The fallback's child: the scan as pid 1 receives it (root/build.c),
 * with the bounds, and the line on what was denied unchecked. */
void ns_scan_receive(void)
{
	int fds[LIMIT_N];
	unsigned n = build_receive(parent_sock, &limits_how, sizeof(limits_how), fds, LIMIT_N);

	limits_joined(fds, n);
	mask_tell_unchecked();
}

/* pid 1's first step in its namespaces: the host name, the loopback
 * the listeners bind to (main.c's init_run starts them); returns pid 1's
 * end of the socket to the parent. */
int ns_init_prepare(const struct aj_variant *v)
{
	const char *h = v->hostname; /* never NULL: the compiler has a default */

	if (sethostname(h, strlen(h)))
		die("set the host name", errno, NULL);
	if (!netns_later(v))
		netns_loopback(v);
	return parent_sock;
}
