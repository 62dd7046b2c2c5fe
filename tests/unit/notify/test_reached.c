/* test_reached.c: --jail-log's "allowed" lines (stub/notify/reached.c),
 * written through refusals.c's writer: the fields and their order, a v6
 * host without its brackets, --jail-log-allowed=no, and the bound, which
 * is the allowed lines' own: past it a refusal is still logged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "notify/notify.h"

static const struct aj_policy fake_policy = {.name = "tpol", .progname = "jail-tpol"};
const struct aj_policy *const aj_the_policy = &fake_policy;
int reflog_fd = -1;
int reflog_descriptor(void)
{
	return reflog_fd;
}

static char text[1 << 20];

/* The log so far, from its start. */
static const char *log_text(void)
{
	ssize_t n = pread(reflog_fd, text, sizeof(text) - 1, 0);

	text[n > 0 ? n : 0] = '\0';
	return text;
}

static unsigned count(const char *s, const char *what)
{
	unsigned n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

static int setup(void **state)
{
	(void)state;
	reflog_fd = memfd_create("log", 0);
	reached_on = true;
	return reflog_fd < 0;
}

static int teardown(void **state)
{
	(void)state;
	close(reflog_fd);
	return 0;
}

static void one_line(void **state)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	const char *l;

	(void)state;
	inet_pton(AF_INET, "192.0.2.7", &a.sin_addr);
	reached_conn("registry.npmjs.org:443", (struct sockaddr *)&a, 812, 5631,
	             reached_now_ms() - 20);
	l = log_text();
	assert_memory_equal(l, "{\"time\":", 8);
	assert_non_null(strstr(l,
	                       ",\"kind\":\"allowed\",\"host\":\"registry.npmjs.org\",\"port\":443,"
	                       "\"address\":\"192.0.2.7\",\"bytes_up\":812,\"bytes_down\":5631,"
	                       "\"duration_ms\":"));
	assert_int_equal(count(l, "\n"), 1);
	assert_string_equal(strchr(l, '}'), "}\n");
}

static void v6_host(void **state)
{
	struct sockaddr_in6 a = {.sin6_family = AF_INET6};

	(void)state;
	inet_pton(AF_INET6, "2001:db8::1", &a.sin6_addr);
	reached_conn("[2001:db8::1]:8443", (struct sockaddr *)&a, 1, 2, reached_now_ms());
	assert_non_null(strstr(log_text(), "\"host\":\"2001:db8::1\",\"port\":8443,"
	                                   "\"address\":\"2001:db8::1\","));
}

static void off(void **state)
{
	struct sockaddr_in a = {.sin_family = AF_INET};

	(void)state;
	reached_on = false;
	reached_conn("x.test:443", (struct sockaddr *)&a, 1, 2, 0);
	refusals_host("connection", "y.test:443", "not in the list");
	assert_int_equal(count(log_text(), "\"kind\":\"allowed\""), 0);
	assert_int_equal(count(log_text(), "\"kind\":\"connection\""), 1);
}

/* Runs last: the bound is a run's, kept across the tests. */
static void bounded_apart(void **state)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	const char *l;

	(void)state;
	for (unsigned i = 0; i < 1005; i++)
		reached_conn("x.test:443", (struct sockaddr *)&a, 1, 2, 0);
	refusals_host("connection", "y.test:443", "not in the list");
	refusals_report();
	l = log_text();
	/* one_line and v6_host wrote two of the thousand */
	assert_int_equal(count(l, "\"kind\":\"allowed\""), 998);
	assert_int_equal(count(l, "\"kind\":\"connection\""), 1);
	assert_non_null(strstr(l, "\"kind\":\"unlogged-allowed\",\"count\":7}\n"));
	assert_null(strstr(l, "\"kind\":\"unlogged\","));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(one_line, setup, teardown),
	    cmocka_unit_test_setup_teardown(v6_host, setup, teardown),
	    cmocka_unit_test_setup_teardown(off, setup, teardown),
	    cmocka_unit_test_setup_teardown(bounded_apart, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
