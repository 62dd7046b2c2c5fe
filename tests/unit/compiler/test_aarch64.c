/* compiler/test_aarch64.c: the filters aijail-compile --arch=aarch64 emits,
 * for every command group x mode of every shipped policy, under the tests'
 * BPF interpreter (bpf_run.h): test_seccomp.c's verification table with
 * aarch64's numbers (aarch64_nr.c, the kernel's generic table), the
 * architecture check (AUDIT_ARCH_AARCH64 passes, AArch32, x86_64, i386 and
 * an unknown one kill the process in every filter), the calls a run reports,
 * the stub's own reading of the first filter (verdict.c) against the
 * interpreter, and the header's guard against a stub of another machine.
 * No aarch64 kernel here: make check-aarch64 runs the stubs on one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "aarch64_nr.h"
#include "bpf_run.h"
#include "diag.h"
#include "emit.h"
#include "model.h"
#include "notify/notify.h"
#include "sysnames.h"
#include "compiler/nestable.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>

#define AUDIT_AARCH64 0xc00000b7u
#define AUDIT_ARM     0x40000028u

enum expect { ALLOWED, DENIED, KILLED };

struct row {
	const char *what;
	const long *nr;
	long add; /* added to *nr: the x32 bit */
	uint64_t a[6];
	enum expect normal, lock;
	int err;
};

#define BAD   ((uint64_t)-1)
#define N_(x) (&a64_nr.x)

static const struct row table[] = {
    {"getpid", N_(getpid), 0, {0}, ALLOWED, ALLOWED, 0},
    {"read(-1)", N_(read), 0, {BAD, 0, 0}, ALLOWED, ALLOWED, 0},
    {"openat", N_(openat), 0, {BAD, 0, 0}, ALLOWED, ALLOWED, 0},
    {"ioctl(-1, TCGETS)", N_(ioctl), 0, {BAD, TCGETS, 0}, ALLOWED, ALLOWED, 0},
    {"ioctl(-1, TIOCSTI)", N_(ioctl), 0, {BAD, TIOCSTI, 0}, DENIED, DENIED, EPERM},
    {"ioctl(-1, TIOCSTI|0xdead00000000)",
     N_(ioctl),
     0,
     {BAD, 0xdead00000000ULL | TIOCSTI, 0},
     DENIED,
     DENIED,
     EPERM},
    {"ioctl(-1, TIOCLINUX)", N_(ioctl), 0, {BAD, TIOCLINUX, 0}, DENIED, DENIED, EPERM},
    {"ioctl(-1, TIOCSETD)", N_(ioctl), 0, {BAD, TIOCSETD, 0}, DENIED, DENIED, EPERM},
    {"ptrace(PEEKDATA, 1)", N_(ptrace), 0, {PTRACE_PEEKDATA, 1}, DENIED, DENIED, EPERM},
    {"process_vm_readv", N_(process_vm_readv), 0, {1}, DENIED, DENIED, EPERM},
    {"io_uring_setup", N_(io_uring_setup), 0, {0}, DENIED, DENIED, EPERM},
    {"io_uring_enter", N_(io_uring_enter), 0, {BAD}, DENIED, DENIED, EPERM},
    {"userfaultfd", N_(userfaultfd), 0, {0}, DENIED, DENIED, EPERM},
    {"unshare(CLONE_NEWUSER)", N_(unshare), 0, {CLONE_NEWUSER}, DENIED, DENIED, EPERM},
    {"unshare(CLONE_NEWNET|high bits)",
     N_(unshare),
     0,
     {0xff00000000ULL | CLONE_NEWNET},
     DENIED,
     DENIED,
     EPERM},
    {"clone(CLONE_NEWUSER|CLONE_FS)",
     N_(clone),
     0,
     {CLONE_NEWUSER | CLONE_FS},
     DENIED,
     DENIED,
     EPERM},
    {"chroot(\"/\")", N_(chroot), 0, {1}, DENIED, DENIED, EPERM},
    {"clone(CLONE_NEWNS|CLONE_FS)", N_(clone), 0, {CLONE_NEWNS | CLONE_FS}, DENIED, DENIED, EPERM},
    {"clone3", N_(clone3), 0, {0}, DENIED, DENIED, ENOSYS},
    {"setns(-1)", N_(setns), 0, {BAD}, DENIED, DENIED, EPERM},
    {"mount", N_(mount), 0, {0}, DENIED, DENIED, EPERM},
    {"umount2", N_(umount2), 0, {0}, DENIED, DENIED, EPERM},
    {"open_tree", N_(open_tree), 0, {BAD}, DENIED, DENIED, EPERM},
    {"fsopen", N_(fsopen), 0, {0}, DENIED, DENIED, EPERM},
    {"move_mount", N_(move_mount), 0, {BAD, 0, BAD}, DENIED, DENIED, EPERM},
    {"pivot_root", N_(pivot_root), 0, {0}, DENIED, DENIED, EPERM},
    /* Past libseccomp 2.5.4's table, one number on every architecture since
     * 424: the deny must survive the move to aarch64 (bpf.c, retarget). */
    {"open_tree_attr (467)", N_(getpid), 467 - 172, {BAD}, DENIED, DENIED, EPERM},
    {"init_module", N_(init_module), 0, {0}, DENIED, DENIED, EPERM},
    {"finit_module(-1)", N_(finit_module), 0, {BAD}, DENIED, DENIED, EPERM},
    {"kexec_load", N_(kexec_load), 0, {0}, DENIED, DENIED, EPERM},
    {"reboot(bad magic)", N_(reboot), 0, {0}, DENIED, DENIED, EPERM},
    {"swapon", N_(swapon), 0, {0}, DENIED, DENIED, EPERM},
    {"keyctl", N_(keyctl), 0, {BAD}, DENIED, DENIED, EPERM},
    {"add_key", N_(add_key), 0, {0}, DENIED, DENIED, EPERM},
    {"bpf", N_(bpf), 0, {BAD}, DENIED, DENIED, EPERM},
    {"perf_event_open", N_(perf_event_open), 0, {0, 0, BAD, BAD}, DENIED, DENIED, EPERM},
    {"open_by_handle_at", N_(open_by_handle_at), 0, {BAD}, DENIED, DENIED, EPERM},
    {"name_to_handle_at", N_(name_to_handle_at), 0, {BAD}, DENIED, DENIED, EPERM},
    {"settimeofday", N_(settimeofday), 0, {0}, DENIED, DENIED, EPERM},
    {"socket(AF_PACKET)", N_(socket), 0, {AF_PACKET, SOCK_RAW}, DENIED, DENIED, EAFNOSUPPORT},
    {"socket(AF_VSOCK)", N_(socket), 0, {AF_VSOCK, SOCK_STREAM}, DENIED, DENIED, EAFNOSUPPORT},
    {"socket(AF_UNIX)", N_(socket), 0, {AF_UNIX, SOCK_STREAM}, ALLOWED, ALLOWED, 0},
    {"pkey_alloc", N_(pkey_alloc), 0, {BAD}, ALLOWED, DENIED, EPERM},
    /* x86_64's x32 check stays in the moved filter: no aarch64 call has
     * that bit, so a number with it is killed rather than ENOSYS. */
    {"getpid|0x40000000", N_(getpid), 0x40000000, {0}, KILLED, KILLED, 0},
};

static bool nested(const struct variant *v, const struct row *r, bool lockdown)
{
	return nestable_allowed(v->ns_allow, r->what, lockdown);
}

static uint32_t verdict(const struct variant *v, int nr, uint32_t arch, const uint64_t *a)
{
	struct aj_seccomp_data d = {.nr = nr, .arch = arch};
	uint32_t best = AJ_RET_ALLOW;

	if (a)
		memcpy(d.args, a, sizeof(d.args));
	for (size_t i = 0; i < v->filters.n; i++)
		best =
		    bpf_merge(best, bpf_run(v->filters.v[i].insns.v, v->filters.v[i].insns.n, &d));
	return best;
}

static unsigned failures;

#define FAILED(...)                                                                                \
	do {                                                                                       \
		if (failures++ < 20)                                                               \
			print_error(__VA_ARGS__);                                                  \
	} while (0)

static void check_table(const char *policy, const struct variant *v)
{
	bool lockdown = strcmp(v->mode, "lockdown") == 0;
	const char *cmd = v->command[0] ? v->command : "-";

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const struct row *r = &table[i];
		int nr = (int)(*r->nr + r->add);
		enum expect e = nested(v, r, lockdown) ? ALLOWED : lockdown ? r->lock : r->normal;
		uint32_t got = verdict(v, nr, AUDIT_AARCH64, r->a);
		uint32_t want = e == KILLED   ? AJ_RET_KILL_PROCESS
		                : e == DENIED ? AJ_RET_ERRNO((uint32_t)r->err)
		                              : AJ_RET_ALLOW;
		if (got != want)
			FAILED("%s/%s/%s: %s (nr %d): 0x%08x, expected 0x%08x\n", policy, cmd,
			       v->mode, r->what, nr, got, want);
		/* The calls a run reports are aarch64's numbers. */
		bool listed = false;
		for (size_t k = 0; k < v->refused.n; k++)
			listed |= v->refused.v[k] == nr;
		if (!r->add && v->sys_default == M_ACT_ALLOW && e == DENIED &&
		    (r->err == ENOSYS) == listed)
			FAILED("%s/%s/%s: %s: %s the reported calls\n", policy, cmd, v->mode,
			       r->what, listed ? "wrongly in" : "missing from");
	}
}

/* Only aarch64's own calls pass the architecture check, in every filter. */
static void check_arches(const char *policy, const struct variant *v)
{
	static const uint32_t foreign[] = {AUDIT_ARM, AJ_AUDIT_ARCH_X86_64, AJ_AUDIT_ARCH_I386,
	                                   0x12345678};

	for (size_t a = 0; a < sizeof(foreign) / sizeof(foreign[0]); a++)
		for (size_t i = 0; i < v->filters.n; i++) {
			struct aj_seccomp_data d = {.nr = (int)a64_nr.getpid, .arch = foreign[a]};
			uint32_t got =
			    bpf_run(v->filters.v[i].insns.v, v->filters.v[i].insns.n, &d);
			if (got != AJ_RET_KILL_PROCESS)
				FAILED("%s/%s/%s: filter %zu lets arch 0x%x through: 0x%08x\n",
				       policy, v->command[0] ? v->command : "-", v->mode, i,
				       foreign[a], got);
		}
}

/* As test_verdict.c: the stub's own reading of the first filter, which
 * answers a refused call, agrees with the interpreter. */
static void check_verdict(const char *policy, const struct variant *v)
{
	static const uint32_t arches[] = {AUDIT_AARCH64, AUDIT_ARM, AJ_AUDIT_ARCH_X86_64};
	static const uint64_t vals[] = {0,    1,          0x5412,     0xdead00005412ULL,
	                                0x10, 0x10000000, 0x20000000, 0xffffffffffffffffULL};
	const struct m_filter *mf = &v->filters.v[0];
	struct aj_filter f = {mf->insns.v, (uint16_t)mf->insns.n};

	if (!verdict_known(&f)) {
		FAILED("%s/%s: an instruction verdict.c does not know\n", policy, v->mode);
		return;
	}
	for (unsigned a = 0; a < 3; a++)
		for (int nr = 0; nr < 520; nr++)
			for (size_t k = 0; k < sizeof(vals) / sizeof(vals[0]); k++)
				for (int pos = 0; pos < 2; pos++) {
					struct aj_seccomp_data d = {.nr = nr, .arch = arches[a]};
					struct seccomp_data sd;

					d.args[pos] = vals[k];
					memcpy(&sd, &d, sizeof(sd));
					uint32_t want = bpf_run(mf->insns.v, mf->insns.n, &d);
					uint32_t got = verdict_run(&f, &sd);
					if (want != got)
						FAILED("%s/%s: verdict.c nr %d arch 0x%x: 0x%08x, "
						       "expected 0x%08x\n",
						       policy, v->mode, nr, arches[a], got, want);
				}
}

static void shipped(void **state)
{
	static const char *const policies[] = {"jail", "python", "npm",     "pip",
	                                       "uv",   "cargo",  "browser", "worker"};
	unsigned variants = 0;

	(void)state;
	assert_true(sysnames_target_arch_set("aarch64"));
	for (size_t p = 0; p < sizeof(policies) / sizeof(policies[0]); p++) {
		static const char *dirs[] = {"policies"};
		struct program prog;
		struct compiled c;
		char path[64];

		load_init(&prog, dirs, 1);
		snprintf(path, sizeof(path), "policies/%s.aj", policies[p]);
		assert_true(load_program(&prog, path, NULL));
		assert_true(load_resolve(&prog));
		assert_true(compile_policy(&prog, prog.last_in_main, &c));
		for (size_t i = 0; i < c.variants.n; i++, variants++) {
			check_table(policies[p], &c.variants.v[i]);
			check_arches(policies[p], &c.variants.v[i]);
			check_verdict(policies[p], &c.variants.v[i]);
		}
		/* A header for aarch64 compiles nowhere else. */
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		assert_non_null(f);
		assert_true(emit_header(f, &c, path));
		fclose(f);
		if (!strstr(buf, "#ifndef __aarch64__\n#error"))
			FAILED("%s: the header has no guard for aarch64\n", policies[p]);
		free(buf);
		ast_arena_free();
		diag_reset();
	}
	print_message("verified %u aarch64 variants x %zu rows, 4 foreign architectures\n",
	              variants, sizeof(table) / sizeof(table[0]));
	assert_int_equal(failures, 0);
}

/* The same policy compiled for both machines gives every call the two
 * share (by name, and the numbers past libseccomp's table, which are one
 * number everywhere since 424) the same verdict, for every argument the
 * rules look at: only the calls x86_64 alone has fall away. */
#define SAME_VALS 8
static const uint64_t same_vals[SAME_VALS] = {0,          1,          0x5412,     0x10,
                                              0x10000000, 0x20000000, 0x00020000, BAD};

static uint32_t *same_verdicts(const char *arch, const char *policy, size_t *n_variants,
                               const int *nrs, size_t n_nrs)
{
	static const char *dirs[] = {"policies"};
	struct program prog;
	struct compiled c;
	char path[64];
	uint32_t audit = strcmp(arch, "aarch64") ? AJ_AUDIT_ARCH_X86_64 : AUDIT_AARCH64;

	assert_true(sysnames_target_arch_set(arch));
	load_init(&prog, dirs, 1);
	snprintf(path, sizeof(path), "policies/%s.aj", policy);
	assert_true(load_program(&prog, path, NULL));
	assert_true(load_resolve(&prog));
	assert_true(compile_policy(&prog, prog.last_in_main, &c));
	*n_variants = c.variants.n;
	uint32_t *out = calloc(c.variants.n * n_nrs * SAME_VALS * 3, sizeof(*out));
	assert_non_null(out);
	for (size_t i = 0; i < c.variants.n; i++)
		for (size_t k = 0; k < n_nrs; k++)
			for (int a = 0; a < SAME_VALS; a++)
				for (int pos = 0; pos < 3; pos++) {
					uint64_t args[6] = {0};
					args[pos] = same_vals[a];
					out[((i * n_nrs + k) * SAME_VALS + a) * 3 + pos] =
					    verdict(&c.variants.v[i], nrs[k], audit, args);
				}
	ast_arena_free();
	diag_reset();
	return out;
}

static void same_as_x86_64(void **state)
{
	static const char *const policies[] = {"jail", "python", "npm",     "pip",
	                                       "uv",   "cargo",  "browser", "worker"};
	int x86[600], a64[600];
	size_t n = 0, compared = 0;

	(void)state;
	for (int nr = 0; nr < 600 && n < 600; nr++) {
		char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, nr);
		int other = name ? seccomp_syscall_resolve_name_arch(SCMP_ARCH_AARCH64, name)
		            : nr >= 424 && nr < 520 ? nr
		                                    : -1;
		free(name);
		if (other < 0)
			continue;
		x86[n] = nr;
		a64[n++] = other;
	}
	for (size_t p = 0; p < sizeof(policies) / sizeof(policies[0]); p++) {
		size_t nv86, nv64;
		uint32_t *v86 = same_verdicts("x86_64", policies[p], &nv86, x86, n);
		uint32_t *v64 = same_verdicts("aarch64", policies[p], &nv64, a64, n);
		assert_int_equal(nv86, nv64);
		for (size_t i = 0; i < nv86 * n * SAME_VALS * 3; i++, compared++)
			if (v86[i] != v64[i])
				FAILED("%s: variant %zu, x86_64 nr %d / aarch64 nr %d, value %d, "
				       "arg%zu: x86_64 0x%08x, aarch64 0x%08x\n",
				       policies[p], i / (n * SAME_VALS * 3),
				       x86[i / (SAME_VALS * 3) % n], a64[i / (SAME_VALS * 3) % n],
				       (int)(i / 3 % SAME_VALS), i % 3, v86[i], v64[i]);
		free(v86);
		free(v64);
	}
	print_message("compared %zu verdicts of %zu calls both machines have\n", compared, n);
	assert_int_equal(failures, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(shipped),
	    cmocka_unit_test(same_as_x86_64),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
