/* test_glob.c: the stub's glob matcher (stub/base/glob.c), which the environment
 * allowlist and device names use, and the reference the compiled mask
 * matcher is checked against (tests/unit/compiler/test_match.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/base.h"

#define YES(p, s) assert_true(glob_match((p), (s)))
#define NO(p, s)  assert_false(glob_match((p), (s)))

static void literal(void **state)
{
	(void)state;
	YES(".env", ".env");
	NO(".env", ".env2");
	NO(".env", ".en");
	NO(".env", "");
	YES("", "");
	NO("", "a");
	YES("a/b", "a/b");
	NO("a/b", "a/c");
}

static void star(void **state)
{
	(void)state;
	YES("*", "");
	YES("*", "anything.txt");
	YES("*.pem", "server.pem");
	YES("*.pem", ".pem");
	NO("*.pem", "server.pem.bak");
	YES(".env.*", ".env.local");
	YES(".env.*", ".env.");
	NO(".env.*", ".env");
	YES("*token*.json", "my_token.json");
	YES("*token*.json", "token.json");
	YES("*token*.json", ".tokenizer_config.json");
	NO("*token*.json", "tok.json");
	YES("id_rsa*", "id_rsa");
	YES("id_rsa*", "id_rsa.pub");
	YES("a*b*c", "abc");
	YES("a*b*c", "aXbYbZc");
	NO("a*b*c", "aXbYbZ");
	YES("***", "x"); /* runs of '*' inside a segment are one '*' */
	/* '*' never crosses a '/' */
	NO("*", "a/b");
	NO("a*", "a/b");
	YES("*/b", "a/b");
	NO("*/b", "a/x/b");
	/* a '*' that must give back what it took */
	YES("*ab", "aab");
	YES("*aab", "aaab");
	NO("*aab", "aaba");
}

static void question(void **state)
{
	(void)state;
	YES("?", "a");
	NO("?", "");
	NO("?", "ab");
	YES("id_?sa", "id_rsa");
	NO("a?b", "a/b");
	YES("??", "ab");
}

static void sets(void **state)
{
	(void)state;
	YES("[abc]", "b");
	NO("[abc]", "d");
	YES("[a-z]", "q");
	NO("[a-z]", "Q");
	YES("[!a-z]", "Q");
	YES("[^a-z]", "Q");
	NO("[!a-z]", "q");
	YES("[]]", "]");
	YES("[]a]", "a");
	YES("[!]]", "a");
	NO("[!]]", "]");
	YES("x[0-9][0-9]", "x42");
	NO("x[0-9][0-9]", "x4");
	YES("[a-]", "-");
	YES("[\\]]", "]");
	NO("[/]", "/"); /* a set never matches '/' */
	NO("a[!x]b", "a/b");
	YES("[", "["); /* unterminated: a literal '[' */
	YES("a[b", "a[b");
	NO("a[b", "ab");
}

static void escape(void **state)
{
	(void)state;
	YES("\\*", "*");
	NO("\\*", "a");
	YES("a\\?", "a?");
	NO("a\\?", "ab");
	YES("\\[x]", "[x]");
}

static void globstar(void **state)
{
	(void)state;
	YES("**", "a");
	YES("**", "a/b/c");
	YES("**/secrets", "secrets");
	YES("**/secrets", "a/secrets");
	YES("**/secrets", "a/b/c/secrets");
	NO("**/secrets", "a/b/c/secrets2");
	NO("**/secrets", "xsecrets");
	YES("config/**/prod.yml", "config/prod.yml");
	YES("config/**/prod.yml", "config/a/prod.yml");
	YES("config/**/prod.yml", "config/a/b/c/prod.yml");
	NO("config/**/prod.yml", "config2/a/prod.yml");
	NO("config/**/prod.yml", "x/config/a/prod.yml");
	YES("build/**", "build/x");
	YES("build/**", "build/x/y");
	NO("build/**", "build");
	NO("build/**", "builder/x");
	YES("a/**/b/**/c", "a/b/c");
	YES("a/**/b/**/c", "a/x/b/y/z/c");
	NO("a/**/b/**/c", "a/x/c");
	YES("**/*.pem", "certs/deep/x.pem");
	YES("**/*.pem", "x.pem");
	NO("**/*.pem", "certs/x.pem/y");
	/* "**" that is not a whole segment is a plain '*' */
	YES("a**b", "axxb");
	NO("a**b", "a/b");
	YES("x*/**/y", "xa/y");
	YES("x*/**/y", "xab/c/d/y");
	NO("x*/**/y", "a/y");
}

static void untrusted_names(void **state)
{
	/* A long name against many stars must stay quick (linear backtracking):
	 * the test would time out if it were exponential. */
	char name[4097];

	(void)state;
	for (int i = 0; i < 4096; i++)
		name[i] = 'a';
	name[4096] = '\0';
	NO("*a*a*a*a*a*a*a*a*a*a*b", name);
	YES("*a*a*a*a*a*a*a*a*a*a*a", name);
	NO("**/**/**/**/b", "a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(literal),         cmocka_unit_test(star),
	    cmocka_unit_test(question),        cmocka_unit_test(sets),
	    cmocka_unit_test(escape),          cmocka_unit_test(globstar),
	    cmocka_unit_test(untrusted_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
