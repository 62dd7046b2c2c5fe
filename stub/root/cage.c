/* cage.c: the bounds of the process that covers names appearing during
 * the run (appear.c): the watches and descriptors it may take, the two
 * capabilities it keeps, the only descriptors it holds and the system
 * calls it may make.  It runs beside a jail that names what it opens, so
 * a bug there must not become a way out. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "root/root.h"

/* The share of fs.inotify.max_user_watches one jail's watch may take (the
 * project's watcher keeps all watchers to a share of their own,
 * aj_watchstate.h). */
#define CAGE_SHARE 10

static unsigned long proc_num(const char *path, unsigned long dflt)
{
	char b[32];
	unsigned long v = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, b, sizeof(b) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return dflt;
	for (ssize_t i = 0; i < n && b[i] >= '0' && b[i] <= '9'; i++)
		v = v * 10 + (unsigned long)(b[i] - '0');
	return v ? v : dflt;
}

/* How many directories the covering process may watch: a share of the
 * user's inotify watches, one descriptor each, and at most most (its
 * table's size); raise: its descriptors' soft limit raised to the hard
 * one first. */
unsigned cage_budget(bool raise, unsigned most)
{
	unsigned long max = proc_num("/proc/sys/fs/inotify/max_user_watches", 8192);
	unsigned long b = max * CAGE_SHARE / 100;
	struct rlimit rl;
	const char *e = getenv("AIJAIL_APPEAR_WATCHES");

	if (e && *e)
		b = strtoul(e, NULL, 10);
	/* One descriptor per directory watched. */
	if (!syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		if (raise)
			syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &rl, NULL);
		if (rl.rlim_cur < b + 16)
			b = rl.rlim_cur > 16 ? rl.rlim_cur - 16 : 0;
	}
	return b > most ? most : (unsigned)b;
}

void cage_caps(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2] = {{0}};
	uint32_t keep = (1u << CAP_SYS_ADMIN) | (1u << CAP_DAC_READ_SEARCH);

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die("set no_new_privs", errno, NULL);
	for (unsigned cap = 0;; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno == EINVAL)
			break;
	data[0].permitted = data[0].effective = keep;
	if (syscall(SYS_capset, &hdr, data))
		die("drop capabilities", errno, NULL);
}

/* What the process calls once it watches, and nothing else.  Other calls
 * fail (EPERM, then a message and the jail ends); another architecture's
 * are killed.  The numbers are musl's SYS_*, the
 * same that built this code. */
#if defined(__x86_64__)
#define CAGE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define CAGE_ARCH AUDIT_ARCH_AARCH64
#endif
void cage_filter(void)
{
#ifdef CAGE_ARCH
	static const unsigned allowed[] = {
	    SYS_read,       SYS_write,      SYS_close,
	    SYS_openat,     SYS_newfstatat, SYS_fstatfs,
	    SYS_getdents64, SYS_fchdir,     SYS_inotify_add_watch,
	    SYS_open_tree,  SYS_move_mount, SYS_mount_setattr,
	    SYS_mkdirat,    SYS_mknodat,    SYS_exit,
	    SYS_exit_group,
#ifdef SYS_fstat
	    SYS_fstat,
#endif
	};
	enum { N = sizeof(allowed) / sizeof(allowed[0]) };
	struct sock_filter f[4 + N + 2];
	unsigned k = 0;

	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	                                      offsetof(struct seccomp_data, arch));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CAGE_ARCH, 1, 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	                                      offsetof(struct seccomp_data, nr));
	/* Each match jumps to the ALLOW at the end; x32's numbers (bit
	 * 30) match none. */
	for (unsigned i = 0; i < N; i++)
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, allowed[i],
		                                      (uint8_t)(N - i), 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = {(unsigned short)k, f};

	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		die("install the seccomp filter of the process that covers new names", errno, NULL);
#endif
}

/* Every descriptor but stderr and keep[]: pid 1's socket to the parent,
 * the plan's sources and the caller's stdin are not this process's. */
void cage_fds(int *keep, unsigned n)
{
	unsigned lo = 3;

	for (unsigned i = 0; i < n; i++)
		for (unsigned j = i + 1; j < n; j++)
			if (keep[j] < keep[i]) {
				int t = keep[i];

				keep[i] = keep[j];
				keep[j] = t;
			}
	for (unsigned i = 0; i <= n; i++) {
		unsigned hi = i < n ? (unsigned)keep[i] : ~0U;

		if (hi < lo)
			continue;
		if (hi > lo && syscall(SYS_close_range, lo, i < n ? hi - 1 : ~0U, 0U))
			die("close inherited file descriptors", errno, NULL);
		lo = hi + 1;
	}
	for (int fd = 0; fd < 2; fd++) {
		bool kept = false;

		for (unsigned i = 0; i < n; i++)
			kept |= keep[i] == fd;
		if (!kept)
			close(fd);
	}
}
