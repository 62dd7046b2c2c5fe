/* test_httphead.c: the header lines of a plain-HTTP request as the
 * proxy reads them (stub/egress/httphead.c): the body's length it relays, the
 * lines it drops, and the ones it refuses because a lenient host would
 * read another length from them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "egress/egress.h"

#include "egress/egress.h"

static uint64_t len;
static bool has_len;

static enum http_verdict line(const char *l)
{
	return httphead_line(l, strchr(l, '\n'), &len, &has_len);
}

static int setup(void **state)
{
	(void)state;
	len = 0;
	has_len = false;
	return 0;
}

static void content_length(void **state)
{
	(void)state;
	assert_int_equal(line("Content-Length: 5\r\n"), HH_KEEP);
	assert_true(has_len);
	assert_int_equal(len, 5);
	assert_int_equal(line("content-length:\t 5 \r\n"), HH_KEEP); /* the same again */
	assert_int_equal(len, 5);
	assert_int_equal(line("Content-Length: 6\r\n"), HH_BAD); /* another */
}

static void content_length_bad(void **state)
{
	(void)state;
	assert_int_equal(line("Content-Length: 5, 5\r\n"), HH_BAD);
	assert_int_equal(line("Content-Length: \r\n"), HH_BAD);
	assert_int_equal(line("Content-Length: -1\r\n"), HH_BAD);
	assert_int_equal(line("Content-Length: 0x10\r\n"), HH_BAD);
	assert_int_equal(line("Content-Length: 99999999999999999999999\r\n"), HH_BAD);
	assert_false(has_len);
}

static void coded_body(void **state)
{
	(void)state;
	assert_int_equal(line("Transfer-Encoding: chunked\r\n"), HH_BODY_UNBOUNDED);
	assert_int_equal(line("TRANSFER-ENCODING: gzip, chunked\r\n"), HH_BODY_UNBOUNDED);
}

/* What some hosts take for a Transfer-Encoding or a line of their own. */
static void lenient_forms(void **state)
{
	(void)state;
	assert_int_equal(line("Transfer-Encoding : chunked\r\n"), HH_BAD);
	assert_int_equal(line(" Transfer-Encoding: chunked\r\n"), HH_BAD);
	assert_int_equal(line("\tchunked\r\n"), HH_BAD);
	assert_int_equal(line("X: a\rTransfer-Encoding: chunked\r\n"), HH_BAD);
	assert_int_equal(
	    httphead_line("X: a\0b\r\n", strchr("X: a\0b\r\n" + 5, '\n'), &len, &has_len), HH_BAD);
	assert_int_equal(line("no colon\r\n"), HH_BAD);
	assert_int_equal(line(": empty name\r\n"), HH_BAD);
}

static void dropped_and_kept(void **state)
{
	(void)state;
	assert_int_equal(line("Proxy-Authorization: Basic eA==\r\n"), HH_DROP);
	assert_int_equal(line("Proxy-Connection: keep-alive\r\n"), HH_DROP);
	assert_int_equal(line("Connection: keep-alive\r\n"), HH_DROP);
	assert_int_equal(line("Keep-Alive: timeout=5\r\n"), HH_DROP);
	assert_int_equal(line("Host: example.org\r\n"), HH_KEEP);
	assert_int_equal(line("Host: example.org\n"), HH_KEEP); /* a bare LF ends it too */
	assert_int_equal(line("X-Connection-Id: 1\r\n"), HH_KEEP);
	assert_false(has_len);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(content_length, setup),
	    cmocka_unit_test_setup(content_length_bad, setup),
	    cmocka_unit_test_setup(coded_body, setup),
	    cmocka_unit_test_setup(lenient_forms, setup),
	    cmocka_unit_test_setup(dropped_and_kept, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
