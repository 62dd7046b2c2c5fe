/* probe.c: try one thing from inside a jail and say what happened.
 *
 *   probe CASE [ARGS…]
 *
 * prints "CASE: RESULT" on stdout, where RESULT is "ok", an errno name
 * (EPERM, ENOSYS, EACCES, …) or, for `read`, the Python-style repr of what
 * was read.  Exit status: 0 the call succeeded, 1 it failed with an errno,
 * 2 usage error, 3 an unexpected result.  A seccomp kill (x32, int80) prints
 * nothing: the jail's supervisor then exits 128+SIGSYS = 159.
 *
 * Built static with musl so that it runs in any jail whatever the jail
 * mounts.  Never run it outside a jail as root: `mount` would act on the
 * host, which is why that case refuses to run unless AIJAIL=1 (set by every
 * shipped profile) is in the environment. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/perf_event.h>

#define R_OK_   0
#define R_ERRNO 1
#define R_USAGE 2
#define R_ODD   3

static const char *errno_name(int e)
{
	static const struct {
		int e;
		const char *name;
	} names[] = {
#define X(n) {n, #n}
	    X(EPERM),         X(ENOENT),          X(ESRCH),           X(EINTR),
	    X(EIO),           X(ENXIO),           X(E2BIG),           X(ENOEXEC),
	    X(EBADF),         X(ECHILD),          X(EAGAIN),          X(ENOMEM),
	    X(EACCES),        X(EFAULT),          X(ENOTBLK),         X(EBUSY),
	    X(EEXIST),        X(EXDEV),           X(ENODEV),          X(ENOTDIR),
	    X(EISDIR),        X(EINVAL),          X(ENFILE),          X(EMFILE),
	    X(ENOTTY),        X(ETXTBSY),         X(EFBIG),           X(ENOSPC),
	    X(ESPIPE),        X(EROFS),           X(EMLINK),          X(EPIPE),
	    X(EDOM),          X(ERANGE),          X(EDEADLK),         X(ENAMETOOLONG),
	    X(ENOLCK),        X(ENOSYS),          X(ENOTEMPTY),       X(ELOOP),
	    X(ENOMSG),        X(EIDRM),           X(ENOSTR),          X(ENODATA),
	    X(ETIME),         X(ENOSR),           X(EREMOTE),         X(ENOLINK),
	    X(EPROTO),        X(EBADMSG),         X(EOVERFLOW),       X(EILSEQ),
	    X(EUSERS),        X(ENOTSOCK),        X(EDESTADDRREQ),    X(EMSGSIZE),
	    X(EPROTOTYPE),    X(ENOPROTOOPT),     X(EPROTONOSUPPORT), X(ESOCKTNOSUPPORT),
	    X(EOPNOTSUPP),    X(EPFNOSUPPORT),    X(EAFNOSUPPORT),    X(EADDRINUSE),
	    X(EADDRNOTAVAIL), X(ENETDOWN),        X(ENETUNREACH),     X(ENETRESET),
	    X(ECONNABORTED),  X(ECONNRESET),      X(ENOBUFS),         X(EISCONN),
	    X(ENOTCONN),      X(ESHUTDOWN),       X(ETOOMANYREFS),    X(ETIMEDOUT),
	    X(ECONNREFUSED),  X(EHOSTDOWN),       X(EHOSTUNREACH),    X(EALREADY),
	    X(EINPROGRESS),   X(ESTALE),          X(EDQUOT),          X(ECANCELED),
	    X(EOWNERDEAD),    X(ENOTRECOVERABLE), X(ENOKEY),          X(EKEYEXPIRED),
	    X(EKEYREVOKED),   X(EKEYREJECTED),    X(ERFKILL),         X(EHWPOISON),
#undef X
	};
	static char buf[32];

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].e == e)
			return names[i].name;
	snprintf(buf, sizeof buf, "errno %d", e);
	return buf;
}

static const char *cname;

static int report_ok(void)
{
	printf("%s: ok\n", cname);
	return R_OK_;
}

static int report_errno(int e)
{
	printf("%s: %s\n", cname, errno_name(e));
	return R_ERRNO;
}

/* r is a syscall's return value: -1 with errno set means it failed. */
static int report(long r)
{
	return r < 0 ? report_errno(errno) : report_ok();
}

/* Runs a fork-like syscall's child side: the child exits at once. */
static int report_fork(long r)
{
	if (r == 0)
		_exit(0);
	if (r < 0)
		return report_errno(errno);
	waitpid((pid_t)r, NULL, __WALL);
	return report_ok();
}

static int p_unshare_user(void)
{
	return report(unshare(CLONE_NEWUSER));
}

static int p_clone_newuser(void)
{
	return report_fork(syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0));
}

static int p_clone3(void)
{
	/* struct clone_args, version 0 (64 bytes): flags, pidfd, child_tid,
	 * parent_tid, exit_signal, stack, stack_size, tls. */
	uint64_t args[8] = {0};

	args[4] = SIGCHLD;
	return report_fork(syscall(SYS_clone3, args, sizeof args));
}

static int p_ptrace(void)
{
	long r = syscall(SYS_ptrace, 0 /* PTRACE_TRACEME */, 0, 0, 0);

	return report(r);
}

static int p_ptrace_attach(void)
{
	pid_t parent = getppid();
	long r = syscall(SYS_ptrace, 16 /* PTRACE_ATTACH */, parent, 0, 0);

	if (r == 0) {
		waitpid(parent, NULL, __WALL);
		syscall(SYS_ptrace, 17 /* PTRACE_DETACH */, parent, 0, 0);
	}
	return report(r);
}

static int p_io_uring_setup(void)
{
	unsigned char params[120] = {0}; /* struct io_uring_params */
	long r = syscall(SYS_io_uring_setup, 1, params);

	if (r >= 0)
		close((int)r);
	return report(r);
}

/* Never push a byte into a real terminal: use /dev/null when fd 0 is one.
 * The filter cannot tell fds apart, so the verdict is the same. */
static int tty_safe_fd(void)
{
	if (!isatty(0))
		return 0;
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static int p_ioctl_tiocsti(void)
{
	char c = 0;

	return report(ioctl(tty_safe_fd(), TIOCSTI, &c));
}

static int p_ioctl_tiocsti_high(void)
{
	char c = 0;

	/* ioctl's cmd is an unsigned int: the kernel drops the high bits, a
	 * filter that compares 64 bits does not. */
	return report(syscall(SYS_ioctl, tty_safe_fd(), 0xdead00000000ULL | TIOCSTI, &c));
}

static int p_x32(void)
{
	long r = syscall(0x40000000 | SYS_getpid);

	return r < 0 ? report_errno(errno) : report_ok();
}

static int p_int80(void)
{
	long r;

#if defined(__x86_64__)
	/* i386 getpid is 20.  The 64-bit entry clears r8-r11 on int $0x80. */
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory", "r8", "r9", "r10", "r11");
#else
	/* An AArch32 call needs an AArch32 program: nothing to try from here. */
	printf("%s: no i386 entry on this architecture\n", cname);
	return R_USAGE;
#endif
	if (r < 0 && r > -4096)
		return report_errno((int)-r);
	if (r != getpid()) {
		printf("%s: returned %ld, not the pid\n", cname, r);
		return R_ODD;
	}
	return report_ok();
}

static int p_mount(void)
{
	const char *j = getenv("AIJAIL");

	if (!j || strcmp(j, "1") != 0) {
		fprintf(stderr, "probe: refusing to mount outside a jail (AIJAIL is not 1)\n");
		return R_USAGE;
	}
	if (mount("tmpfs", "/tmp", "tmpfs", 0, "size=64k") < 0)
		return report_errno(errno);
	umount2("/tmp", MNT_DETACH);
	return report_ok();
}

static int p_bpf(void)
{
	/* union bpf_attr for BPF_MAP_CREATE: an array of one int. */
	uint32_t attr[16] = {0};
	long r;

	attr[0] = 2; /* BPF_MAP_TYPE_ARRAY */
	attr[1] = 4; /* key_size */
	attr[2] = 4; /* value_size */
	attr[3] = 1; /* max_entries */
	r = syscall(SYS_bpf, 0 /* BPF_MAP_CREATE */, attr, sizeof attr);
	if (r >= 0)
		close((int)r);
	return report(r);
}

static int p_perf_event_open(void)
{
	struct perf_event_attr a;
	long r;

	memset(&a, 0, sizeof a);
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof a;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	r = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (r >= 0)
		close((int)r);
	return report(r);
}

static int p_keyctl(void)
{
	/* KEYCTL_GET_KEYRING_ID (0) of KEY_SPEC_SESSION_KEYRING (-3), no create */
	return report(syscall(SYS_keyctl, 0, -3, 0, 0, 0));
}

static int p_open_by_handle_at(void)
{
	struct {
		unsigned int bytes;
		int type;
		unsigned char h[8];
	} fh = {8, 1, {0}};
	int mfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long r = syscall(SYS_open_by_handle_at, mfd < 0 ? AT_FDCWD : mfd, &fh, O_RDONLY);

	if (r >= 0)
		close((int)r);
	return report(r);
}

static int p_userfaultfd(void)
{
	long r = syscall(SYS_userfaultfd, O_CLOEXEC);

	if (r >= 0)
		close((int)r);
	return report(r);
}

static int p_connect_tcp(const char *host, const char *port)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	struct timeval tv = {5, 0};
	socklen_t len;
	char *end;
	long p = strtol(port, &end, 10);
	int fd;

	if (*end || p <= 0 || p > 65535) {
		fprintf(stderr, "probe: bad port '%s'\n", port);
		return R_USAGE;
	}
	memset(&ss, 0, sizeof ss);
	if (inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)p);
		len = sizeof *s4;
	} else if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)p);
		len = sizeof *s6;
	} else {
		fprintf(stderr, "probe: '%s' is not a numeric address\n", host);
		return R_USAGE;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return report_errno(errno);
	/* On Linux SO_SNDTIMEO bounds a blocking connect(). */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	if (connect(fd, (struct sockaddr *)&ss, len) < 0)
		return report_errno(errno == EINPROGRESS ? ETIMEDOUT : errno);
	close(fd);
	return report_ok();
}

/* PATH, or @NAME for an abstract socket. */
static int p_connect_unix(const char *path)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	size_t n = strlen(path);
	socklen_t len;
	int fd;

	if (n == 0 || n >= sizeof sun.sun_path) {
		fprintf(stderr, "probe: bad socket path '%s'\n", path);
		return R_USAGE;
	}
	memcpy(sun.sun_path, path, n);
	if (path[0] == '@')
		sun.sun_path[0] = '\0';
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (path[0] != '@'));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return report_errno(errno);
	if (connect(fd, (struct sockaddr *)&sun, len) < 0)
		return report_errno(errno);
	close(fd);
	return report_ok();
}

static int p_socket_netlink(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 0 /* NETLINK_ROUTE */);

	if (fd >= 0)
		close(fd);
	return report(fd);
}

static void put_repr(const unsigned char *s, size_t n)
{
	putchar('\'');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (c == '\\' || c == '\'')
			printf("\\%c", c);
		else if (c == '\n')
			fputs("\\n", stdout);
		else if (c == '\t')
			fputs("\\t", stdout);
		else if (c == '\r')
			fputs("\\r", stdout);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	putchar('\'');
}

static int p_read(const char *path)
{
	unsigned char buf[4096];
	size_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return report_errno(errno);
	while (n < sizeof buf) {
		ssize_t r = read(fd, buf + n, sizeof buf - n);

		if (r < 0) {
			int e = errno;

			close(fd);
			return report_errno(e);
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	printf("%s: ", cname);
	put_repr(buf, n);
	putchar('\n');
	return R_OK_;
}

static int p_write(const char *path)
{
	static const char msg[] = "probe\n";
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ssize_t r;

	if (fd < 0)
		return report_errno(errno);
	r = write(fd, msg, sizeof msg - 1);
	if (r < 0) {
		int e = errno;

		close(fd);
		return report_errno(e);
	}
	if (close(fd) < 0)
		return report_errno(errno);
	return report_ok();
}

/* bubblewrap's try-syscall idea: call each number with arguments that are
 * harmless if the call got through (a bad fd, a bad pointer), and print
 * "NR: ERRNO" per call.  Exits 0 when every call failed with EPERM. */
static int p_syscalls(const char *list)
{
	int all = 1;
	for (const char *s = list; *s;) {
		char *end;
		long nr = strtol(s, &end, 10);
		if (end == s)
			return R_USAGE;
		errno = 0;
		long r = syscall(nr, -1L, -1L, -1L, -1L, -1L, -1L);
		int e = r < 0 ? errno : 0;
		printf("%ld: %s\n", nr, e ? errno_name(e) : "ok");
		all &= e == EPERM;
		s = *end == ',' ? end + 1 : end;
	}
	return all ? 0 : R_ODD;
}

static const struct probe {
	const char *name;
	int nargs;
	const char *args;
	int (*f0)(void);
	int (*f1)(const char *);
	int (*f2)(const char *, const char *);
} probes[] = {
    {"unshare-user", 0, "", p_unshare_user, 0, 0},
    {"clone-newuser", 0, "", p_clone_newuser, 0, 0},
    {"clone3", 0, "", p_clone3, 0, 0},
    {"ptrace", 0, "", p_ptrace, 0, 0},
    {"ptrace-attach", 0, "", p_ptrace_attach, 0, 0},
    {"io_uring_setup", 0, "", p_io_uring_setup, 0, 0},
    {"ioctl-tiocsti", 0, "", p_ioctl_tiocsti, 0, 0},
    {"ioctl-tiocsti-high", 0, "", p_ioctl_tiocsti_high, 0, 0},
    {"x32", 0, "", p_x32, 0, 0},
    {"int80", 0, "", p_int80, 0, 0},
    {"mount", 0, "", p_mount, 0, 0},
    {"bpf", 0, "", p_bpf, 0, 0},
    {"perf_event_open", 0, "", p_perf_event_open, 0, 0},
    {"keyctl", 0, "", p_keyctl, 0, 0},
    {"open_by_handle_at", 0, "", p_open_by_handle_at, 0, 0},
    {"userfaultfd", 0, "", p_userfaultfd, 0, 0},
    {"connect-tcp", 2, " HOST PORT", 0, 0, p_connect_tcp},
    {"connect-unix", 1, " PATH|@ABSTRACT", 0, p_connect_unix, 0},
    {"socket-netlink", 0, "", p_socket_netlink, 0, 0},
    {"read", 1, " FILE", 0, p_read, 0},
    {"write", 1, " FILE", 0, p_write, 0},
    {"syscalls", 1, " NR,NR,…", 0, p_syscalls, 0},
};

static int usage(void)
{
	fputs("usage: probe CASE [ARGS]\ncases:", stderr);
	for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++)
		fprintf(stderr, "\n  %s%s", probes[i].name, probes[i].args);
	fputc('\n', stderr);
	return R_USAGE;
}

int main(int argc, char **argv)
{
	int rc;

	if (argc < 2)
		return usage();
	for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
		const struct probe *p = &probes[i];

		if (strcmp(argv[1], p->name) != 0)
			continue;
		if (argc - 2 != p->nargs)
			return usage();
		cname = p->name;
		if (p->nargs == 0)
			rc = p->f0();
		else if (p->nargs == 1)
			rc = p->f1(argv[2]);
		else
			rc = p->f2(argv[2], argv[3]);
		if (fflush(stdout) != 0)
			return R_ODD;
		return rc;
	}
	fprintf(stderr, "probe: unknown case '%s'\n", argv[1]);
	return usage();
}
