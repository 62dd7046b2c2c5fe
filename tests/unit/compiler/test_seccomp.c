/* compiler/test_seccomp.c: the verification table.  Every shipped policy is
 * compiled, and for every command group x mode each row of the table is run
 * in a child process under the real emitted filters (and, separately,
 * through the BPF interpreter), so a change in code generation that weakens
 * a rule fails here.
 *
 * Run as root, the test first drops to nobody: the table must hold for an
 * unprivileged caller.  Each child also enters a new user and mount
 * namespace before installing the filters, so a call the filter wrongly
 * lets through (mount, reboot…) acts on nothing of the host. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bpf_run.h"
#include "diag.h"
#include "model.h"
#include "compiler/nestable.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

enum expect {
	ALLOWED,  /* the kernel answers: the errno in .kernel (0: success) */
	DENIED,   /* the filter answers with .err */
	KILLED,   /* SIGSYS */
};

struct row {
	const char *what;
	long nr;
	uint64_t a[6];
	int abi;        /* 0 native, 32 int 0x80 */
	enum expect normal; /* under a denylist (normal, worker) */
	enum expect lock;   /* under lockdown's allowlist */
	int err;        /* the filter's errno when DENIED */
	int kernel;     /* the kernel's errno when ALLOWED, -1: any but err */
};

#define BAD ((uint64_t)-1)

static const struct row table[] = {
	{"getpid", SYS_getpid, {0}, 0, ALLOWED, ALLOWED, 0, 0},
	{"read(-1)", SYS_read, {BAD, 0, 0}, 0, ALLOWED, ALLOWED, 0, EBADF},
	{"ioctl(-1, TCGETS)", SYS_ioctl, {BAD, TCGETS, 0}, 0, ALLOWED, ALLOWED, 0, EBADF},
	{"ioctl(-1, TIOCSTI)", SYS_ioctl, {BAD, TIOCSTI, 0}, 0, DENIED, DENIED, EPERM, 0},
	{"ioctl(-1, TIOCSTI|0xdead00000000)", SYS_ioctl, {BAD, 0xdead00000000ULL | TIOCSTI, 0}, 0,
	 DENIED, DENIED, EPERM, 0},
	{"ioctl(-1, TIOCLINUX)", SYS_ioctl, {BAD, TIOCLINUX, 0}, 0, DENIED, DENIED, EPERM, 0},
	{"ioctl(-1, TIOCSETD)", SYS_ioctl, {BAD, TIOCSETD, 0}, 0, DENIED, DENIED, EPERM, 0},
	{"ptrace(PEEKDATA, 1)", SYS_ptrace, {PTRACE_PEEKDATA, 1, 0, 0}, 0, DENIED, DENIED, EPERM, 0},
	{"process_vm_readv", SYS_process_vm_readv, {1, 0, 0, 0, 0, 0}, 0, DENIED, DENIED, EPERM, 0},
	{"io_uring_setup", SYS_io_uring_setup, {0, 0}, 0, DENIED, DENIED, EPERM, 0},
	{"io_uring_enter", SYS_io_uring_enter, {BAD, 0, 0, 0, 0, 0}, 0, DENIED, DENIED, EPERM, 0},
	{"userfaultfd", SYS_userfaultfd, {0}, 0, DENIED, DENIED, EPERM, 0},
	{"unshare(CLONE_NEWUSER)", SYS_unshare, {CLONE_NEWUSER}, 0, DENIED, DENIED, EPERM, 0},
	{"unshare(CLONE_NEWNET|high bits)", SYS_unshare, {0xff00000000ULL | CLONE_NEWNET}, 0, DENIED,
	 DENIED, EPERM, 0},
	{"unshare(CLONE_NEWUSER|CLONE_NEWIPC)", SYS_unshare, {CLONE_NEWUSER | CLONE_NEWIPC}, 0,
	 DENIED, DENIED, EPERM, 0},
	{"clone(CLONE_NEWUSER|CLONE_FS)", SYS_clone, {CLONE_NEWUSER | CLONE_FS, 0, 0, 0, 0}, 0,
	 DENIED, DENIED, EPERM, 0},
	{"chroot(\"/\")", SYS_chroot, {(uint64_t)(uintptr_t)"/"}, 0, DENIED, DENIED, EPERM, 0},
	{"clone(CLONE_NEWNS|CLONE_FS)", SYS_clone, {CLONE_NEWNS | CLONE_FS, 0, 0, 0, 0}, 0, DENIED,
	 DENIED, EPERM, 0},
	{"clone3", SYS_clone3, {0, 0}, 0, DENIED, DENIED, ENOSYS, 0},
	{"setns(-1)", SYS_setns, {BAD, 0}, 0, DENIED, DENIED, EPERM, 0},
	{"mount", SYS_mount, {0, 0, 0, 0, 0}, 0, DENIED, DENIED, EPERM, 0},
	{"umount2", SYS_umount2, {0, 0}, 0, DENIED, DENIED, EPERM, 0},
	{"open_tree", SYS_open_tree, {BAD, 0, 0}, 0, DENIED, DENIED, EPERM, 0},
	{"fsopen", SYS_fsopen, {0, 0}, 0, DENIED, DENIED, EPERM, 0},
	{"move_mount", SYS_move_mount, {BAD, 0, BAD, 0, 0}, 0, DENIED, DENIED, EPERM, 0},
	{"pivot_root", SYS_pivot_root, {0, 0}, 0, DENIED, DENIED, EPERM, 0},
	{"open_tree_attr (467)", 467, {BAD, 0, 0, 0, 0}, 0, DENIED, DENIED, EPERM, 0},
	{"init_module", SYS_init_module, {0, 0, 0}, 0, DENIED, DENIED, EPERM, 0},
	{"finit_module(-1)", SYS_finit_module, {BAD, 0, 0}, 0, DENIED, DENIED, EPERM, 0},
	{"kexec_load", SYS_kexec_load, {0, 0, 0, 0}, 0, DENIED, DENIED, EPERM, 0},
	{"reboot(bad magic)", SYS_reboot, {0, 0, 0, 0}, 0, DENIED, DENIED, EPERM, 0},
	{"swapon", SYS_swapon, {0, 0}, 0, DENIED, DENIED, EPERM, 0},
	{"keyctl", SYS_keyctl, {BAD, 0, 0, 0, 0}, 0, DENIED, DENIED, EPERM, 0},
	{"add_key", SYS_add_key, {0, 0, 0, 0, 0}, 0, DENIED, DENIED, EPERM, 0},
	{"bpf", SYS_bpf, {BAD, 0, 0}, 0, DENIED, DENIED, EPERM, 0},
	{"perf_event_open", SYS_perf_event_open, {0, 0, BAD, BAD, 0}, 0, DENIED, DENIED, EPERM, 0},
	{"open_by_handle_at", SYS_open_by_handle_at, {BAD, 0, 0}, 0, DENIED, DENIED, EPERM, 0},
	{"name_to_handle_at", SYS_name_to_handle_at, {BAD, 0, 0, 0, 0}, 0, DENIED, DENIED, EPERM, 0},
	{"settimeofday", SYS_settimeofday, {0, 0}, 0, DENIED, DENIED, EPERM, 0},
	{"iopl", SYS_iopl, {3}, 0, DENIED, DENIED, EPERM, 0},
	{"socket(AF_PACKET)", SYS_socket, {AF_PACKET, SOCK_RAW, 0}, 0, DENIED, DENIED, EAFNOSUPPORT,
	 0},
	{"socket(AF_VSOCK)", SYS_socket, {AF_VSOCK, SOCK_STREAM, 0}, 0, DENIED, DENIED, EAFNOSUPPORT,
	 0},
	{"socket(AF_UNIX)", SYS_socket, {AF_UNIX, SOCK_STREAM, 0}, 0, ALLOWED, ALLOWED, 0, 0},
	/* Outside @system-service: only lockdown's allowlist refuses it. */
	{"pkey_alloc", SYS_pkey_alloc, {BAD, 0}, 0, ALLOWED, DENIED, EPERM, -1},
	/* Newer than libseccomp 2.5.4's table (setxattrat, Linux 6.13). */
	{"syscall[463]", 463, {BAD, 0, 0, 0, 0, 0}, 0, ALLOWED, DENIED, EPERM, -1},
	{"x32 getpid", 0x40000000 | SYS_getpid, {0}, 0, KILLED, KILLED, 0, 0},
	{"int 0x80 getpid", 20, {0}, 32, KILLED, KILLED, 0, 0},
};

static bool allowed_by_namespaces(const struct variant *v, const struct row *r, bool lockdown)
{
	return nestable_allowed(v->ns_allow, r->what, lockdown);
}

static long int80(long nr)
{
	long ret;
	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr) : "memory");
	return ret;
}

/* Whether int 0x80 reaches the kernel's i386 entry here: asked of a child
 * under no filter.  A kernel without IA32 emulation (CONFIG_IA32_EMULATION=n,
 * or ia32_emulation=false on its command line) has no such entry: the
 * instruction faults (SIGSEGV) before any filter is asked, so the live i386
 * rows cannot be run there; the interpreter still runs them. */
static const char *no_ia32;

static void probe_ia32(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		/* cmocka's handler would take the fault and run the tests on in
		 * this child. */
		signal(SIGSEGV, SIG_DFL);
		_exit(int80(20) == getpid() ? 0 : 1);
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return;
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV)
		no_ia32 = "this kernel has no IA32 emulation (int 0x80 getpid under no filter: "
			  "SIGSEGV; CONFIG_IA32_EMULATION=n or ia32_emulation=false)";
}

/* 0: success, an errno, or 1000 + signal. */
static int run_live(const struct variant *v, const struct row *r)
{
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
			_exit(250);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
			_exit(251);
		for (size_t i = 0; i < v->filters.n; i++) {
			struct sock_fprog prog = {(unsigned short)v->filters.v[i].insns.n,
						  (struct sock_filter *)v->filters.v[i].insns.v};
			if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
				_exit(252);
		}
		long ret = r->abi == 32 ? int80(r->nr)
					: syscall(r->nr, r->a[0], r->a[1], r->a[2], r->a[3], r->a[4],
						  r->a[5]);
		if (r->abi == 32)
			_exit(ret < 0 ? (int)-ret : 0);
		_exit(ret < 0 ? errno : 0);
	}
	int st;
	waitpid(pid, &st, 0);
	return WIFSIGNALED(st) ? 1000 + WTERMSIG(st) : WEXITSTATUS(st);
}

static uint32_t run_interp(const struct variant *v, const struct row *r)
{
	struct aj_seccomp_data d = {.nr = (int)r->nr,
				    .arch = r->abi == 32 ? AJ_AUDIT_ARCH_I386 : AJ_AUDIT_ARCH_X86_64};
	memcpy(d.args, r->a, sizeof(d.args));
	uint32_t best = AJ_RET_ALLOW;
	for (size_t i = 0; i < v->filters.n; i++)
		best = bpf_merge(best, bpf_run(v->filters.v[i].insns.v, v->filters.v[i].insns.n, &d));
	return best;
}

static int failures;

static void check_variant(const char *policy, const struct variant *v)
{
	bool lockdown = strcmp(v->mode, "lockdown") == 0;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const struct row *r = &table[i];
		enum expect e = lockdown ? r->lock : r->normal;
		/* A kind 'namespaces' allows is the kernel's to answer. */
		bool nested = allowed_by_namespaces(v, r, lockdown);
		if (nested)
			e = ALLOWED;
		bool live_skipped = r->abi == 32 && no_ia32;
		int live = live_skipped ? 0 : run_live(v, r);
		uint32_t interp = run_interp(v, r);
		bool ok;
		switch (e) {
		case KILLED:
			ok = (live_skipped || live == 1000 + SIGSYS) &&
			     interp == AJ_RET_KILL_PROCESS;
			break;
		case DENIED:
			ok = live == r->err && interp == AJ_RET_ERRNO((uint32_t)r->err);
			break;
		default:
			ok = interp == AJ_RET_ALLOW && live < 250 &&
			     (nested || (r->kernel == -1 ? live != r->err : live == r->kernel));
		}
		/* What a run reports (aj_variant.refused): every call its
		 * first filter refuses with an errno but ENOSYS, no other. */
		bool listed = false;
		for (size_t k = 0; k < v->refused.n; k++)
			listed |= v->refused.v[k] == r->nr;
		if (!r->abi && !nested && v->sys_default == M_ACT_ALLOW && e == DENIED &&
		    (r->err == ENOSYS) == listed) {
			print_error("%s/%s/%s: %s: %s the reported calls\n", policy,
				    v->command[0] ? v->command : "-", v->mode, r->what,
				    listed ? "wrongly in" : "missing from");
			failures++;
		}
		if (!ok) {
			print_error("%s/%s/%s: %s: expected %s%s%s, got %s%s (interpreter 0x%08x)\n",
				    policy, v->command[0] ? v->command : "-", v->mode, r->what,
				    e == KILLED ? "SIGSYS" : e == DENIED ? "filter " : "kernel ",
				    e == DENIED    ? strerror(r->err)
				    : e == ALLOWED ? (r->kernel > 0 ? strerror(r->kernel) : "answer")
						   : "",
				    "", live >= 1000 ? "signal " : "",
				    live >= 1000 ? strsignal(live - 1000) : live ? strerror(live) : "success",
				    interp);
			failures++;
		}
	}
}

static void verify_shipped(void **state)
{
	(void)state;
	static const char *const policies[] = {"jail", "python", "npm", "pip", "uv", "cargo",
					       "browser", "worker"};
	int variants = 0;
	probe_ia32();
	for (size_t p = 0; p < sizeof(policies) / sizeof(policies[0]); p++) {
		static const char *dirs[] = {"policies"};
		struct program prog;
		struct compiled c;
		load_init(&prog, dirs, 1);
		char path[64];
		snprintf(path, sizeof(path), "policies/%s.aj", policies[p]);
		assert_true(load_program(&prog, path, NULL));
		assert_true(load_resolve(&prog));
		assert_true(compile_policy(&prog, prog.last_in_main, &c));
		for (size_t i = 0; i < c.variants.n; i++, variants++)
			check_variant(policies[p], &c.variants.v[i]);
		ast_arena_free();
		diag_reset();
	}
	print_message("verified %d variants x %zu rows, live and interpreted\n", variants,
		      sizeof(table) / sizeof(table[0]));
	if (no_ia32)
		print_message("SKIP live int 0x80 rows (interpreted only): %s\n", no_ia32);
	assert_int_equal(failures, 0);
}

int main(void)
{
	/* The table must hold for an unprivileged caller. */
	if (geteuid() == 0 && (setgroups(0, NULL) != 0 || setresgid(65534, 65534, 65534) != 0 ||
			       setresuid(65534, 65534, 65534) != 0)) {
		perror("test_compiler_seccomp: cannot drop to nobody");
		return 1;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(verify_shipped),
	};
	return cmocka_run_group_tests_name("seccomp verification", tests, NULL, NULL);
}
