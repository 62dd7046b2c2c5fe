/* test_net.c: --jail-explain's network section (stub/explain/net.c), text
 * and JSON, whole, for each level's cases: the level and its meaning, the
 * namespace, the option that chose it, and the egress's parts where a
 * proxy runs; the option's odd bytes escaped in JSON.  The rooms it asks
 * (confine/, egress/, variant/) are the test's stand-ins. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "explain/explain.h"
#include "capture.h"

static bool ll_blocked = true, ll_private = true;
static unsigned forwards;
static const char *net_option;

bool landlock_net_blocked(const struct aj_variant *v)
{
	return ll_blocked;
}
bool landlock_net_private(const struct aj_variant *v)
{
	return ll_private;
}
unsigned forward_count(void)
{
	return forwards;
}
const char *extra_net_option(void)
{
	return net_option;
}
void egress_explain(void)
{
	rp_t(" [hosts]");
	rp_jstr("hosts", "H");
}
void secret_explain(void)
{
	rp_t(" [secrets]");
	rp_jstr("secrets", "S");
}
void forward_explain(void)
{
	rp_t(" [forwards]");
	rp_jstr("forwards", "F");
}

static struct aj_variant v;
static struct run r = {.v = &v, .project = "/p"};

static int reset(void **state)
{
	v = (struct aj_variant){.network = AJ_NET_NONE};
	r.fallback = NULL;
	ll_blocked = ll_private = true;
	forwards = 0;
	net_option = NULL;
	return 0;
}

static void none_private(void **state)
{
	assert_string_equal(capture_section(net_explain, &r, false),
	                    "network:   none (a private network namespace without "
	                    "interfaces) [forwards]\n");
	assert_string_equal(capture_section(net_explain, &r, true),
	                    "{\"network\":{\"level\":\"none\",\"meaning\":\"a private "
	                    "network namespace without interfaces\",\"namespace\":"
	                    "\"private\",\"option\":null,\"hosts\":null,\"forwards\":"
	                    "\"F\"}}");
}

static void none_with_forwards(void **state)
{
	forwards = 2;
	assert_string_equal(capture_section(net_explain, &r, false),
	                    "network:   none (a private network namespace, lo with the "
	                    "forwarded ports only) [forwards]\n");
}

static void host_and_its_option(void **state)
{
	v.network = AJ_NET_HOST;
	ll_private = false;
	net_option = "--jail-net=host";
	assert_string_equal(capture_section(net_explain, &r, false),
	                    "network:   host (the host's network) (--jail-net=host) [forwards]\n");
	assert_string_equal(capture_section(net_explain, &r, true),
	                    "{\"network\":{\"level\":\"host\",\"meaning\":\"the host's "
	                    "network\",\"namespace\":\"host\",\"option\":\"--jail-net="
	                    "host\",\"hosts\":null,\"forwards\":\"F\"}}");
}

/* blocked without Landlock's network scoping: a namespace instead, said so. */
static void blocked_without_landlock(void **state)
{
	v.network = AJ_NET_BLOCKED;
	ll_blocked = false;
	assert_string_equal(capture_section(net_explain, &r, false),
	                    "network:   blocked, here in a private network namespace "
	                    "without interfaces (Landlock on and its ABI 6 are needed "
	                    "to scope the host's abstract sockets) [forwards]\n");
}

/* A proxied level: the egress's hosts and the secrets follow. */
static void allow_has_the_proxy(void **state)
{
	v.network = AJ_NET_ALLOW;
	assert_string_equal(capture_section(net_explain, &r, false),
	                    "network:   allow (a private namespace, lo only; the hosts "
	                    "below through the stub's proxy) [hosts] [secrets] "
	                    "[forwards]\n");
	assert_string_equal(capture_section(net_explain, &r, true),
	                    "{\"network\":{\"level\":\"allow\",\"meaning\":\"a private "
	                    "namespace, lo only; the hosts below through the stub's "
	                    "proxy\",\"namespace\":\"private\",\"option\":null,"
	                    "\"hosts\":\"H\",\"secrets\":\"S\",\"forwards\":\"F\"}}");
}

/* The fallback has no namespace, whatever the level asked. */
static void fallback_has_none(void **state)
{
	v.network = AJ_NET_ALLOW;
	v.flags = AJ_VARIANT_FALLBACK;
	r.fallback = "no user namespaces";
	const char *t = capture_section(net_explain, &r, false);

	assert_non_null(strstr(t, "network:   allow (the fallback: no network namespace; TCP "
	                          "refused by Landlock"));
	assert_non_null(strstr(t, "no proxy runs, so no host is reachable) [hosts]"));
	assert_non_null(strstr(capture_section(net_explain, &r, true), "\"namespace\":\"host\""));
}

/* An option's bytes as JSON has them: quotes, backslashes, controls,
 * UTF-8 kept, a byte that begins no UTF-8 sequence as \u00XX. */
static void option_escaped(void **state)
{
	net_option = "a\"b\\c\n\t\x01 \xc3\xa9 \xff\xc3";
	assert_non_null(strstr(capture_section(net_explain, &r, true),
	                       "\"option\":\"a\\\"b\\\\c\\n\\t\\u0001 \xc3\xa9 "
	                       "\\u00ff\\u00c3\""));
	assert_non_null(strstr(capture_section(net_explain, &r, false),
	                       " (a\"b\\c\n\t\x01 \xc3\xa9 \xff\xc3)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(none_private, reset),
	    cmocka_unit_test_setup(none_with_forwards, reset),
	    cmocka_unit_test_setup(host_and_its_option, reset),
	    cmocka_unit_test_setup(blocked_without_landlock, reset),
	    cmocka_unit_test_setup(allow_has_the_proxy, reset),
	    cmocka_unit_test_setup(fallback_has_none, reset),
	    cmocka_unit_test_setup(option_escaped, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
