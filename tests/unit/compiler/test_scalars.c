/* compiler/test_scalars.c: every row of M_SCALARS (compiler/variant.h),
 * the settings that take one number, from the key to the stub's table:
 * the value a block gives reaches the variant, a mode block's replaces
 * the body's, the same key twice in a block and a number above the row's
 * largest are refused, and the header emitted, compiled back against
 * include/aj_table.h, holds the value in the aj_variant field of the
 * key's name.  A new row is covered without a new test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "compile_fixture.h"

#include <unistd.h>

struct scalar {
	const char *key, *arg, *what;
	uint64_t max;
	size_t offset; /* in struct variant */
	size_t size;
};

#define ROW(key, type, max, arg, what)                                                             \
	{#key, arg, what, max, offsetof(struct variant, key), sizeof(type)},
static const struct scalar rows[] = {M_SCALARS(ROW)};

static uint64_t field(const struct variant *v, const struct scalar *r)
{
	uint64_t x = 0;
	/* Little-endian x86_64: the low bytes of x are the field's. */
	memcpy(&x, (const char *)v + r->offset, r->size);
	return x;
}

static void value_reaches_the_variant(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(rows); i++) {
		const struct scalar *r = &rows[i];
		struct compiled *c = compile_str(ast_printf("policy p { %s 7; }", r->key));
		assert_non_null(c);
		assert_int_equal(field(&c->variants.v[0], r), 7);
		c = compile_str("policy p { }");
		assert_non_null(c);
		assert_int_equal(field(&c->variants.v[0], r), 0);
		c = compile_str(ast_printf("policy p { %s %llu; mode strict { %s 3; } }", r->key,
		                           (unsigned long long)r->max, r->key));
		assert_non_null(c);
		assert_int_equal(c->variants.n, 2);
		assert_int_equal(field(&c->variants.v[0], r), r->max);
		assert_int_equal(field(&c->variants.v[1], r), 3);
	}
}

static void refused(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(rows); i++) {
		const struct scalar *r = &rows[i];
		assert_null(compile_str(ast_printf("policy p { %s 1; %s 2; }", r->key, r->key)));
		assert_non_null(
		    strstr(diags(), ast_printf("'%s' is already set in this block", r->key)));
		assert_null(compile_str(
		    ast_printf("policy p { %s %llu; }", r->key, (unsigned long long)r->max + 1)));
		assert_non_null(strstr(diags(), ast_printf("error: expected %s", r->what)));
		assert_null(compile_str(ast_printf("policy p { %s; }", r->key)));
		assert_non_null(strstr(diags(), ast_printf("%s %s;", r->key, r->arg)));
	}
}

/* The emitted header, with a main that checks the field, built with the
 * host's compiler from the tree's root (where the unit tests run). */
static void header_compiles_back(void **state)
{
	(void)state;
	if (system("cc --version >/dev/null 2>&1") != 0)
		skip(); /* no compiler to build the header with */
	char dir[] = "/tmp/aj-scalars-XXXXXX";
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < N(rows); i++) {
		const struct scalar *r = &rows[i];
		struct compiled *c = compile_str(ast_printf("policy p { %s 7; }", r->key));
		assert_non_null(c);
		FILE *f = fopen(ast_printf("%s/t.h", dir), "w");
		assert_non_null(f);
		assert_true(emit_header(f, c, "t.aj"));
		fprintf(f,
		        "int main(void)\n{\n\treturn aj_policy.variants[0].%s == 7 ? 0 : 3;\n}\n",
		        r->key);
		assert_int_equal(fclose(f), 0);
		char *cmd = ast_printf(
		    "cc -std=gnu11 -Wall -Werror -I. -x c -o %s/t %s/t.h && %s/t", dir, dir, dir);
		int rc = system(cmd);
		if (rc != 0)
			fail_msg("the header for '%s 7;' did not build or hold 7 (%s: %d)", r->key,
			         cmd, rc);
	}
	assert_int_equal(system(ast_printf("rm -rf %s", dir)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(value_reaches_the_variant, setup, teardown),
	    cmocka_unit_test_setup_teardown(refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(header_compiles_back, setup, teardown),
	};
	return cmocka_run_group_tests_name("compiler scalar settings", tests, NULL, NULL);
}
