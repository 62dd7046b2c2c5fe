/* compiler/test_verdict.c: the stub's own reading of a filter
 * (stub/notify/verdict.c), with which its parent answers a refused call, gives
 * the verdict the tests' interpreter gives (bpf_run.h, itself checked
 * against the kernel in test_compiler_seccomp), for the first filter of
 * every shipped variant and a grid of calls: every number, both
 * architectures and a foreign one, and the arguments the rules look at.
 * Every instruction of those filters must be one verdict.c knows, or the
 * stub would install them without a listener and report nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bpf_run.h"
#include "diag.h"
#include "model.h"
#include "notify/notify.h"

#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(struct seccomp_data) == sizeof(struct aj_seccomp_data), "seccomp_data");

static const uint64_t arg_values[] = {
    0,
    1,
    2,
    0x5412,
    0x541c,
    0x5423,
    0xdead00005412ULL,
    0x10,
    0x11,
    0x1f,
    0x26,
    0x28,
    0xf,
    12,
    0x7e020080,
    0x10000000,
    0x20000000,
    0x40000000,
    0x00020000,
    0x80,
    0xffffffffULL,
    0xffffffffffffffffULL,
    0x100000000ULL,
};

static unsigned compare(const char *policy, const struct variant *v)
{
	const struct m_filter *mf = &v->filters.v[0];
	struct aj_filter f = {mf->insns.v, (uint16_t)mf->insns.n};
	static const uint32_t arches[] = {AJ_AUDIT_ARCH_X86_64, AJ_AUDIT_ARCH_I386, 0x12345678};
	unsigned bad = 0, n = 0;

	if (!verdict_known(&f)) {
		print_error("%s/%s/%s: an instruction verdict.c does not know\n", policy,
		            v->command[0] ? v->command : "-", v->mode);
		return 1;
	}
	for (unsigned a = 0; a < 3; a++)
		for (int nr = 0; nr < 520; nr++)
			for (size_t k = 0; k < sizeof(arg_values) / sizeof(arg_values[0]); k++)
				for (int pos = 0; pos < 3; pos++) {
					struct aj_seccomp_data d = {.nr = nr, .arch = arches[a]};
					struct seccomp_data sd;
					uint32_t want, got;

					d.args[pos] = arg_values[k];
					memcpy(&sd, &d, sizeof(sd));
					want = bpf_run(mf->insns.v, mf->insns.n, &d);
					got = verdict_run(&f, &sd);
					n++;
					if (want != got && bad++ < 5)
						print_error(
						    "%s/%s/%s: nr %d arch 0x%x arg%d 0x%llx: "
						    "0x%08x, expected 0x%08x\n",
						    policy, v->command[0] ? v->command : "-",
						    v->mode, nr, arches[a], pos,
						    (unsigned long long)arg_values[k], got, want);
				}
	(void)n;
	return bad;
}

static void shipped(void **state)
{
	static const char *const policies[] = {"jail", "python", "npm",     "pip",
	                                       "uv",   "cargo",  "browser", "worker"};
	unsigned bad = 0, variants = 0;

	(void)state;
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
		for (size_t i = 0; i < c.variants.n; i++, variants++)
			bad += compare(policies[p], &c.variants.v[i]);
		ast_arena_free();
		diag_reset();
	}
	print_message("compared %u variants' first filters\n", variants);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(shipped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
