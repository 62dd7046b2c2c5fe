/* test_match.c: the stub's compiled mask matcher (stub/scan/match.c) on
 * hand-written steps: each form, the quick filters, token programs with
 * escaped bytes, the automaton's hand-over between directories, and names
 * an attacker chose.  The compiler's side is tests/unit/compiler/test_match.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "scan/scan.h"

static const uint8_t sets[2 * 32] = {
    [('0' >> 3)] = 0xff,
    [('8' >> 3)] = 0x03,   /* set 1: the digits */
    [32 + ('/' >> 3)] = 0, /* set 2: empty */
};

static const struct aj_scan sc = {.sets = sets, .n_sets = 2};

static bool m(const struct aj_step *st, const char *name)
{
	return match_step(&sc, st, name, strlen(name));
}

static void forms(void **state)
{
	const struct aj_step exact = {AJ_NAME_EXACT, 0, 2, '.', 4, 4, 4, 0, ".env", "", 0, 0};
	const struct aj_step prefix = {AJ_NAME_PREFIX, 0, 2, 'i', 6, 255, 6, 0, "id_rsa", "", 0, 0};
	const struct aj_step suffix = {AJ_NAME_SUFFIX, 0, 2, 0, 4, 255, 0, 4, "", ".pem", 0, 0};
	const struct aj_step affix = {AJ_NAME_AFFIX, 0, 2, 'a', 4, 255, 2, 2, "ab", "ba", 0, 0};
	const struct aj_step any = {AJ_NAME_ANY, 0, 2, 0, 0, 255, 0, 0, "", "", 0, 0};
	const struct aj_step star = {AJ_NAME_GLOBSTAR, 0, 0, 0, 0, 255, 0, 0, "", "", 0, 0};

	(void)state;
	assert_true(m(&exact, ".env"));
	assert_false(m(&exact, ".enw"));
	assert_false(m(&exact, ".env2"));
	assert_true(m(&prefix, "id_rsa"));
	assert_true(m(&prefix, "id_rsa.pub"));
	assert_false(m(&prefix, "id_rs"));
	assert_true(m(&suffix, "x.pem"));
	assert_true(m(&suffix, ".pem"));
	assert_false(m(&suffix, "x.pe"));
	assert_true(m(&affix, "abba"));
	assert_true(m(&affix, "abxyba"));
	assert_false(m(&affix, "aba")); /* shorter than prefix + suffix */
	assert_true(m(&any, "x"));
	assert_false(m(&star, "x")); /* '**' names no entry itself */
}

static void tokens(void **state)
{
	/* "\x01" is a star, "\x04\x01" a literal byte 1, "\x03\x01" set 1 */
	const struct aj_step lit = {AJ_NAME_GLOB, 0, 2, 0, 2, 255, 0, 0, "a\x04\x01\x01", "", 0, 0};
	const struct aj_step digits = {AJ_NAME_GLOB,        0,  2, 'v', 3, 3, 0, 0,
	                               "v\x03\x01\x03\x01", "", 0, 0};
	const struct aj_step empty = {AJ_NAME_GLOB, 0, 2, 0, 1, 1, 0, 0, "\x03\x02", "", 0, 0};
	const struct aj_step one = {AJ_NAME_GLOB, 0, 2, 0, 2, 255, 0, 0, "\x01\x02x", "", 0, 0};

	(void)state;
	assert_true(m(&lit, "a\x01"));
	assert_true(m(&lit, "a\x01zz"));
	assert_false(m(&lit, "a\x02"));
	assert_true(m(&digits, "v42"));
	assert_false(m(&digits, "v4x"));
	assert_false(m(&digits, "w42")); /* quick filter: first byte */
	assert_false(m(&empty, "a"));
	assert_true(m(&one, "ax"));
	assert_true(m(&one, "xxxax"));
	assert_false(m(&one, "x"));
}

static void classify(void **state)
{
	/* floating ".env" (mask) and "secrets/" (deny, directories only);
	 * anchored config/(any directories)/prod.yml (mask) as steps 0..2 */
	const struct aj_step fl[] = {
	    {AJ_NAME_EXACT, 0, AJ_PATTERN_MASK, '.', 4, 4, 4, 0, ".env", "", 0, 0},
	    {AJ_NAME_EXACT, AJ_NAME_DIR, AJ_PATTERN_DENY, 's', 7, 7, 7, 0, "secrets", "", 0, 1},
	    {AJ_NAME_EXACT, AJ_NAME_NOCASE, AJ_PATTERN_MASK, 'k', 3, 3, 3, 0, "key", "", 0, 3},
	};
	const struct aj_step st[] = {
	    {AJ_NAME_EXACT, 0, 0, 'c', 6, 6, 6, 0, "config", "", 0x6, 2},
	    {AJ_NAME_GLOBSTAR, 0, 0, 0, 0, 255, 0, 0, "", "", 0x6, 2},
	    {AJ_NAME_EXACT, 0, AJ_PATTERN_MASK, 'p', 8, 8, 8, 0, "prod.yml", "", 0, 2},
	};
	const struct aj_scan s = {
	    .floating = fl, .n_floating = 3, .steps = st, .n_steps = 3, .start = 0x1};
	uint64_t in;

	(void)state;
	assert_int_equal(match_classify(&s, ".env", 4, false, s.start, &in), AJ_PATTERN_MASK);
	assert_int_equal(match_classify(&s, "secrets", 7, false, 0, &in), 0);
	assert_int_equal(match_classify(&s, "secrets", 7, true, 0, &in), AJ_PATTERN_DENY);
	assert_int_equal(match_classify(&s, "KeY", 3, false, 0, &in), AJ_PATTERN_MASK);
	assert_int_equal(match_classify(&s, "config", 6, true, s.start, &in), 0);
	assert_int_equal(in, 0x6);
	assert_int_equal(match_classify(&s, "a", 1, true, 0x6, &in), 0);
	assert_int_equal(in, 0x6); /* '**' goes on below itself */
	assert_int_equal(match_classify(&s, "a", 1, false, 0x6, &in), 0);
	assert_int_equal(in, 0); /* a file has no inside */
	assert_int_equal(match_classify(&s, "prod.yml", 8, false, 0x6, &in), AJ_PATTERN_MASK);
	assert_int_equal(match_classify(&s, "prod.yml", 8, false, s.start, &in), 0);
}

static void untrusted_names(void **state)
{
	/* "*a*a*…*b" against 255 a's: linear backtracking keeps it quick; an
	 * exponential matcher would time out here. */
	char prog[64], name[256];
	struct aj_step st = {AJ_NAME_GLOB, 0, 2, 0, 0, 255, 0, 0, prog, "", 0, 0};
	size_t n = 0;

	(void)state;
	for (int i = 0; i < 12; i++) {
		prog[n++] = AJ_TOK_STAR;
		prog[n++] = 'a';
	}
	prog[n++] = AJ_TOK_STAR;
	prog[n++] = 'b';
	prog[n] = 0;
	memset(name, 'a', 255);
	name[255] = 0;
	for (int i = 0; i < 10000; i++)
		assert_false(match_step(&sc, &st, name, 255));
	name[254] = 'b';
	assert_true(match_step(&sc, &st, name, 255));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(forms),
	    cmocka_unit_test(tokens),
	    cmocka_unit_test(classify),
	    cmocka_unit_test(untrusted_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
