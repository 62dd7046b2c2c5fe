/* test_keys_request.c: aijail-keys's request parser (keys/request.c): where
 * a placeholder becomes the value, and which heads are refused whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "keys/keys.h"

#define PH  "aijail-secret-TOKEN-0123456789abcdef0123456789abcdef"
#define VAL "real-1234"

static struct keys_bind bind = {
    .name = "TOKEN", .value = VAL, .placeholder = PH, .n_hosts = 1, .hosts = {"api.test:443"}};
static struct keys_req q;
static char got[1 << 16];
static size_t got_n;

static bool sink(void *ctx, const char *b, size_t n)
{
	(void)ctx;
	assert_true(got_n + n <= sizeof(got));
	memcpy(got + got_n, b, n);
	got_n += n;
	return true;
}

/* in fed whole (piece 0) or in pieces of piece bytes: NULL or why. */
static const char *feed(const char *target, const char *in, size_t n, size_t piece)
{
	const char *why = NULL;

	keys_req_init(&q, &bind, 1, target);
	got_n = 0;
	if (!piece)
		piece = n;
	for (size_t at = 0; at < n && !why; at += piece)
		why = keys_req_feed(&q, in + at, n - at < piece ? n - at : piece, sink, NULL);
	got[got_n] = '\0';
	return why;
}

static void bearer_and_query(void **state)
{
	static const char in[] = "GET /v1?key=" PH "&x=1 HTTP/1.1\r\nHost: api.test\r\n"
	                         "Authorization: Bearer " PH "\r\nX-Api-Key:  " PH " \r\n\r\n";
	(void)state;
	for (size_t piece = 0; piece < 5; piece++) {
		assert_null(feed("api.test:443", in, sizeof(in) - 1, piece));
		assert_string_equal(got,
		                    "GET /v1?key=" VAL "&x=1 HTTP/1.1\r\nHost: api.test\r\n"
		                    "Authorization: Bearer " VAL "\r\nX-Api-Key:  " VAL "\r\n\r\n");
	}
}

static void unbound_host_left_alone(void **state)
{
	static const char in[] = "GET / HTTP/1.1\r\nAuthorization: Bearer " PH "\r\n\r\n";
	(void)state;
	assert_null(feed("other.test:443", in, sizeof(in) - 1, 0));
	assert_string_equal(got, in);
	assert_null(feed("api.test:8443", in, sizeof(in) - 1, 0));
	assert_string_equal(got, in);
}

static void basic_decoded(void **state)
{
	/* base64("me:" PH) and base64("me:" VAL) */
	static const char in[] =
	    "GET / HTTP/1.1\r\nAuthorization: Basic "
	    "bWU6YWlqYWlsLXNlY3JldC1UT0tFTi0wMTIzNDU2Nzg5YWJjZGVmMDEyMzQ1Njc4OWFiY2RlZg=="
	    "\r\n\r\n";
	(void)state;
	assert_null(feed("api.test:443", in, sizeof(in) - 1, 0));
	assert_string_equal(got, "GET / HTTP/1.1\r\nAuthorization: Basic bWU6cmVhbC0xMjM0\r\n\r\n");
}

static void keep_alive_bodies_pass(void **state)
{
	static const char body_ph[] =
	    "POST /a HTTP/1.1\r\nContent-Length: 52\r\n\r\n" PH "GET /b HTTP/1.1\r\n\r\n";
	(void)state;
	/* a placeholder in a body stays, and the next head is found */
	for (size_t piece = 0; piece < 4; piece++) {
		assert_null(feed("api.test:443", body_ph, sizeof(body_ph) - 1, piece));
		assert_string_equal(got, body_ph);
	}
}

static void chunked_held_until_first_size(void **state)
{
	static const char good[] = "POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
	                           "3;x\r\nabc\r\n0\r\nT: 1\r\n\r\nGET /n HTTP/1.1\r\n\r\n";
	static const char bad[] = "POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n";
	(void)state;
	assert_null(feed("api.test:443", good, sizeof(good) - 1, 1));
	assert_string_equal(got, good);
	assert_string_equal(feed("api.test:443", bad, sizeof(bad) - 1, 0),
	                    "bad chunking (a malformed chunk size)");
	assert_int_equal(got_n, 0);
}

static void refused_whole(void **state)
{
	static const char *const bad[][2] = {
	    {"POST / HTTP/1.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n",
	     "both Content-Length and Transfer-Encoding (request smuggling)"},
	    {"POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
	     "a Transfer-Encoding other than one 'chunked'"},
	    {"POST / HTTP/1.1\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\n",
	     "a bad or a second, different Content-Length"},
	    {"GET / HTTP/1.1\r\nA: b\nC: d\r\n\r\n",
	     "a malformed header line (folded, a bare CR or LF, a blank name)"},
	    {"GET / HTTP/1.1\r\n folded\r\n\r\n",
	     "a malformed header line (folded, a bare CR or LF, a blank name)"},
	    {"GET / HTTP/1.1\r\nTransfer-Encoding : chunked\r\n\r\n", "a malformed header name"},
	    {"GET /\r\n\r\n", "not an HTTP/1 request line"},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_string_equal(feed("api.test:443", bad[i][0], strlen(bad[i][0]), 0),
		                    bad[i][1]);
		assert_int_equal(got_n, 0);
	}
}

static void oversize_head(void **state)
{
	static char in[KEYS_HEAD_MAX + 64];
	(void)state;
	memcpy(in, "GET / HTTP/1.1\r\nX: ", 19);
	memset(in + 19, 'a', sizeof(in) - 19);
	assert_string_equal(feed("api.test:443", in, sizeof(in), 1000),
	                    "the request's head is over 16384 bytes");
	assert_int_equal(got_n, 0);
}

static void placeholder_found(void **state)
{
	char name[KEYS_NAME_MAX];
	static const char s[] = "x aijail-secret-GH_TOKEN-0123456789abcdef0123456789abcdef y";
	(void)state;
	assert_true(keys_placeholder_in(s, sizeof(s) - 1, name, sizeof(name)));
	assert_string_equal(name, "GH_TOKEN");
	assert_false(keys_placeholder_in("aijail-secret-GH-01", 19, name, sizeof(name)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(bearer_and_query),
	    cmocka_unit_test(unbound_host_left_alone),
	    cmocka_unit_test(basic_decoded),
	    cmocka_unit_test(keep_alive_bodies_pass),
	    cmocka_unit_test(chunked_held_until_first_size),
	    cmocka_unit_test(refused_whole),
	    cmocka_unit_test(oversize_head),
	    cmocka_unit_test(placeholder_found),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
