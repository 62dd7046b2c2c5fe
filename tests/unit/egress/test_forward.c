/* test_forward.c: how stub/egress/forward.c puts the policy's 'forward'
 * statements and a run's --jail-forward together: the policy's first, an
 * option for a port the policy forwards to the same host adds nothing, to
 * the other loopback address it is refused; a mode that fixes the network
 * keeps its policy's forwards and refuses the run's; --jail-net makes the
 * policy's moot.  forward.c keeps its state in statics, so each case runs
 * in a child, which reports what --jail-explain would list. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/wait.h>
#include <unistd.h>

#include "egress/egress.h"

/* ---- fakes ---------------------------------------------------------------- */

static char said[512]; /* what explain wrote, its values only */
static const char *net_option;

noreturn void diep(const char *step, const char *what, int err, const char *hint)
{
	printf("die: %s %s %s", step, what ? what : "", hint ? hint : "");
	fflush(stdout);
	(void)err;
	_exit(125);
}

noreturn void die(const char *step, int err, const char *hint)
{
	diep(step, NULL, err, hint);
}

noreturn void die_usage(const char *what, const char *arg)
{
	diep(what, arg, 0, NULL);
}

const char *extra_net_option(void)
{
	return net_option;
}

void landlock_port(int ruleset, unsigned port, bool bind)
{
	(void)ruleset, (void)port, (void)bind;
}

bool wire_send(int sock, enum wire_msg m, const struct iovec *iov, unsigned n, const int *fds,
               unsigned n_fds)
{
	(void)sock, (void)m, (void)iov, (void)n, (void)fds, (void)n_fds;
	return false;
}

int wire_recv(int sock, enum wire_msg m, void *buf, size_t len, int *fds, unsigned max)
{
	(void)sock, (void)m, (void)buf, (void)len, (void)fds, (void)max;
	return -1;
}

void rp_open(const char *key, char kind)
{
	(void)key, (void)kind;
}
void rp_close(void)
{
}
void rp_t(const char *s)
{
	(void)s;
}
void rp_str(const char *key, const char *s)
{
	snprintf(said + strlen(said), sizeof(said) - strlen(said), "%s=%s ", key, s);
}
void rp_jstr(const char *key, const char *s)
{
	(void)key, (void)s;
}
void rp_u(const char *key, unsigned long long v)
{
	snprintf(said + strlen(said), sizeof(said) - strlen(said), "%s=%llu ", key, v);
}

uint64_t reached_now_ms(void)
{
	return 0;
}

void reached_conn(const char *target, const struct sockaddr *to, uint64_t up, uint64_t down,
                  uint64_t since_ms)
{
	(void)target, (void)to, (void)up, (void)down, (void)since_ms;
}

size_t out_fmt_u(char *buf, unsigned long long v)
{
	return (size_t)sprintf(buf, "%llu", v);
}

void reached_published(const struct sockaddr *on, unsigned port, uint64_t up, uint64_t down,
                       uint64_t since_ms)
{
	(void)on, (void)port, (void)up, (void)down, (void)since_ms;
}

/* ---- the cases -------------------------------------------------------------- */

static const struct aj_forward policy_fw[] = {{11434, 0}, {5432, 1}};

/* Runs forward_add() for each option, forward_apply() on v, and prints
 * the explain's values (or the refusal): what the child said. */
static const char *run(const struct aj_variant *v, const char *const *opts, const char *net)
{
	static char out[1024];
	int p[2], st;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		dup2(p[1], 1);
		net_option = net;
		for (; *opts; opts++)
			if (!strncmp(*opts, "--jail-publish=", 15))
				publish_add(*opts + 15, *opts);
			else
				forward_add(strchr(*opts, '=') + 1, *opts);
		v = forward_apply(v);
		forward_explain();
		printf("network=%d count=%u %s", v->network, forward_count(), said);
		fflush(stdout);
		_exit(0);
	}
	close(p[1]);
	n = read(p[0], out, sizeof(out) - 1);
	out[n > 0 ? n : 0] = 0;
	close(p[0]);
	waitpid(pid, &st, 0);
	return out;
}

static void policy_first_then_options(void **state)
{
	struct aj_variant v = {.network = AJ_NET_NONE, .forwards = policy_fw, .n_forwards = 2};
	const char *opts[] = {"--jail-forward=8080", "--jail-forward=11434", NULL};

	(void)state;
	assert_string_equal(run(&v, opts, NULL),
	                    "network=0 count=3 port=11434 host=127.0.0.1 host_port=11434 "
	                    "origin=policy port=5432 host=[::1] host_port=5432 origin=policy "
	                    "port=8080 host=127.0.0.1 host_port=8080 origin=option "
	                    "option=--jail-forward=8080 ");
}

static void option_to_the_other_host_is_refused(void **state)
{
	struct aj_variant v = {.network = AJ_NET_NONE, .forwards = policy_fw, .n_forwards = 2};
	const char *opts[] = {"--jail-forward=[::1]:11434", NULL};

	(void)state;
	assert_non_null(strstr(run(&v, opts, NULL), "die: the policy forwards this port to the "
	                                            "host's other loopback address"));
}

static void fixed_mode_keeps_its_own_and_refuses_the_runs(void **state)
{
	struct aj_variant v = {.network = AJ_NET_NONE,
	                       .flags = AJ_VARIANT_NET_FIXED,
	                       .forwards = policy_fw,
	                       .n_forwards = 1};
	const char *none[] = {NULL}, *same[] = {"--jail-forward=127.0.0.1:11434", NULL},
	           *other[] = {"--jail-forward=8080", NULL};

	(void)state;
	assert_string_equal(run(&v, none, NULL), "network=0 count=1 port=11434 host=127.0.0.1 "
	                                         "host_port=11434 origin=policy ");
	/* The same port to the same host adds nothing: nothing to refuse. */
	assert_string_equal(run(&v, same, NULL), "network=0 count=1 port=11434 host=127.0.0.1 "
	                                         "host_port=11434 origin=policy ");
	assert_non_null(
	    strstr(run(&v, other, NULL), "die: use --jail-forward=8080 this mode fixes"));
}

static void host_network_makes_the_policys_moot(void **state)
{
	struct aj_variant v = {.network = AJ_NET_HOST, .forwards = policy_fw, .n_forwards = 2};
	const char *none[] = {NULL};

	(void)state;
	assert_string_equal(run(&v, none, "--jail-net"), "network=5 count=0 " /* AJ_NET_HOST */);
}

/* A forward option narrows 'network public' as it narrows 'host': the
 * port, and nothing else of the internet (README: a local model only). */
static void public_network_is_narrowed(void **state)
{
	struct aj_variant v = {.network = AJ_NET_PUBLIC};
	const char *opt[] = {"--jail-forward=11434", NULL}, *none[] = {NULL};

	(void)state;
	assert_string_equal(run(&v, opt, NULL),
	                    "network=0 count=1 port=11434 host=127.0.0.1 "
	                    "host_port=11434 origin=option option=--jail-forward=11434 ");
	assert_string_equal(run(&v, none, NULL), "network=4 count=0 " /* AJ_NET_PUBLIC */);
}

/* [ADDR:][HOSTPORT:]PORT: the host's 127.0.0.1 unless named. */
static void publish_spellings(void **state)
{
	struct aj_variant v = {.network = AJ_NET_NONE};
	const char *opts[] = {"--jail-publish=3000", "--jail-publish=8081:8080",
	                      "--jail-publish=127.0.0.2:9001:9000", NULL};
	const char *twice[] = {"--jail-publish=3000", "--jail-publish=3000:4000", NULL};
	const char *bad[][2] = {{"--jail-publish=x", NULL},
	                        {"--jail-publish=0", NULL},
	                        {"--jail-publish=1:2:3:4", NULL},
	                        {"--jail-publish=localhost:80:80", NULL},
	                        {"--jail-publish=70000", NULL}};

	(void)state;
	assert_string_equal(
	    run(&v, opts, NULL),
	    "network=0 count=3 host=127.0.0.1 host_port=3000 port=3000 "
	    "origin=option option=--jail-publish=3000 host=127.0.0.1 "
	    "host_port=8081 port=8080 origin=option option=--jail-publish=8081:8080 "
	    "host=127.0.0.2 host_port=9001 port=9000 origin=option "
	    "option=--jail-publish=127.0.0.2:9001:9000 ");
	assert_non_null(strstr(run(&v, twice, NULL), "published twice"));
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_non_null(strstr(run(&v, bad[i], NULL), "die:"));
}

/* The policy's first; an option for the same host port adds nothing
 * when it names the same jail port, and is refused when another. */
static void publish_policy_first(void **state)
{
	const struct aj_publish pol[] = {{htonl(INADDR_LOOPBACK), 3000, 3000}};
	struct aj_variant v = {.network = AJ_NET_NONE, .publishes = pol, .n_publishes = 1};
	const char *same[] = {"--jail-publish=3000", "--jail-publish=8080", NULL};
	const char *other[] = {"--jail-publish=3000:4000", NULL};

	(void)state;
	assert_string_equal(run(&v, same, NULL),
	                    "network=0 count=2 host=127.0.0.1 host_port=3000 port=3000 "
	                    "origin=policy host=127.0.0.1 host_port=8080 port=8080 origin=option "
	                    "option=--jail-publish=8080 ");
	assert_non_null(strstr(run(&v, other, NULL), "die: the policy publishes another port"));
}

/* lockdown (a fixed network) and the host's own namespace refuse it. */
static void publish_needs_a_namespace_of_its_own(void **state)
{
	struct aj_variant fixed = {.network = AJ_NET_NONE, .flags = AJ_VARIANT_NET_FIXED},
	                  host = {.network = AJ_NET_HOST}, blocked = {.network = AJ_NET_BLOCKED};
	const char *opts[] = {"--jail-publish=3000", NULL};

	(void)state;
	assert_non_null(
	    strstr(run(&fixed, opts, NULL), "die: use --jail-publish=3000 this mode fixes"));
	assert_non_null(
	    strstr(run(&host, opts, NULL), "die: use --jail-publish=3000 the jail shares"));
	assert_non_null(
	    strstr(run(&blocked, opts, NULL), "die: use --jail-publish=3000 the jail shares"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(policy_first_then_options),
	    cmocka_unit_test(option_to_the_other_host_is_refused),
	    cmocka_unit_test(fixed_mode_keeps_its_own_and_refuses_the_runs),
	    cmocka_unit_test(host_network_makes_the_policys_moot),
	    cmocka_unit_test(public_network_is_narrowed),
	    cmocka_unit_test(publish_spellings),
	    cmocka_unit_test(publish_policy_first),
	    cmocka_unit_test(publish_needs_a_namespace_of_its_own),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
