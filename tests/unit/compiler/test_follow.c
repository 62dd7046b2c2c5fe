/* test_follow.c: 'network allow follow TOOL' as the compiler
 * emits it.  The compiler alone knows where each tool names its registry
 * (compiler/follow.c); a variant that follows a tool carries that tool's
 * rows, and only them (the stub reads what they name, knowing no tool), a
 * variant that follows none carries none, and the variants that follow
 * the same tool share one table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "compile_fixture.h"
#include "emit.h"
#include "follow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *header_of(const char *policy)
{
	struct compiled *c = compile_str(policy);
	char *text = NULL;
	size_t len = 0;

	if (!c)
		fail_msg("refused: %s", diags());
	FILE *f = open_memstream(&text, &len);
	assert_true(emit_header(f, c, "t.aj"));
	fclose(f);
	return text;
}

static unsigned count(const char *text, const char *what)
{
	unsigned n = 0;

	for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* A row's words, as the header writes them ("\"NAME\""). */
static char *args_quoted(const char *s)
{
	char *q = malloc(strlen(s) + 3);

	sprintf(q, "\"%s\"", s);
	return q;
}

/* Is s one of the tool's own strings (a word two tools share, such as
 * "index-url", is no other tool's)? */
static bool tool_has(int tool, const char *s)
{
	const struct aj_follow_conf *c = follow_conf(tool);

	for (unsigned i = 0; i < c->n_envs; i++)
		if (!strcmp(c->envs[i].name, s))
			return true;
	for (unsigned i = 0; i < c->n_keys; i++)
		if (!strcmp(c->keys[i].key, s) ||
		    (c->keys[i].section && !strcmp(c->keys[i].section, s)))
			return true;
	for (unsigned i = 0; i < c->n_files; i++)
		if (!strcmp(c->files[i].tail, s) ||
		    (c->files[i].var && !strcmp(c->files[i].var, s)) ||
		    (c->files[i].dir_env && !strcmp(c->files[i].dir_env, s)))
			return true;
	return false;
}

static void assert_words(const char *text, int tool, const char *s, bool present)
{
	char *q = args_quoted(s);

	if (present && !strstr(text, q))
		fail_msg("the %s stub lacks %s", aj_follow_names[tool], q);
	if (!present && strstr(text, q) && !tool_has(tool, s))
		fail_msg("the %s stub carries %s, another tool's", aj_follow_names[tool], q);
	free(q);
}

/* Each tool's rows are in its variants' header, and no other tool's. */
static void only_the_followed_tools_rows(void **state)
{
	(void)state;
	for (int t = AJ_FOLLOW_NONE + 1; t < AJ_FOLLOW_COUNT; t++) {
		char *text = header_of(
		    ast_printf("policy p { network allow follow %s \"h.example:443\"; }\n",
		               aj_follow_names[t]));

		assert_int_equal(count(text, "static const struct aj_follow_conf "), 1);
		assert_int_equal(count(text, ".follow = aj_a"), 1);
		for (int o = AJ_FOLLOW_NONE + 1; o < AJ_FOLLOW_COUNT; o++) {
			const struct aj_follow_conf *c = follow_conf(o);

			for (unsigned i = 0; i < c->n_envs; i++)
				assert_words(text, t, c->envs[i].name, o == t);
			for (unsigned i = 0; i < c->n_keys; i++)
				assert_words(text, t, c->keys[i].key, o == t);
			for (unsigned i = 0; i < c->n_files; i++)
				assert_words(text, t, c->files[i].tail, o == t);
		}
		free(text);
	}
}

/* No 'follow': no rows, and the field left at NULL. */
static void no_follow_no_rows(void **state)
{
	(void)state;
	char *text = header_of("policy p { network allow \"h.example:443\"; }\n");

	assert_null(strstr(text, "aj_follow"));
	assert_null(strstr(text, ".follow = aj_a"));
	assert_non_null(strstr(text, ".follow = 0,"));
	free(text);
}

/* The modes that follow the tool share its one table; a mode without
 * the network has none. */
static void one_table_for_the_modes(void **state)
{
	(void)state;
	char *text = header_of("policy p {\n"
	                       "    network allow follow npm \"registry.npmjs.org:443\";\n"
	                       "    mode normal { }\n"
	                       "    mode worker { }\n"
	                       "    mode lockdown { network none; }\n"
	                       "    default mode normal;\n"
	                       "}\n");

	assert_int_equal(count(text, "static const struct aj_follow_conf "), 1);
	assert_int_equal(count(text, "static const struct aj_follow_env "), 1);
	assert_int_equal(count(text, ".follow = aj_a"), 2);
	free(text);
}

/* The compiler's own rows hold together: every tool names its host
 * somewhere (a variable, a file's key), a file only with keys to read in
 * it; every tool but OpenCode names one that replaces the default
 * (OpenCode's variables are two providers' among many: each adds its
 * host); and the variable that hands a file's registry to the tool is one
 * the tool reads. */
static void the_rows_hold_together(void **state)
{
	(void)state;
	assert_null(follow_conf(AJ_FOLLOW_NONE));
	assert_null(follow_conf(AJ_FOLLOW_COUNT));
	for (int t = AJ_FOLLOW_NONE + 1; t < AJ_FOLLOW_COUNT; t++) {
		const struct aj_follow_conf *c = follow_conf(t);
		bool replaces = false;

		assert_non_null(c);
		assert_true(c->n_envs + c->n_keys > 0);
		assert_true(!c->n_files || c->n_keys);
		for (unsigned i = 0; i < c->n_keys; i++)
			replaces |= c->keys[i].replaces;
		for (unsigned i = 0; i < c->n_envs; i++)
			replaces |= c->envs[i].replaces;
		assert_true(replaces || t == AJ_FOLLOW_OPENCODE);
		for (unsigned i = 0; i < c->n_files; i++) {
			bool read = !c->files[i].var;

			assert_true(c->files[i].tail[0] == '/');
			assert_true(!c->files[i].home_dir[0] || c->files[i].home_dir[0] == '/');
			for (unsigned k = 0; k < c->n_envs && !read; k++)
				read = !strcmp(c->envs[k].name, c->files[i].var) &&
				       c->envs[k].replaces;
			if (!read)
				fail_msg(
				    "%s: %s is not a variable the tool reads its registry from",
				    aj_follow_names[t], c->files[i].var);
		}
	}
}

/* 'secret NAME follow': the key is emitted with the followed hosts (the
 * stub moves it with them), one of them when named; a fixed host of the
 * same statement is not among them. */
static void a_key_follows_the_followed_hosts(void **state)
{
	char *h = header_of("policy p { network allow \"fixed.example\" follow opencode "
	                    "\"api.anthropic.com\" \"api.openai.com\";\n"
	                    "secret A follow \"api.anthropic.com\";\n secret B follow; }");
	const char *a = strstr(h, "{.name = \"A\"");

	assert_non_null(a);
	assert_non_null(strstr(a, ".n_hosts = 1, .follows = 1}"));
	assert_non_null(strstr(h, "{.name = \"B\""));
	assert_non_null(strstr(strstr(h, "{.name = \"B\""), ".n_hosts = 2, .follows = 1}"));
	assert_non_null(strstr(h, "\t\"api.anthropic.com:443\",\n\t\"api.openai.com:443\",\n"));
	/* A fixed host is never a following key's. */
	assert_int_equal(count(h, "\"fixed.example:443\""), 1);
	free(h);
}

static void refused(const char *policy, const char *want)
{
	if (compile_str(policy))
		fail_msg("compiled: %s", policy);
	if (!strstr(diags(), want))
		fail_msg("no \"%s\" in: %s", want, diags());
}

/* A key follows only a followed tool, and only one of its hosts. */
static void a_key_follows_only_what_is_followed(void **state)
{
	refused("policy p { network allow \"api.example\"; secret K follow; }",
	        "error: the key K follows the API host of a followed tool, and mode 'normal' "
	        "follows none");
	refused("policy p { network public; secret K follow; }", "follows none");
	refused("policy p { network allow \"api.example\" follow claude \"api.anthropic.com\";\n"
	        "secret K follow \"api.example\"; }",
	        "error: the key K follows api.example:443, which is not a host the followed "
	        "tool's setting replaces");
	refused("policy p { network allow follow claude \"api.anthropic.com\";\n"
	        "secret K follow \"a.example\" \"b.example\"; }",
	        "a key follows one host at most");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(only_the_followed_tools_rows, setup, teardown),
	    cmocka_unit_test_setup_teardown(no_follow_no_rows, setup, teardown),
	    cmocka_unit_test_setup_teardown(one_table_for_the_modes, setup, teardown),
	    cmocka_unit_test_setup_teardown(the_rows_hold_together, setup, teardown),
	    cmocka_unit_test_setup_teardown(a_key_follows_the_followed_hosts, setup, teardown),
	    cmocka_unit_test_setup_teardown(a_key_follows_only_what_is_followed, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
