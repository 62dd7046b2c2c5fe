/* test_summary.c: the words of the refusal summary (stub/notify/summary.c):
 * counts and plurals, names once each, the first RF_SHOWN of them, and
 * nothing at all when nothing was refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "notify/notify.h"

static struct refusal_list conns, calls;
static char conn_store[RF_SHOWN][AJ_HOST_MAX], call_store[RF_SHOWN][AJ_HOST_MAX];
static char line[1024];

static int setup(void **state)
{
	(void)state;
	memset(&conns, 0, sizeof(conns));
	memset(&calls, 0, sizeof(calls));
	return 0;
}

static const char *summary(void)
{
	summary_line(line, sizeof(line), "jail-npm", &conns, &calls);
	return line;
}

static void nothing_is_quiet(void **state)
{
	(void)state;
	assert_int_equal(summary_line(line, sizeof(line), "jail-npm", &conns, &calls), 0);
	assert_string_equal(line, "");
}

static void the_issue_example(void **state)
{
	(void)state;
	summary_add(&conns, "x:443", conn_store);
	summary_add(&conns, "y:80", conn_store);
	summary_add(&calls, "ptrace", call_store);
	assert_string_equal(summary(),
	                    "jail-npm: refused 2 connections (x:443, y:80) and 1 call (ptrace)\n");
}

static void singular_and_one_kind(void **state)
{
	(void)state;
	summary_add(&conns, "x:443", conn_store);
	assert_string_equal(summary(), "jail-npm: refused 1 connection (x:443)\n");
	setup(NULL);
	summary_add(&calls, "ptrace", call_store);
	summary_add(&calls, "keyctl", call_store);
	assert_string_equal(summary(), "jail-npm: refused 2 calls (ptrace, keyctl)\n");
}

/* Every refusal counts; a name is given once. */
static void names_once(void **state)
{
	(void)state;
	for (int i = 0; i < 3; i++)
		summary_add(&calls, "ptrace", call_store);
	assert_int_equal(calls.shown, 1);
	assert_string_equal(summary(), "jail-npm: refused 3 calls (ptrace)\n");
}

static void more_names_than_shown(void **state)
{
	static const char *const names[] = {"a:1", "b:2", "c:3", "d:4", "e:5", "f:6"};

	(void)state;
	for (unsigned i = 0; i < 6; i++)
		summary_add(&conns, names[i], conn_store);
	summary_add(&conns, "a:1", conn_store);
	assert_int_equal(conns.n, 7);
	assert_int_equal(conns.shown, RF_SHOWN);
	assert_string_equal(summary(), "jail-npm: refused 7 connections (a:1, b:2, c:3, d:4, …)\n");
}

/* A name longer than the store is counted, not kept. */
static void long_name(void **state)
{
	char big[AJ_HOST_MAX + 10];

	(void)state;
	memset(big, 'h', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	summary_add(&conns, big, conn_store);
	assert_string_equal(summary(), "jail-npm: refused 1 connection (…)\n");
}

/* A small buffer truncates, never overflows. */
static void small_buffer(void **state)
{
	char small[16];

	(void)state;
	summary_add(&calls, "ptrace", call_store);
	summary_line(small, sizeof(small), "jail-npm", &conns, &calls);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_memory_equal(small, "jail-npm: refus", 15);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(nothing_is_quiet, setup),
	    cmocka_unit_test_setup(the_issue_example, setup),
	    cmocka_unit_test_setup(singular_and_one_kind, setup),
	    cmocka_unit_test_setup(names_once, setup),
	    cmocka_unit_test_setup(more_names_than_shown, setup),
	    cmocka_unit_test_setup(long_name, setup),
	    cmocka_unit_test_setup(small_buffer, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
