/* test_contract.c: the contract's own tables (stub/base/contract.c, from
 * aj_table.h's lists): every mount op has a name of its own and says what
 * it makes, a number that is no op reads as AJ_MOUNT_NONE's row (the plan
 * refuses it), and the properties the plan, the fallback and explain ask
 * only go with the kinds that have them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "base/base.h"

static void every_op_named_and_kinded(void **state)
{
	(void)state;
	assert_null(aj_op(AJ_MOUNT_NONE)->name);
	assert_int_equal(aj_op(AJ_MOUNT_NONE)->make, AJ_MAKE_NONE);
	for (unsigned op = AJ_MOUNT_NONE + 1; op < AJ_MOUNT_OP_COUNT; op++) {
		assert_non_null(aj_op(op)->name);
		assert_int_not_equal(aj_op(op)->make, AJ_MAKE_NONE);
		for (unsigned o = AJ_MOUNT_NONE + 1; o < op; o++)
			assert_string_not_equal(aj_op(o)->name, aj_op(op)->name);
	}
	/* SCRATCH and TMPFS are told apart (--jail-explain). */
	assert_string_equal(aj_op(AJ_MOUNT_TMPFS)->name, "tmpfs");
	assert_string_equal(aj_op(AJ_MOUNT_SCRATCH)->name, "scratch");
}

static void no_op_is_none(void **state)
{
	(void)state;
	assert_ptr_equal(aj_op(AJ_MOUNT_OP_COUNT), aj_op(AJ_MOUNT_NONE));
	assert_ptr_equal(aj_op(255), aj_op(AJ_MOUNT_NONE));
	assert_false(aj_op_binds(255));
	assert_false(aj_op_is(255, AJ_OP_WRITES | AJ_OP_TREE | AJ_OP_ROOT_DIR));
}

/* Only a bind writes a host's tree; only what can be made in the root's
 * own tmpfs is a directory of it; RO never writes. */
static void properties_go_with_their_kinds(void **state)
{
	(void)state;
	for (unsigned op = 0; op < AJ_MOUNT_OP_COUNT; op++) {
		unsigned make = aj_op(op)->make;

		if (aj_op_is(op, AJ_OP_WRITES))
			assert_int_equal(make, AJ_MAKE_BIND);
		if (aj_op_is(op, AJ_OP_ROOT_DIR))
			assert_true(make == AJ_MAKE_TMPFS || make == AJ_MAKE_DEV);
		if (make == AJ_MAKE_BIND)
			assert_true(aj_op_is(op, AJ_OP_TREE));
	}
	assert_true(aj_op_binds(AJ_MOUNT_RO) && !aj_op_is(AJ_MOUNT_RO, AJ_OP_WRITES));
	assert_true(aj_op_binds(AJ_MOUNT_RW) && aj_op_is(AJ_MOUNT_RW, AJ_OP_WRITES));
	assert_false(aj_op_is(AJ_MOUNT_TMPFS, AJ_OP_ROOT_DIR | AJ_OP_TREE));
}

static void toggles_named(void **state)
{
	(void)state;
	for (unsigned t = 0; t < AJ_TOGGLE_COUNT; t++) {
		assert_non_null(aj_toggle_names[t]);
		for (unsigned o = 0; o < t; o++)
			assert_string_not_equal(aj_toggle_names[o], aj_toggle_names[t]);
	}
	assert_string_equal(aj_toggle_names[AJ_TOGGLE_GPU], "gpu");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_op_named_and_kinded),
	    cmocka_unit_test(no_op_is_none),
	    cmocka_unit_test(properties_go_with_their_kinds),
	    cmocka_unit_test(toggles_named),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
