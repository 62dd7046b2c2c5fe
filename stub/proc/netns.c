/* netns.c: the jail's network namespace, made beside pid 1.
 *
 * Making a network namespace is the largest single step of a launch
 * (0.4-0.6 ms here: a loopback device registered, the IPv4 and IPv6
 * tables and sysctls), and in pid 1's clone it is all on the critical
 * path.  Where pid 1 needs no network before its root is built (no proxy
 * listening in it: 'network none' and 'loopback', forwards or not), a
 * process of the parent's makes it meanwhile, on another CPU, the parent
 * sends it after the scan (WIRE_NET), and pid 1 joins it once its root is
 * built, before the covering process, its Landlock and the target
 * exist.  No process of the jail ever runs in the host's network
 * namespace but pid 1 before that join, which opens no socket but its
 * pair with the parent (an AF_UNIX pair, no address).
 *
 * The maker is a plain child (its own memory: errno and the rest stay
 * its own) sharing the parent's descriptor table, in the jail's user
 * namespace (so the namespace is the jail's), with every capability of
 * it: the parent has not dropped them yet.  It puts the namespace at the
 * number of a placeholder the parent opened, and exits with 0 or why
 * not.  A failure is the parent's die(): the jail never runs. */
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "proc/proc.h"

static int net_fd = -1; /* the placeholder, then the namespace */
static pid_t net_maker;

bool netns_later(const struct aj_variant *v)
{
	return landlock_net_private(v) && !AJ_NET_PROXIED(v->network);
}

void netns_spawn(void)
{
	/* Not a namespace: a setns() on it fails, should it ever be sent. */
	net_fd = (int)syscall(SYS_openat, AT_FDCWD, "/", O_PATH | O_CLOEXEC);
	if (net_fd < 0)
		die("create the network namespace", errno, NULL);
	net_maker = (pid_t)syscall(SYS_clone, CLONE_FILES, 0, 0, 0, 0);
	if (net_maker < 0)
		die("create the network namespace", errno, NULL);
	if (!net_maker) {
		struct sched_param none = {0};
		int fd;

		/* Behind pid 1 and the parent on every CPU: it has until pid 1's
		 * root is built, they are on the critical path now. */
		sched_setscheduler(0, SCHED_IDLE, &none);
		if (unshare(CLONE_NEWNET))
			_exit(errno & 0xff ? errno & 0xff : EINVAL);
		fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (fd < 0 || syscall(SYS_dup3, fd, net_fd, O_CLOEXEC) < 0)
			_exit(errno & 0xff ? errno & 0xff : EINVAL);
		_exit(0);
	}
}

/* The parent, once the scan and the host's sockets are sent: the
 * namespace to pid 1 (WIRE_NET), or die. */
void netns_send(int parent_fd)
{
	struct iovec iov = {&net_fd, sizeof(net_fd)};
	int st, e;

	if (net_maker <= 0)
		return;
	while (waitpid(net_maker, &st, __WALL) < 0)
		if (errno != EINTR)
			die("create the network namespace", errno, NULL);
	net_maker = 0;
	e = !WIFEXITED(st) ? EINTR : WEXITSTATUS(st);
	if (e)
		die("create the network namespace", e, nscause_why(e));
	if (!wire_send(parent_fd, WIRE_NET, &iov, 1, &net_fd, 1) && errno != EPIPE &&
	    errno != ECONNRESET) /* else pid 1 is gone: its status says why */
		die("hand the network namespace to the jail", errno, NULL);
	close(net_fd);
	net_fd = -1;
}

/* pid 1, its root built: into the namespace the parent made beside it,
 * then its loopback when the policy has one. */
void netns_join(const struct aj_variant *v, int sock)
{
	int fd = -1, any;

	if (wire_recv(sock, WIRE_NET, &any, sizeof(any), &fd, 1) != 1)
		_exit(AJ_EXIT_SETUP); /* the parent has said why */
	if (setns(fd, CLONE_NEWNET))
		die("join the network namespace", errno, NULL);
	close(fd);
	netns_loopback(v);
}

/* The namespace's loopback up, when the policy has one ('network none'
 * with a forward: a loopback with its ports only); also ns.c's, where
 * pid 1 is born in the namespace. */
void netns_loopback(const struct aj_variant *v)
{
	struct ifreq ifr = {.ifr_name = "lo", .ifr_flags = IFF_UP | IFF_LOOPBACK | IFF_RUNNING};
	int s;

	if (v->network != AJ_NET_LOOPBACK && !AJ_NET_PROXIED(v->network) && !forward_count())
		return;
	s = (int)syscall(SYS_socket, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0 || ioctl(s, SIOCSIFFLAGS, &ifr))
		die("bring up the loopback interface", errno, NULL);
	close(s);
}
