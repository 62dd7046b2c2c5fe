/* compiler/test_network.c: the network levels as the compiler writes them.
 * 'network blocked' keeps the host's network namespace, so its seccomp
 * rule is what stands between the jail and every socket family but Unix:
 * the emitted filters are executed here by the interpreter, for the
 * families that reach the host, for AF_UNIX, and for values that only look
 * like AF_UNIX in their low 32 bits.  And the level sits between none and
 * loopback in the order modes are checked against. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bpf_run.h"
#include "compile_fixture.h"
#include "diag.h"
#include "model.h"
#include "parse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>


/* What every filter of the variant, stacked, answers to socket(family). */
static uint32_t socket_verdict(const struct variant *v, uint64_t family)
{
	struct aj_seccomp_data d = {.nr = SYS_socket, .arch = AJ_AUDIT_ARCH_X86_64};
	uint32_t best = AJ_RET_ALLOW;
	d.args[0] = family;
	d.args[1] = SOCK_STREAM;
	for (size_t i = 0; i < v->filters.n; i++)
		best = bpf_merge(best, bpf_run(v->filters.v[i].insns.v, v->filters.v[i].insns.n, &d));
	return best;
}

static void blocked_refuses_every_family_but_unix(void **state)
{
	(void)state;
	struct compiled *c = compile_str("policy p {\n"
					 "    network blocked;\n"
					 "    syscalls default allow;\n"
					 "    mode lockdown { syscalls default deny; syscalls allow socket; }\n"
					 "}\n");
	assert_non_null(c);
	assert_string_equal(diags(), "");
	for (size_t i = 0; i < c->variants.n; i++) {
		const struct variant *v = &c->variants.v[i];
		assert_int_equal(v->network, AJ_NET_BLOCKED);
		assert_int_equal(socket_verdict(v, AF_UNIX), AJ_RET_ALLOW);
		const uint64_t refused[] = {AF_UNSPEC, AF_INET, AF_INET6, AF_NETLINK, AF_PACKET,
					    AF_VSOCK, AF_TIPC, 45 /* AF_MCTP */, 46, 255,
					    0x100000000ULL | AF_UNIX, 0xffffffff00000001ULL,
					    0x100000000ULL | AF_INET};
		for (size_t k = 0; k < sizeof(refused) / sizeof(refused[0]); k++)
			assert_int_equal(socket_verdict(v, refused[k]), AJ_RET_ERRNO(EAFNOSUPPORT));
	}
}

static void other_levels_keep_sockets(void **state)
{
	(void)state;
	struct compiled *c = compile_str("policy p { network none; syscalls default allow; }\n");
	assert_non_null(c);
	assert_int_equal(c->variants.v[0].network, AJ_NET_NONE);
	assert_int_equal(socket_verdict(&c->variants.v[0], AF_INET), AJ_RET_ALLOW);
}

static void blocked_ranks_between_none_and_loopback(void **state)
{
	(void)state;
	assert_non_null(compile_str("policy p {\n"
				    "    network loopback;\n"
				    "    mode worker { network blocked; }\n"
				    "    mode lockdown { network none; }\n"
				    "}\n"));
	ast_arena_free();
	assert_null(compile_str("policy p {\n"
				"    network blocked;\n"
				"    mode worker { network loopback; }\n"
				"}\n"));
	assert_non_null(strstr(diags(), "its network is loopback, mode 'normal' has blocked"));
}

/* 'network allow': normal hosts, the followed tool's default first, and
 * a mode may only keep or drop hosts. */
static void allow_lists_hosts(void **state)
{
	(void)state;
	struct compiled *c = compile_str("policy p {\n"
					 "    network allow \"A.example.org\" follow pip \"pypi.org\"\n"
					 "        \"files.pythonhosted.org:443\" \"[::1]:8080\";\n"
					 "}\n");
	assert_non_null(c);
	const struct variant *v = &c->variants.v[0];
	assert_int_equal(v->network, AJ_NET_ALLOW);
	assert_int_equal(v->follow, AJ_FOLLOW_PIP);
	assert_int_equal(v->n_hosts, 4);
	assert_int_equal(v->n_followed, 3);
	assert_string_equal(v->hosts[0], "pypi.org:443");
	assert_string_equal(v->hosts[1], "files.pythonhosted.org:443");
	assert_string_equal(v->hosts[2], "[::1]:8080");
	assert_string_equal(v->hosts[3], "a.example.org:443");
	/* Sockets stay: the jail's own namespace has lo only. */
	assert_int_equal(socket_verdict(v, AF_INET), AJ_RET_ALLOW);
}

static void allow_ranks_between_loopback_and_host(void **state)
{
	(void)state;
	assert_non_null(compile_str("policy p {\n"
				    "    network host;\n"
				    "    mode worker { network allow \"a.org\" \"b.org\"; }\n"
				    "    mode strict { network allow \"a.org\"; }\n"
				    "    mode lockdown { network loopback; }\n"
				    "}\n"));
	ast_arena_free();
	assert_null(compile_str("policy p {\n"
				"    network allow \"a.org\";\n"
				"    mode worker { network allow \"a.org\" \"b.org\"; }\n"
				"}\n"));
	assert_non_null(strstr(diags(), "it allows host \"b.org:443\", which mode 'normal' does not"));
	ast_arena_free();
	assert_null(compile_str("policy p {\n"
				"    network loopback;\n"
				"    mode worker { network allow \"a.org\"; }\n"
				"}\n"));
	assert_non_null(strstr(diags(), "its network is allow, mode 'normal' has loopback"));
}

/* 'forward': the ports in the table, a later block's forward of the same
 * port replacing the earlier one, and a mode's 'network' keeping only its
 * own block's (lockdown forwards what it says itself). */
static void forwards_follow_their_blocks(void **state)
{
	(void)state;
	struct compiled *c = compile_str("policy p {\n"
					 "    network none;\n"
					 "    forward 11434 \"[::1]:5432\";\n"
					 "    mode worker { forward [::1]:11434; }\n"
					 "    mode lockdown { forward 5432; network none; }\n"
					 "}\n");
	assert_non_null(c);
	assert_string_equal(diags(), "");
	assert_int_equal(c->variants.n, 3);
	const struct variant *n = &c->variants.v[0], *w = &c->variants.v[1], *l = &c->variants.v[2];
	assert_int_equal(n->forwards.n, 2);
	assert_int_equal(n->forwards.v[0].port, 11434);
	assert_false(n->forwards.v[0].v6);
	assert_int_equal(n->forwards.v[1].port, 5432);
	assert_true(n->forwards.v[1].v6);
	assert_int_equal(w->forwards.n, 2);
	assert_true(w->forwards.v[0].v6); /* replaced in place */
	assert_int_equal(l->forwards.n, 1);
	assert_int_equal(l->forwards.v[0].port, 5432);
	assert_false(l->forwards.v[0].v6);
}

static void forwards_need_a_namespace(void **state)
{
	(void)state;
	assert_null(compile_str("policy p { network blocked; forward 80; }\n"));
	assert_non_null(strstr(diags(), "a forward needs the jail's own network namespace"));
	ast_arena_free();
	assert_null(compile_str("policy p { forward 80; network host; }\n"));
	ast_arena_free();
	/* A stronger mode may forward what the host's network of the weaker
	 * one reaches anyway. */
	struct compiled *c = compile_str(
	    "policy p { network host; mode worker { network none; forward 80; } }\n");
	assert_non_null(c);
	assert_int_equal(c->variants.v[0].forwards.n, 0);
	assert_int_equal(c->variants.v[1].forwards.n, 1);
}

/* 'secret': a key in the table with its hosts in their normal spelling;
 * a later block's key of the same name replacing the earlier one (and a
 * stricter mode's no wider than the weaker's); a mode's
 * 'network' keeping its own block's keys only; a host the variant's
 * proxy would not let through refused. */
static void keys_follow_their_blocks(void **state)
{
	(void)state;
	struct compiled *c =
	    compile_str("policy p {\n"
	                "    network public;\n"
	                "    secret A_KEY \"API.Example.com\" \"b.org:8443\";\n"
	                "    secret B_KEY \"d.org\";\n"
	                "    mode worker { secret A_KEY \"b.org:8443\"; }\n"
	                "    mode lockdown { network none; }\n"
	                "}\n");
	assert_non_null(c);
	assert_string_equal(diags(), "");
	assert_int_equal(c->variants.n, 3);
	const struct variant *n = &c->variants.v[0], *w = &c->variants.v[1], *l = &c->variants.v[2];
	assert_int_equal(n->keys.n, 2);
	assert_string_equal(n->keys.v[0].name, "A_KEY");
	assert_int_equal(n->keys.v[0].n_hosts, 2);
	assert_string_equal(n->keys.v[0].hosts[0], "api.example.com:443");
	assert_string_equal(n->keys.v[0].hosts[1], "b.org:8443");
	assert_int_equal(w->keys.n, 2);
	assert_int_equal(w->keys.v[0].n_hosts, 1);
	assert_string_equal(w->keys.v[0].hosts[0], "b.org:8443");
	assert_int_equal(l->keys.n, 0);
	ast_arena_free();
	/* a stricter mode gives no key, nor a host of one, the weaker does not */
	assert_null(compile_str("policy p { network public; secret K \"a.org\";\n"
	                        "    mode ci { secret K \"a.org\" \"b.org\"; } }\n"));
	assert_non_null(strstr(diags(), "it binds the key K to b.org:443, which mode 'normal' does not"));
	ast_arena_free();
	c = compile_str(
	    "policy p { network allow \"*.example.com\"; secret K \"api.example.com\"; }\n");
	assert_non_null(c);
	ast_arena_free();
	assert_null(compile_str(
	    "policy p { network allow \"*.example.com\"; secret K \"example.com\"; }\n"));
	assert_non_null(
	    strstr(diags(), "the key K is bound to example.com:443, which the jail cannot reach"));
	ast_arena_free();
	assert_null(compile_str("policy p { network loopback; secret K \"a.org\"; }\n"));
	assert_non_null(strstr(diags(), "which 'network loopback' does not have"));
	ast_arena_free();
	/* the followed tool's default is replaced by its registry at run time */
	assert_null(compile_str("policy p { network allow follow npm \"registry.npmjs.org\"; "
	                        "secret K \"registry.npmjs.org\"; }\n"));
	assert_non_null(strstr(diags(), "'network allow' does not list the host"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(blocked_refuses_every_family_but_unix, setup,
						teardown),
		cmocka_unit_test_setup_teardown(other_levels_keep_sockets, setup, teardown),
		cmocka_unit_test_setup_teardown(blocked_ranks_between_none_and_loopback, setup,
						teardown),
		cmocka_unit_test_setup_teardown(allow_lists_hosts, setup, teardown),
		cmocka_unit_test_setup_teardown(forwards_follow_their_blocks, setup, teardown),
		cmocka_unit_test_setup_teardown(forwards_need_a_namespace, setup, teardown),
		cmocka_unit_test_setup_teardown(keys_follow_their_blocks, setup, teardown),
		cmocka_unit_test_setup_teardown(allow_ranks_between_loopback_and_host, setup,
						teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
