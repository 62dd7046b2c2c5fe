/* filter.c: aijail-keys's own seccomp filter, installed once the system's
 * store is read: what parses the jail's TLS and HTTP may read, write,
 * poll, pass descriptors it was given, fork a child per connection and
 * draw randomness; it may not open a file, make a socket, connect, exec or
 * trace.  A call outside the list kills it (the jail's connections end;
 * the stub's proxy goes on). */
#include <errno.h>
#include <stddef.h>
#include <signal.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define KEYS_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define KEYS_ARCH AUDIT_ARCH_AARCH64
#endif

void keys_filter(void);

#define ALLOW(nr)                                                                                  \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1),                                           \
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

void keys_filter(void)
{
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, KEYS_ARCH, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#ifdef __x86_64__
	    /* x32's numbers are the same calls with a bit set: not ours. */
	    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	    ALLOW(SYS_poll),
	    ALLOW(SYS_fork),
#endif
	    ALLOW(SYS_read),
	    ALLOW(SYS_write),
	    ALLOW(SYS_sendto),
	    ALLOW(SYS_recvfrom),
	    ALLOW(SYS_sendmsg),
	    ALLOW(SYS_recvmsg),
	    ALLOW(SYS_ppoll),
	    ALLOW(SYS_close),
	    ALLOW(SYS_fcntl),
	    ALLOW(SYS_exit),
	    ALLOW(SYS_exit_group),
	    ALLOW(SYS_getrandom),
	    ALLOW(SYS_brk),
	    ALLOW(SYS_munmap),
	    ALLOW(SYS_mremap),
	    ALLOW(SYS_madvise),
	    ALLOW(SYS_clock_gettime),
	    ALLOW(SYS_gettid),
	    ALLOW(SYS_getpid),
	    ALLOW(SYS_rt_sigprocmask),
	    ALLOW(SYS_rt_sigreturn),
	    /* clone as fork does it (no thread, no namespace): SIGCHLD alone. */
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 3),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SIGCHLD, 0, 5),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	    /* mmap without PROT_EXEC: malloc's, never new code. */
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mmap, 0, 3),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
	    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog)) {
		static const char m[] = "aijail-keys: fatal: unable to install its filter\n";

		(void)!write(2, m, sizeof(m) - 1);
		_exit(125);
	}
}
