/* test_hosts.c: the hosts of 'network allow' (common/hosts.c): their
 * one spelling, how a request's host matches a pattern, which addresses a
 * listed name may not lead to, and the host of a registry's URL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "aj_table.h"
#include "common/hosts.h"

static const char *norm(const char *in, bool pattern)
{
	static char out[AJ_HOST_MAX];
	size_t at;

	return hosts_normal(in, pattern, out, sizeof(out), &at) ? NULL : out;
}

static void normal_spelling(void **state)
{
	(void)state;
	assert_string_equal(norm("Registry.NPMjs.org", true), "registry.npmjs.org:443");
	assert_string_equal(norm("registry.npmjs.org:80", true), "registry.npmjs.org:80");
	assert_string_equal(norm("*.pythonhosted.org:443", true), "*.pythonhosted.org:443");
	assert_string_equal(norm("10.0.0.1:8080", true), "10.0.0.1:8080");
	assert_string_equal(norm("[::1]:80", true), "[::1]:80");
	assert_string_equal(norm("[0:0::0:1]", true), "[::1]:443");
	assert_string_equal(norm("localhost", true), "localhost:443");
	assert_string_equal(norm("a-b.c0", true), "a-b.c0:443");
	assert_string_equal(norm("[2001:DB8:0:0:1:0:0:1]:1", true), "[2001:db8::1:0:0:1]:1");
	assert_string_equal(norm("[2001:db8::]", true), "[2001:db8::]:443");
	assert_string_equal(norm("[::]", true), "[::]:443");
	assert_string_equal(norm("[1:2:3:4:5:6:7:8]", true), "[1:2:3:4:5:6:7:8]:443");
	assert_string_equal(norm("[1:0:3:4:5:6:7:8]", true), "[1:0:3:4:5:6:7:8]:443");
	assert_string_equal(norm("[fe80::0:0:1]", true), "[fe80::1]:443");
}

static void bad_hosts(void **state)
{
	static const char *const bad[] = {
	    "",
	    "a..b",
	    "-a.com",
	    "a-.com",
	    "x.com:",
	    "x.com:0",
	    "x.com:65536",
	    "x.com:1a",
	    "*",
	    "a*.com",
	    "*.com.*",
	    "*.com",
	    "1.2.3",
	    "0x7f.1",
	    "2130706433",
	    "x_y.com",
	    "[::1",
	    "[::1]x",
	    "[zz::1]:80",
	    "a.com.",
	    "*.10.0.0.1",
	    "a b.com",
	    "ex\xc3\xa4mple.com",
	};
	size_t at;
	char out[AJ_HOST_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!hosts_normal(bad[i], true, out, sizeof(out), &at))
			fail_msg("\"%s\" was taken as \"%s\"", bad[i], out);
	/* A host to reach never has a '*'. */
	assert_null(norm("*.example.org:443", false));
	/* The offset points at the fault. */
	assert_non_null(hosts_normal("a..b", true, out, sizeof(out), &at));
	assert_int_equal(at, 2);
	assert_non_null(hosts_normal("x.com:0", true, out, sizeof(out), &at));
	assert_int_equal(at, 6);
}

static void matching(void **state)
{
	(void)state;
	assert_true(hosts_match("registry.npmjs.org:443", "registry.npmjs.org:443"));
	assert_false(hosts_match("registry.npmjs.org:443", "registry.npmjs.org:80"));
	assert_false(hosts_match("registry.npmjs.org:443", "xregistry.npmjs.org:443"));
	assert_false(hosts_match("registry.npmjs.org:443", "registry.npmjs.org.evil.com:443"));
	assert_true(hosts_match("*.pythonhosted.org:443", "files.pythonhosted.org:443"));
	assert_true(hosts_match("*.pythonhosted.org:443", "a.b.pythonhosted.org:443"));
	assert_false(hosts_match("*.pythonhosted.org:443", "pythonhosted.org:443"));
	assert_false(hosts_match("*.pythonhosted.org:443", "evilpythonhosted.org:443"));
	assert_false(hosts_match("*.pythonhosted.org:443", "files.pythonhosted.org:8443"));
	assert_true(hosts_match("[::1]:80", "[::1]:80"));
	assert_false(hosts_match("10.0.0.1:80", "10.0.0.10:80"));
	assert_true(hosts_literal("10.0.0.1:80"));
	assert_true(hosts_literal("[::1]:80"));
	assert_false(hosts_literal("localhost:80"));
}

static const char *v4(const char *a)
{
	struct sockaddr_in s = {.sin_family = AF_INET};

	assert_int_equal(inet_pton(AF_INET, a, &s.sin_addr), 1);
	return hosts_addr_refused((struct sockaddr *)&s);
}

static const char *v6(const char *a)
{
	struct sockaddr_in6 s = {.sin6_family = AF_INET6};

	assert_int_equal(inet_pton(AF_INET6, a, &s.sin6_addr), 1);
	return hosts_addr_refused((struct sockaddr *)&s);
}

static void classification(void **state)
{
	static const char *const refused4[] = {
	    "127.0.0.1",      "127.255.0.9",     "0.0.0.0",         "10.1.2.3",    "172.16.0.1",
	    "172.31.255.255", "192.168.1.1",     "169.254.169.254", "169.254.0.1", "100.64.0.1",
	    "224.0.0.1",      "255.255.255.255", "192.0.0.8",       "198.18.0.1",
	};
	static const char *const public4[] = {"8.8.8.8",        "104.16.0.1",  "172.32.0.1",
	                                      "172.15.255.255", "192.169.0.1", "100.128.0.1",
	                                      "1.1.1.1"};
	static const char *const refused6[] = {"::1",
	                                       "::",
	                                       "fd00:ec2::254",
	                                       "fc00::1",
	                                       "fe80::1",
	                                       "ff02::1",
	                                       "::ffff:127.0.0.1",
	                                       "::ffff:10.0.0.1",
	                                       "::ffff:169.254.169.254",
	                                       "64:ff9b::a00:1",
	                                       "2002:a00:1::"};
	static const char *const public6[] = {"2606:4700::1", "2001:4860:4860::8888",
	                                      "::ffff:8.8.8.8"};

	(void)state;
	for (size_t i = 0; i < sizeof(refused4) / sizeof(refused4[0]); i++)
		if (!v4(refused4[i]))
			fail_msg("%s was taken as public", refused4[i]);
	for (size_t i = 0; i < sizeof(public4) / sizeof(public4[0]); i++)
		if (v4(public4[i]))
			fail_msg("%s was refused: %s", public4[i], v4(public4[i]));
	for (size_t i = 0; i < sizeof(refused6) / sizeof(refused6[0]); i++)
		if (!v6(refused6[i]))
			fail_msg("%s was taken as public", refused6[i]);
	for (size_t i = 0; i < sizeof(public6) / sizeof(public6[0]); i++)
		if (v6(public6[i]))
			fail_msg("%s was refused: %s", public6[i], v6(public6[i]));
	assert_string_equal(v4("169.254.169.254"), "the cloud metadata address");
}

/* 'network public' refuses exactly these ranges: each one's first and
 * last address, and its neighbours outside it, which are public unless
 * another range of the table takes them.  203.0.113.0/24 (a documentation
 * range, where this machine's registries resolve) stays public. */
static void range_edges(void **state)
{
	static const struct {
		const char *addr;
		bool refused;
	} t[] = {
	    {"0.0.0.0", true},          {"0.255.255.255", true},    {"1.0.0.0", false},
	    {"9.255.255.255", false},   {"10.0.0.0", true},         {"10.255.255.255", true},
	    {"11.0.0.0", false},        {"100.63.255.255", false},  {"100.64.0.0", true},
	    {"100.127.255.255", true},  {"100.128.0.0", false},     {"126.255.255.255", false},
	    {"127.0.0.0", true},        {"127.0.0.2", true},        {"127.255.255.255", true},
	    {"128.0.0.0", false},       {"169.253.255.255", false}, {"169.254.0.0", true},
	    {"169.254.255.255", true},  {"169.255.0.0", false},     {"172.15.255.255", false},
	    {"172.16.0.0", true},       {"172.31.255.255", true},   {"172.32.0.0", false},
	    {"192.167.255.255", false}, {"192.168.0.0", true},      {"192.168.255.255", true},
	    {"192.169.0.0", false},     {"203.0.113.1", false},     {"203.0.113.255", false},
	    {"198.51.100.7", false},    {"223.255.255.255", false}, {"224.0.0.0", true},
	    {"239.255.255.255", true},  {"255.255.255.255", true},
	};
	static const struct {
		const char *addr;
		bool refused;
	} t6[] = {
	    {"::", true},
	    {"::1", true},
	    {"::2", false},
	    {"fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false},
	    {"fc00::", true},
	    {"fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true},
	    {"fe00::", false},
	    {"fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false},
	    {"fe80::", true},
	    {"febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true},
	    {"ff00::", true},
	    {"ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true},
	    {"::ffff:0.0.0.0", true},
	    {"::ffff:127.0.0.1", true},
	    {"::ffff:7f00:2", true},
	    {"::ffff:10.0.0.0", true},
	    {"::ffff:172.16.0.1", true},
	    {"::ffff:192.168.0.1", true},
	    {"::ffff:100.64.0.1", true},
	    {"::ffff:a9fe:a9fe", true},
	    {"::ffff:224.0.0.1", true},
	    {"::ffff:203.0.113.9", false},
	    {"64:ff9b::7f00:1", true},
	    {"2002:7f00:1::", true},
	    {"2001:db8::1", false},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!v4(t[i].addr) != !t[i].refused)
			fail_msg("%s: %s", t[i].addr,
			         t[i].refused ? "taken as public" : v4(t[i].addr));
	for (size_t i = 0; i < sizeof(t6) / sizeof(t6[0]); i++)
		if (!v6(t6[i].addr) != !t6[i].refused)
			fail_msg("%s: %s", t6[i].addr,
			         t6[i].refused ? "taken as public" : v6(t6[i].addr));
}

/* A spelling that only inet_aton reads (decimal, octal, hex, short forms)
 * is a name, never an address: the proxy connects only to what its
 * resolver answers, and checks that. */
static void odd_literals(void **state)
{
	static const char *const odd[] = {"2130706433:80", "0x7f.1:80", "0177.0.0.1:80", "127.1:80",
	                                  "017700000001:80"};
	char out[AJ_HOST_MAX];
	size_t at;

	(void)state;
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
		if (!hosts_normal(odd[i], false, out, sizeof(out), &at) && hosts_literal(out))
			fail_msg("%s was read as a literal address", odd[i]);
}

static const char *url(const char *u)
{
	static char out[AJ_HOST_MAX];

	return hosts_url_host(u, strlen(u), out, sizeof(out)) ? out : NULL;
}

static void urls(void **state)
{
	(void)state;
	assert_string_equal(url("https://registry.npmjs.org/"), "registry.npmjs.org:443");
	assert_string_equal(url("http://mirror.example.com:8080/simple"),
	                    "mirror.example.com:8080");
	assert_string_equal(url("https://user:pw@pip.example.com/simple"), "pip.example.com:443");
	assert_string_equal(url("sparse+https://index.crates.io/"), "index.crates.io:443");
	assert_string_equal(url("https://Example.COM"), "example.com:443");
	assert_string_equal(url("http://[::1]:3000/x"), "[::1]:3000");
	assert_string_equal(url("http://[::1]/x"), "[::1]:80");
	assert_null(url("git://github.com/x"));
	assert_null(url("file:///etc/passwd"));
	assert_null(url("https://"));
	assert_null(url("https://*.example.com/"));
	assert_null(url("registry.npmjs.org"));
}

/* A response to our question: a CNAME, then an A record, names
 * compressed; a wrong id, a wrong question, NXDOMAIN, a short message. */
static void dns(void **state)
{
	uint8_t q[300], m[512], a[4][16];
	size_t qn = hosts_dns_query("registry.npmjs.org", 1, 0x1234, q, sizeof(q)), n;
	static const uint8_t answers[] = {
	    0xc0, 0x0c, 0, 5,  0, 1, 0, 0, 0, 60, 0, 4, 1,   'x', 0xc0, 0x15, /* CNAME */
	    0xc0, 0x0c, 0, 1,  0, 1, 0, 0, 0, 30, 0, 4, 104, 16,  1,    34,   /* A */
	    0xc0, 0x0c, 0, 28, 0, 1, 0, 0, 0, 60, 0, 4, 1,   2,   3,    4,    /* not the type */
	};

	(void)state;
	assert_int_equal(qn, 12 + 20 + 4);
	assert_int_equal(q[0], 0x12);
	assert_int_equal(q[12], 8);
	assert_memory_equal(q + 13, "registry", 8);
	assert_int_equal(hosts_dns_query("a..b", 1, 1, q + 100, 100), 0);
	memcpy(m, q, qn);
	m[2] |= 0x80;
	m[7] = 3;
	memcpy(m + qn, answers, sizeof(answers));
	n = qn + sizeof(answers);
	assert_int_equal(hosts_dns_answers(m, n, q, qn, a, 4), 1);
	assert_memory_equal(a[0], ((uint8_t[]){104, 16, 1, 34}), 4);
	/* Kept as long as its shortest record: the A's 30 s, not the
	 * CNAME's 60; a message cut short is kept for no time. */
	assert_int_equal(hosts_dns_ttl(m, n, qn), 30);
	assert_int_equal(hosts_dns_ttl(m, n - 20, qn), 0);
	m[qn + 22] = 0x80;
	assert_int_equal(hosts_dns_ttl(m, n, qn), 0); /* top bit set: zero */
	m[qn + 22] = 0;
	/* Cut short: the records that fit, never past the end. */
	assert_int_equal(hosts_dns_answers(m, n - 20, q, qn, a, 4), 0);
	m[1] ^= 1;
	assert_int_equal(hosts_dns_answers(m, n, q, qn, a, 4), -1);
	m[1] ^= 1;
	m[14] ^= 0x20;
	assert_int_equal(hosts_dns_answers(m, n, q, qn, a, 4), -1);
	m[14] ^= 0x20;
	m[3] = 3;
	assert_int_equal(hosts_dns_answers(m, n, q, qn, a, 4), 0);
	m[3] = 2;
	assert_int_equal(hosts_dns_answers(m, n, q, qn, a, 4), -1);
	m[3] = 0;
	m[2] &= 0x7f;
	assert_int_equal(hosts_dns_answers(m, n, q, qn, a, 4), -1);
	assert_int_equal(hosts_dns_answers(m, 10, q, qn, a, 4), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(normal_spelling),
	    cmocka_unit_test(bad_hosts),
	    cmocka_unit_test(matching),
	    cmocka_unit_test(classification),
	    cmocka_unit_test(range_edges),
	    cmocka_unit_test(odd_literals),
	    cmocka_unit_test(urls),
	    cmocka_unit_test(dns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
