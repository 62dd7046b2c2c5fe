/* ns.c: the namespaces, the caller's ids inside them, and the fork that
 * makes pid 1 of the new pid namespace. */
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include "sys.h"

static const char userns_hint[] =
	"user namespaces are disabled or restricted here; check the sysctls "
	"kernel.unprivileged_userns_clone, user.max_user_namespaces and AppArmor's "
	"kernel.apparmor_restrict_unprivileged_userns";

static int death_pipe[2];

static void write_file(const char *path, const char *s, size_t n)
{
	int fd = openat(AT_FDCWD, path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, s, n) != (ssize_t)n)
		diep("write", path, errno, userns_hint);
	close(fd);
}

/* "ID ID 1\n": the caller keeps its own ids, root included. */
static void write_map(const char *path, unsigned long id)
{
	char line[48];
	char num[24];
	char *p = num + sizeof(num);
	size_t nl, n = 0;

	do
		*--p = (char)('0' + id % 10);
	while (id /= 10);
	nl = (size_t)(num + sizeof(num) - p);
	memcpy(line, p, nl);
	line[nl] = ' ';
	memcpy(line + nl + 1, p, nl);
	n = 2 * nl + 1;
	memcpy(line + n, " 1\n", 3);
	write_file(path, line, n + 3);
}

void ns_enter(const struct aj_variant *v)
{
	int flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS;
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (v->network != AJ_NET_HOST)
		flags |= CLONE_NEWNET;
	if (unshare(flags)) {
		int e = errno;
		die("create the namespaces", e,
		    e == EPERM || e == EINVAL || e == ENOSPC || e == EUSERS ? userns_hint : NULL);
	}
	write_file("/proc/self/setgroups", "deny\n", 5);
	write_map("/proc/self/uid_map", uid);
	write_map("/proc/self/gid_map", gid);
}

/* The parent holds the write end of a pipe and never closes it: when the
 * read end reports a hang-up, the parent is gone.  getppid() cannot tell,
 * it is 0 for pid 1 of a namespace whether the parent lives or not. */
pid_t ns_fork_init(void)
{
	struct pollfd pfd;
	pid_t pid;

	if (pipe2(death_pipe, O_CLOEXEC))
		die("create a pipe", errno, NULL);
	pid = fork();
	if (pid < 0)
		die("fork", errno, NULL);
	if (pid) {
		close(death_pipe[0]);
		return pid;
	}
	close(death_pipe[1]);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0))
		die("set the parent-death signal", errno, NULL);
	pfd = (struct pollfd){.fd = death_pipe[0], .events = POLLIN};
	if (poll(&pfd, 1, 0) < 0)
		die("poll", errno, NULL);
	if (pfd.revents)
		_exit(AJ_EXIT_SETUP); /* no one is left to tell */
	close(death_pipe[0]);
	return 0;
}

static void loopback_up(void)
{
	struct ifreq ifr = {.ifr_name = "lo", .ifr_flags = IFF_UP | IFF_LOOPBACK | IFF_RUNNING};
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0 || ioctl(s, SIOCSIFFLAGS, &ifr))
		die("bring up the loopback interface", errno, NULL);
	close(s);
}

void init_prepare(const struct aj_variant *v)
{
	const char *h = v->hostname && *v->hostname ? v->hostname : "jail";

	if (sethostname(h, strlen(h)))
		die("set the host name", errno, NULL);
	if (v->network == AJ_NET_LOOPBACK)
		loopback_up();
}
