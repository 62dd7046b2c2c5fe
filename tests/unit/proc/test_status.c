/* test_status.c: the record --jail-status-fd writes (stub/proc/status.c),
 * from what the children tell the parent on the status pipe.  Each case
 * runs in a child of its own (status.c keeps one run's state), which
 * plays the parent, and where the case needs it a grandchild plays pid 1
 * or the target; the record is read here from the descriptor's pipe and
 * compared whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <fcntl.h>
#include <sys/wait.h>

#include "proc/proc.h"

/* ---- fakes ---------------------------------------------------------------- */

void (*die_status)(const char *step, const char *what, int err, const char *hint);

noreturn void diep(const char *step, const char *what, int err, const char *hint)
{
	(void)step, (void)what, (void)err, (void)hint;
	_exit(99);
}

noreturn void die(const char *step, int err, const char *hint)
{
	diep(step, NULL, err, hint);
}

static jmp_buf usage_jmp;
static char usage[128];

noreturn void die_usage(const char *what, const char *arg)
{
	snprintf(usage, sizeof(usage), "%s: %s", what, arg ? arg : "");
	longjmp(usage_jmp, 1);
}

/* ---- the harness ---------------------------------------------------------- */

enum role { NONE, RAN_EXIT, RAN_SIGNAL, TIMEOUT, NOTRAN, DIED, DIED_AFTER_RAN };

/* The parent's side of one run: fd N a pipe's write end, a child that
 * plays pid 1 (role), then the record as code ends it. */
static char *record(enum role role, int value, int code, const char *pstep)
{
	static char got[4096];
	int rp[2];
	pid_t c;
	size_t n = 0;
	ssize_t r;

	assert_int_equal(pipe(rp), 0);
	c = fork();
	assert_true(c >= 0);
	if (!c) {
		char num[16];
		pid_t g;

		close(rp[0]);
		snprintf(num, sizeof(num), "%d", rp[1]);
		status_option(num, "--jail-status-fd");
		status_pipe();
		g = fork();
		if (!g) {
			status_child();
			if (role == RAN_EXIT || role == RAN_SIGNAL || role == TIMEOUT ||
			    role == DIED_AFTER_RAN)
				status_ran();
			if (role == RAN_EXIT)
				status_end(W_EXITCODE(value, 0));
			if (role == RAN_SIGNAL)
				status_end(W_EXITCODE(0, value));
			if (role == TIMEOUT)
				status_timeout();
			if (role == NOTRAN)
				status_notran(value, "command not found");
			if (role == DIED || role == DIED_AFTER_RAN)
				die_status("bind", "/a\"b\n\x01", value, "the hint");
			_exit(0);
		}
		status_parent();
		waitpid(g, NULL, 0);
		if (pstep)
			die_status(pstep, NULL, 0, "the parent's hint");
		status_report(code, NULL, NULL);
		_exit(0);
	}
	close(rp[1]);
	while (n < sizeof(got) - 1 && (r = read(rp[0], got + n, sizeof(got) - 1 - n)) > 0)
		n += (size_t)r;
	got[n] = '\0';
	close(rp[0]);
	waitpid(c, NULL, 0);
	return got;
}

static void test_exit_125(void **state)
{
	(void)state;
	assert_string_equal(
	    record(RAN_EXIT, 125, 125, NULL),
	    "{\"aijail_status\":1,\"status\":125,\"built\":true,\"ran\":true,\"end\":\"exit\","
	    "\"code\":125}\n");
}

static void test_signal(void **state)
{
	(void)state;
	assert_string_equal(
	    record(RAN_SIGNAL, 9, 137, NULL),
	    "{\"aijail_status\":1,\"status\":137,\"built\":true,\"ran\":true,\"end\":\"signal\","
	    "\"signal\":9}\n");
}

static void test_timeout(void **state)
{
	(void)state;
	assert_string_equal(record(TIMEOUT, 0, 124, NULL),
	                    "{\"aijail_status\":1,\"status\":124,\"built\":true,\"ran\":true,"
	                    "\"end\":\"timeout\"}\n");
}

static void test_notran(void **state)
{
	(void)state;
	assert_string_equal(record(NOTRAN, 2, 127, NULL),
	                    "{\"aijail_status\":1,\"status\":127,\"built\":true,\"ran\":false,"
	                    "\"end\":\"notran\",\"errno\":2,\"cause\":\"command not found\"}\n");
}

/* pid 1's step, a path with a quote, a newline and a control byte in it:
 * one line of JSON all the same. */
static void test_died_escaped(void **state)
{
	(void)state;
	assert_string_equal(record(DIED, EACCES, 125, NULL),
	                    "{\"aijail_status\":1,\"status\":125,\"built\":false,\"ran\":false,"
	                    "\"end\":\"notbuilt\",\"step\":\"bind /a\\\"b\\u000a\\u0001\","
	                    "\"cause\":\"Permission denied: the hint\"}\n");
}

/* pid 1 failed after the command ran: how it ended is not known. */
static void test_died_after_ran(void **state)
{
	(void)state;
	assert_string_equal(record(DIED_AFTER_RAN, 0, 125, NULL),
	                    "{\"aijail_status\":1,\"status\":125,\"built\":true,\"ran\":true,"
	                    "\"end\":\"unknown\",\"step\":\"bind /a\\\"b\\u000a\\u0001\","
	                    "\"cause\":\"the hint\"}\n");
}

/* pid 1 said nothing (killed): unknown, whatever the status. */
static void test_silent(void **state)
{
	(void)state;
	assert_string_equal(record(NONE, 0, 125, NULL),
	                    "{\"aijail_status\":1,\"status\":125,\"built\":false,\"ran\":false,"
	                    "\"end\":\"unknown\"}\n");
}

/* The parent's own die(): its step, once pid 1 is gone. */
static void test_parent_died(void **state)
{
	(void)state;
	assert_string_equal(record(NONE, 0, 125, "hand the scan to the jail"),
	                    "{\"aijail_status\":1,\"status\":125,\"built\":false,\"ran\":false,"
	                    "\"end\":\"notbuilt\",\"step\":\"hand the scan to the jail\","
	                    "\"cause\":\"the parent's hint\"}\n");
}

static const char *option(const char *value)
{
	usage[0] = '\0';
	if (!setjmp(usage_jmp))
		status_option(value, "--jail-status-fd");
	return usage;
}

static void test_bad_fds(void **state)
{
	int p[2];
	char num[16];

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_string_equal(option("2"), "a descriptor above 2 is needed (0, 1 and 2 are the "
	                                 "command's): --jail-status-fd");
	assert_string_equal(option("x"), "not a descriptor number: --jail-status-fd");
	assert_string_equal(option(""), "a descriptor number is needed after: --jail-status-fd");
	assert_string_equal(option("99999999"), "not a descriptor number: --jail-status-fd");
	assert_string_equal(option("999"), "not an open descriptor: --jail-status-fd");
	snprintf(num, sizeof(num), "%d", p[0]);
	assert_string_equal(option(num), "not a descriptor open for writing: --jail-status-fd");
	snprintf(num, sizeof(num), "%d", p[1]);
	assert_string_equal(option(num), "");
	assert_true(fcntl(p[1], F_GETFD) & FD_CLOEXEC);
	snprintf(num, sizeof(num), "%d", p[1]);
	assert_string_equal(option(num), "only one is taken: --jail-status-fd");
	status_off();
	close(p[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exit_125),     cmocka_unit_test(test_signal),
	    cmocka_unit_test(test_timeout),      cmocka_unit_test(test_notran),
	    cmocka_unit_test(test_died_escaped), cmocka_unit_test(test_died_after_ran),
	    cmocka_unit_test(test_silent),       cmocka_unit_test(test_parent_died),
	    cmocka_unit_test(test_bad_fds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
