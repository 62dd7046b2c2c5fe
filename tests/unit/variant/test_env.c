/* test_env.c: the target's environment (stub/variant/env.c, with stub/base/glob.c
 * for the keep patterns and stub/variant/vars.c for the assigned values). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "variant/variant.h"

static const char *const keep[] = {"PATH", "LC_*", "TER?", "HF_*"};
static const struct aj_env_set set[] = {
    {"HOME", {"", AJ_VAR_HOME, ""}},
    {"AIJAIL", {"1", AJ_VAR_NONE, ""}},
    {"CACHE", {"", AJ_VAR_HOME, "/.cache"}},
    {"RUNTIME", {"", AJ_VAR_XDG_RUNTIME_DIR, ""}},
};
static const struct aj_env_span keep_spans[] = {{keep, 2, 0}, {keep + 2, 2, 0}};
static const struct aj_variant variant = {
    .env_keep = keep_spans,
    .n_env_keep = 2,
    .env_set = set,
    .n_env_set = 4,
};

static char *slots[16];
static char arena[256];

static int build(char *const *host)
{
	memset(slots, 0xff, sizeof(slots));
	return env_build(host, &variant, slots, 16, arena, sizeof(arena));
}

static int setup(void **state)
{
	(void)state;
	setenv("HOME", "/home/u", 1);
	unsetenv("XDG_RUNTIME_DIR");
	return 0;
}

static void keeps_only_the_allowlist(void **state)
{
	char *host[] = {"PATH=/usr/bin",
	                "SSH_AUTH_SOCK=/tmp/agent",
	                "LC_ALL=C",
	                "LC_=x",
	                "TERM=xterm",
	                "TERMINAL=foot",
	                "AWS_SECRET_ACCESS_KEY=k",
	                "HF_TOKEN=hf_x",
	                "LANG=C.UTF-8",
	                NULL};
	int n;

	(void)state;
	n = build(host);
	/* PATH LC_ALL LC_ TERM HF_TOKEN, then HOME AIJAIL CACHE */
	assert_int_equal(n, 8);
	assert_string_equal(slots[0], "PATH=/usr/bin");
	assert_string_equal(slots[1], "LC_ALL=C");
	assert_string_equal(slots[2], "LC_=x");
	assert_string_equal(slots[3], "TERM=xterm");
	assert_string_equal(slots[4], "HF_TOKEN=hf_x");
	assert_null(slots[8]);
	assert_null(env_get(slots, "SSH_AUTH_SOCK"));
	assert_null(env_get(slots, "AWS_SECRET_ACCESS_KEY"));
	assert_null(env_get(slots, "TERMINAL")); /* '?' is one character */
	assert_null(env_get(slots, "LANG"));
}

static void assignments_replace_and_add(void **state)
{
	char *host[] = {"HOME=/root/elsewhere", "AIJAIL=0", "PATH=/bin", NULL};
	int n;

	(void)state;
	n = build(host);
	assert_int_equal(n, 4);
	assert_string_equal(slots[0], "PATH=/bin");
	assert_string_equal(env_get(slots, "HOME"), "/home/u");
	assert_string_equal(env_get(slots, "AIJAIL"), "1");
	assert_string_equal(env_get(slots, "CACHE"), "/home/u/.cache");
	/* an unresolved value leaves the variable unset, it is never made up */
	assert_null(env_get(slots, "RUNTIME"));
}

static void resolved_variable(void **state)
{
	char *host[] = {NULL};

	(void)state;
	vars_set(AJ_VAR_XDG_RUNTIME_DIR, "/run/user/1000");
	assert_int_equal(build(host), 4);
	assert_string_equal(env_get(slots, "RUNTIME"), "/run/user/1000");
	vars_set(AJ_VAR_XDG_RUNTIME_DIR, NULL);
	assert_int_equal(build(host), 3);
	assert_null(env_get(slots, "RUNTIME"));
}

static void first_duplicate_wins(void **state)
{
	char *host[] = {"PATH=/first", "PATH=/second", "TERM", "=x", NULL};

	(void)state;
	assert_int_equal(build(host), 4);
	assert_string_equal(slots[0], "PATH=/first");
	assert_string_equal(env_get(slots, "PATH"), "/first");
}

static void fails_closed_when_full(void **state)
{
	char *host[] = {"PATH=/bin", "LC_A=1", "LC_B=2", NULL};
	char *few[3];
	char small[8];

	(void)state;
	errno = 0;
	assert_int_equal(env_build(host, &variant, few, 3, arena, sizeof(arena)), -1);
	assert_int_equal(errno, E2BIG);
	errno = 0;
	assert_int_equal(env_build(host, &variant, slots, 16, small, sizeof(small)), -1);
	assert_int_equal(errno, E2BIG);
	assert_int_equal(env_build(host, &variant, slots, 0, arena, sizeof(arena)), -1);
}

static void empty_policy(void **state)
{
	const struct aj_variant none = {0};
	char *host[] = {"PATH=/bin", NULL};

	(void)state;
	assert_int_equal(env_build(host, &none, slots, 16, arena, sizeof(arena)), 0);
	assert_null(slots[0]);
}

/* A drop pattern wins over every keep pattern; a policy's own assignment
 * is still made. */
static void drop_wins_over_keep(void **state)
{
	static const char *const drop[] = {"HF_TOKEN", "LC_*", "AIJAIL"};
	static const struct aj_env_span drop_spans[] = {{drop, 3, 0}};
	struct aj_variant v = variant;
	char *host[] = {"HF_TOKEN=hf_x", "HF_HOME=/hf", "LC_ALL=C", "PATH=/bin", NULL};

	(void)state;
	v.env_drop = drop_spans;
	v.n_env_drop = 1;
	assert_int_equal(env_build(host, &v, slots, 16, arena, sizeof(arena)), 5);
	assert_null(env_get(slots, "HF_TOKEN"));
	assert_null(env_get(slots, "LC_ALL"));
	assert_string_equal(env_get(slots, "HF_HOME"), "/hf");
	assert_string_equal(env_get(slots, "PATH"), "/bin");
	assert_string_equal(env_get(slots, "AIJAIL"), "1");
}

/* A toggle's span counts as the run has the toggle: its keep span while
 * it is on, its drop span (the head of the same patterns) while it is
 * off; whatever else keeps a dropped name. */
static void toggle_spans(void **state)
{
	static const char *const display[] = {"DISPLAY", "XDG_RUNTIME_DIR"};
	static const char *const also[] = {"XDG_*"};
	const struct aj_env_span tkeep[] = {{keep, 4, 0}, {display, 2, 1 + AJ_TOGGLE_DISPLAY}};
	const struct aj_env_span tdrop[] = {{display, 1, 1 + AJ_TOGGLE_DISPLAY}};
	const struct aj_env_span wide[] = {{also, 1, 0}, {display, 1, 1 + AJ_TOGGLE_DISPLAY}};
	struct aj_variant v = {
	    .env_keep = tkeep, .n_env_keep = 2, .env_drop = tdrop, .n_env_drop = 1};
	char *host[] = {"DISPLAY=:0", "XDG_RUNTIME_DIR=/run/user/1", "PATH=/bin", NULL};

	(void)state;
	v.features = AJ_FEATURE_DISPLAY;
	assert_int_equal(env_build(host, &v, slots, 16, arena, sizeof(arena)), 3);
	assert_string_equal(env_get(slots, "DISPLAY"), ":0");
	assert_true(env_span_counts(&tkeep[1], &v, false));
	assert_false(env_span_counts(&tdrop[0], &v, true));
	v.features = AJ_FEATURE_GPU;
	assert_int_equal(env_build(host, &v, slots, 16, arena, sizeof(arena)), 1);
	assert_null(env_get(slots, "DISPLAY"));
	assert_null(env_get(slots, "XDG_RUNTIME_DIR"));
	assert_true(env_span_counts(&tdrop[0], &v, true));
	/* Off, its drop span wins over the policy's own keep. */
	v.env_keep = wide;
	v.n_env_keep = 2;
	char *host2[] = {"DISPLAY=:0", "XDG_X=1", NULL};
	assert_int_equal(env_build(host2, &v, slots, 16, arena, sizeof(arena)), 1);
	assert_string_equal(env_get(slots, "XDG_X"), "1");
}

static void paths(void **state)
{
	char buf[64];
	const struct aj_path p = {"/a", AJ_VAR_NONE, "/b"};
	const struct aj_path home = {"", AJ_VAR_HOME, "/x"};
	const struct aj_path unset = {"", AJ_VAR_WAYLAND_SOCKET, ""};

	(void)state;
	assert_int_equal(vars_path_join(&p, buf, sizeof(buf)), 4);
	assert_string_equal(buf, "/a/b");
	assert_int_equal(vars_path_join(&home, buf, sizeof(buf)), 9);
	assert_string_equal(buf, "/home/u/x");
	assert_int_equal(vars_path_join(&home, buf, 9), AJ_PATH_TOOLONG);
	unsetenv("WAYLAND_DISPLAY");
	assert_int_equal(vars_path_join(&unset, buf, sizeof(buf)), AJ_PATH_UNRESOLVED);
	assert_string_equal(vars_path_normal("/a/b", buf, sizeof(buf)), "/a/b");
	assert_string_equal(vars_path_normal("//a///b/", buf, sizeof(buf)), "/a/b");
	assert_string_equal(vars_path_normal("/", buf, sizeof(buf)), "/");
	assert_string_equal(vars_path_normal("///", buf, sizeof(buf)), "/");
	assert_null(vars_path_normal("a/b", buf, sizeof(buf)));
	assert_null(vars_path_normal("/a/../b", buf, sizeof(buf)));
	assert_null(vars_path_normal("/a/./b", buf, sizeof(buf)));
	assert_string_equal(vars_path_normal("/a/.b/..c", buf, sizeof(buf)), "/a/.b/..c");
	assert_null(vars_path_normal("", buf, sizeof(buf)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(keeps_only_the_allowlist),
	    cmocka_unit_test(assignments_replace_and_add),
	    cmocka_unit_test(resolved_variable),
	    cmocka_unit_test(first_duplicate_wins),
	    cmocka_unit_test(fails_closed_when_full),
	    cmocka_unit_test(empty_policy),
	    cmocka_unit_test(drop_wins_over_keep),
	    cmocka_unit_test(toggle_spans),
	    cmocka_unit_test(paths),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
