/* test_landlock.c: what the ruleset handles on each ABI
 * (stub/confine/landlock.c), the part that needs no kernel: this machine's Landlock
 * may be older than ABI 9, whose resolve_unix right is checked here as the
 * table builds it.  The kernel-facing half (a rule on a socket's bind) is
 * in tests/unit/root/test_plan.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "confine/confine.h"

#define RESOLVE_UNIX (1ULL << 16) /* LANDLOCK_ACCESS_FS_RESOLVE_UNIX, ABI 9 */

noreturn void diep(const char *step, const char *what, int err, const char *hint)
{
	(void)step, (void)what, (void)err, (void)hint;
	fail();
	abort();
}

noreturn void die(const char *step, int err, const char *hint)
{
	diep(step, NULL, err, hint);
}

static void handled_by_abi(void **state)
{
	(void)state;
	assert_int_equal(landlock_fs_handled(0, AJ_NET_NONE), 0);
	assert_int_equal(landlock_fs_handled(1, AJ_NET_NONE), AJ_LL_MAKE_SYM * 2 - 1);
	assert_int_equal(landlock_fs_handled(7, AJ_NET_NONE), AJ_LL_RIGHTS_ALL);
	/* ABI 8 adds a flag, no right. */
	assert_int_equal(landlock_fs_handled(8, AJ_NET_NONE), AJ_LL_RIGHTS_ALL);
	assert_int_equal(landlock_fs_handled(9, AJ_NET_NONE), AJ_LL_RIGHTS_ALL | RESOLVE_UNIX);
	/* A newer kernel: the newest ABI the table knows. */
	assert_int_equal(landlock_fs_handled(12, AJ_NET_NONE), AJ_LL_RIGHTS_ALL | RESOLVE_UNIX);
}

/* Without the host's network every mode but host handles resolve_unix;
 * with it, the covers are not made either (sockets.c). */
static void resolve_unix_by_network(void **state)
{
	(void)state;
	assert_true(landlock_fs_handled(9, AJ_NET_NONE) & RESOLVE_UNIX);
	assert_true(landlock_fs_handled(9, AJ_NET_LOOPBACK) & RESOLVE_UNIX);
	assert_true(landlock_fs_handled(9, AJ_NET_BLOCKED) & RESOLVE_UNIX);
	assert_true(landlock_fs_handled(9, AJ_NET_ALLOW) & RESOLVE_UNIX);
	assert_false(landlock_fs_handled(9, AJ_NET_HOST) & RESOLVE_UNIX);
	assert_int_equal(landlock_fs_handled(9, AJ_NET_HOST), AJ_LL_RIGHTS_ALL);
}

/* Granted on a socket only, and only where handled. */
static void bind_extra_on_sockets(void **state)
{
	uint64_t h9 = landlock_fs_handled(9, AJ_NET_NONE), h7 = landlock_fs_handled(7, AJ_NET_NONE);

	(void)state;
	assert_int_equal(landlock_bind_extra(h9, S_IFSOCK | 0777), RESOLVE_UNIX);
	assert_int_equal(landlock_bind_extra(h9, S_IFREG | 0644), 0);
	assert_int_equal(landlock_bind_extra(h9, S_IFDIR | 0755), 0);
	assert_int_equal(landlock_bind_extra(h7, S_IFSOCK | 0777), 0);
	assert_int_equal(landlock_bind_extra(landlock_fs_handled(9, AJ_NET_HOST), S_IFSOCK), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(handled_by_abi),
	    cmocka_unit_test(resolve_unix_by_network),
	    cmocka_unit_test(bind_extra_on_sockets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
