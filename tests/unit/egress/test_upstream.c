/* test_upstream.c: the corporate proxy upstream (stub/egress/upstream.c):
 * which variable applies to which target, NO_PROXY's matching, the URL's
 * grammar (a bad one ends the run naming the variable, never the
 * password), the CONNECT sent with its Proxy-Authorization, and the
 * upstream's answer read up to its head and no further, over a socket
 * pair.  No network: the resolver is a fake that is never reached. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/hosts.h"
#include "egress/egress.h"

/* ---- fakes ---------------------------------------------------------------- */

static jmp_buf died;
static char died_msg[512];

noreturn void diep(const char *step, const char *what, int err, const char *hint)
{
	snprintf(died_msg, sizeof(died_msg), "%s %s: %s", step, what ? what : "", hint ? hint : "");
	longjmp(died, 1);
}

const char *env_get(char *const *envp, const char *name)
{
	size_t l = strlen(name);

	for (; *envp; envp++)
		if (!strncmp(*envp, name, l) && (*envp)[l] == '=')
			return *envp + l + 1;
	return NULL;
}

void resolver_lookup(struct px_addrs *out, const char *host, unsigned port, bool literal)
{
	(void)host, (void)port, (void)literal;
	out->n = 0;
}

static char rp[1024];

void rp_open(const char *key, char kind)
{
	(void)key, (void)kind;
}
void rp_close(void)
{
}
void rp_t(const char *s)
{
	strncat(rp, s, sizeof(rp) - strlen(rp) - 1);
}
void rp_str(const char *key, const char *s)
{
	(void)key;
	rp_t(s);
}

/* ---- helpers -------------------------------------------------------------- */

/* The upstream of target, "-" for directly. */
static const char *via(const char *target, bool plain)
{
	const struct upstream *u = upstream_for(target, plain);

	return u ? upstream_name(u) : "-";
}

/* upstream_read(envp), true when it died (died_msg says why). */
static bool read_env(char **envp)
{
	died_msg[0] = '\0';
	if (setjmp(died))
		return true;
	upstream_read(envp);
	return false;
}

/* What upstream_send() writes for target. */
static const char *sent(const char *target)
{
	static char buf[1024];
	int sp[2];
	ssize_t n;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	assert_true(upstream_send(sp[0], upstream_for(target, false), target));
	n = read(sp[1], buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	close(sp[0]);
	close(sp[1]);
	return buf;
}

/* ---- the cases ------------------------------------------------------------ */

static void variable_per_target(void **state)
{
	(void)state;
	assert_false(
	    read_env((char *[]){"HTTPS_PROXY=http://upper.test:1", "https_proxy=lower.test:2",
	                        "HTTP_PROXY=http://plain.test:3/", NULL}));
	/* CONNECT (and anything relayed) through https_proxy, the lower case
	 * first; plain http:// through http_proxy; 80 when no port */
	assert_string_equal(via("x.org:443", false), "lower.test:2");
	assert_string_equal(via("x.org:22", false), "lower.test:2");
	assert_string_equal(via("x.org:80", true), "plain.test:3");
	assert_false(read_env((char *[]){"HTTPS_PROXY=http://Upper.Test", NULL}));
	assert_string_equal(via("x.org:443", false), "upper.test:80");
	assert_string_equal(via("x.org:80", true), "-");
	assert_false(read_env((char *[]){"https_proxy=", "http_proxy=http://[::1]:8080", NULL}));
	assert_string_equal(via("x.org:443", false), "-");
	assert_string_equal(via("x.org:80", true), "[::1]:8080");
	assert_false(read_env((char *[]){NULL}));
	assert_string_equal(via("x.org:443", false), "-");
}

static void no_proxy_matching(void **state)
{
	(void)state;
	assert_false(read_env((char *[]){"HTTPS_PROXY=up.test:3128",
	                                 "NO_PROXY=Example.ORG, .corp.test,*.wild.test 10.0.0.0/8,"
	                                 "192.0.2.7,::1,[2001:db8::1],2001:db8:1::/48,nothing:99",
	                                 NULL}));
	assert_string_equal(via("example.org:443", false), "-");
	assert_string_equal(via("a.b.example.org:443", false), "-");
	assert_string_equal(via("badexample.org:443", false), "up.test:3128");
	assert_string_equal(via("corp.test:443", false), "-");
	assert_string_equal(via("x.corp.test:443", false), "-");
	assert_string_equal(via("x.wild.test:443", false), "-");
	assert_string_equal(via("10.200.1.2:443", false), "-");
	assert_string_equal(via("11.0.0.1:443", false), "up.test:3128");
	assert_string_equal(via("192.0.2.7:443", false), "-");
	assert_string_equal(via("192.0.2.70:443", false), "up.test:3128");
	assert_string_equal(via("[::1]:443", false), "-");
	assert_string_equal(via("[2001:db8::1]:443", false), "-");
	assert_string_equal(via("[2001:db8:1:ff::9]:443", false), "-");
	assert_string_equal(via("[2001:db8:2::9]:443", false), "up.test:3128");
	/* a port in an entry is not read (as curl): it matches nothing */
	assert_string_equal(via("nothing:99", false), "up.test:3128");
	assert_false(read_env((char *[]){"HTTPS_PROXY=up.test:3128", "no_proxy=*", NULL}));
	assert_string_equal(via("x.org:443", false), "-");
}

static void credentials_sent(void **state)
{
	(void)state;
	/* %40 decoded, USER:PASS in base64: "u:p@w" */
	assert_false(read_env((char *[]){"https_proxy=http://u:p%40w@up.test:3128", NULL}));
	assert_string_equal(sent("x.org:443"), "CONNECT x.org:443 HTTP/1.1\r\nHost: x.org:443\r\n"
	                                       "Proxy-Authorization: Basic dTpwQHc=\r\n\r\n");
	/* a user alone has an empty password */
	assert_false(read_env((char *[]){"https_proxy=http://u@up.test:3128", NULL}));
	assert_string_equal(sent("[2001:db8::1]:22"),
	                    "CONNECT [2001:db8::1]:22 HTTP/1.1\r\nHost: [2001:db8::1]:22\r\n"
	                    "Proxy-Authorization: Basic dTo=\r\n\r\n");
	assert_false(read_env((char *[]){"https_proxy=http://up.test:3128", NULL}));
	assert_string_equal(sent("x.org:443"),
	                    "CONNECT x.org:443 HTTP/1.1\r\nHost: x.org:443\r\n\r\n");
	/* --jail-explain: HOST:PORT and the variable, nothing of the rest */
	assert_false(read_env((char *[]){"https_proxy=http://u:s3cret@up.test:3128", NULL}));
	rp[0] = '\0';
	upstream_explain();
	assert_non_null(strstr(rp, "up.test:3128 (https_proxy)"));
	assert_null(strstr(rp, "s3cret"));
	assert_null(strstr(rp, "u:"));
}

static void bad_urls_name_the_variable(void **state)
{
	static const char *const bad[] = {
	    "HTTPS_PROXY=https://u:s3cret@up.test:3128",
	    "HTTPS_PROXY=socks5h://u:s3cret@up.test:1080",
	    "HTTPS_PROXY=http://u:s3cret@up.test:99999",
	    "HTTPS_PROXY=http://u:s3cr%zzet@up.test:3128",
	    "HTTPS_PROXY=http://u:s3cret@up.test:3128/path",
	    "HTTPS_PROXY=http://u:s3cret@",
	    "HTTPS_PROXY=http://u:s3cret@up_test:3128",
	    "HTTPS_PROXY=http://u:s3cret@*.test:3128",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_true(read_env((char *[]){(char *)bad[i], NULL}));
		assert_non_null(strstr(died_msg, "HTTPS_PROXY"));
		assert_null(strstr(died_msg, "s3cr"));
	}
}

/* The answer: "" while its head is incomplete, NULL when it is whole,
 * and the bytes after it left for the relay. */
static void answer_head_only(void **state)
{
	char buf[256], rest[16];
	size_t got = 0;
	bool denied = false;
	const struct upstream *u;
	int sp[2];

	(void)state;
	assert_false(read_env((char *[]){"https_proxy=http://u:s3cret@up.test:3128", NULL}));
	u = upstream_for("x.org:22", false);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sp), 0);
	assert_string_equal(upstream_answer(sp[0], u, buf, sizeof(buf), &got, &denied), "");
	assert_int_equal(write(sp[1], "HTTP/1.1 200 Connection est", 27), 27);
	assert_string_equal(upstream_answer(sp[0], u, buf, sizeof(buf), &got, &denied), "");
	assert_int_equal(write(sp[1], "ablished\r\n\r", 11), 11);
	assert_string_equal(upstream_answer(sp[0], u, buf, sizeof(buf), &got, &denied), "");
	assert_int_equal(write(sp[1], "\nSSH-2.0", 8), 8);
	assert_null(upstream_answer(sp[0], u, buf, sizeof(buf), &got, &denied));
	assert_int_equal(read(sp[0], rest, sizeof(rest)), 7);
	assert_memory_equal(rest, "SSH-2.0", 7);
	close(sp[0]);
	close(sp[1]);
}

static void answer_refusals(void **state)
{
	char buf[64];
	size_t got = 0;
	bool denied = false;
	const struct upstream *u;
	const char *why;
	int sp[2];

	(void)state;
	assert_false(read_env((char *[]){"https_proxy=http://u:s3cret@up.test:3128", NULL}));
	u = upstream_for("x.org:443", false);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sp), 0);
	assert_int_equal(write(sp[1], "HTTP/1.1 407 Proxy Authentication Required\r\n\r\n", 46),
	                 46);
	why = upstream_answer(sp[0], u, buf, sizeof(buf), &got, &denied);
	assert_string_equal(why, "the upstream proxy up.test:3128 refused the connection: 407");
	assert_true(denied);
	close(sp[1]);
	close(sp[0]);
	/* a 5xx is not the host's refusal; a close before any answer; a head
	 * longer than the buffer */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sp), 0);
	got = 0, denied = false;
	assert_int_equal(write(sp[1], "HTTP/1.0 503 x\r\n\r\n", 18), 18);
	assert_non_null(
	    strstr(upstream_answer(sp[0], u, buf, sizeof(buf), &got, &denied), ": 503"));
	assert_false(denied);
	close(sp[1]);
	close(sp[0]);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sp), 0);
	got = 0;
	close(sp[1]);
	assert_string_equal(
	    upstream_answer(sp[0], u, buf, sizeof(buf), &got, &denied),
	    "the upstream proxy up.test:3128 closed the connection before it answered");
	close(sp[0]);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sp), 0);
	got = 0;
	for (int i = 0; i < 8; i++)
		assert_int_equal(write(sp[1], "HTTP/1.1 200 xxxxxxxxxxxxxxxxxxx", 32), 32);
	why = upstream_answer(sp[0], u, buf, sizeof(buf), &got, &denied);
	while (why && !*why)
		why = upstream_answer(sp[0], u, buf, sizeof(buf), &got, &denied);
	assert_string_equal(why, "the upstream proxy up.test:3128 answered with too long a head");
	close(sp[1]);
	close(sp[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(variable_per_target), cmocka_unit_test(no_proxy_matching),
	    cmocka_unit_test(credentials_sent),    cmocka_unit_test(bad_urls_name_the_variable),
	    cmocka_unit_test(answer_head_only),    cmocka_unit_test(answer_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
