/* compiler/test_match.c: the compiler's scan automaton of mask/deny/prune
 * patterns (compiler/automaton.c) run by the stub's matcher (stub/scan/match.c),
 * checked against the reference glob semantics (stub/base/glob.c): a path is
 * hidden by the walk exactly when the glob matches the path or one of its
 * directories.  Hand-picked cases first, then random patterns and paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "compile_fixture.h"
#include "diag.h"
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stub/scan/match.c and stub/base/glob.c (stub.h cannot be included beside model.h) */
bool glob_match(const char *pattern, const char *s);
uint8_t match_classify(const struct aj_scan *sc, const char *name, size_t len, bool isdir,
                      uint64_t state, uint64_t *inside);

/* The variant's m_scan as the struct aj_scan the header would hold. */
struct automaton {
	struct aj_scan sc;
	struct aj_step fl[64], st[64];
	uint8_t sets[255 * 32];
};

static void to_table(const struct m_scan *m, struct automaton *l, int depth)
{
	memset(l, 0, sizeof(*l));
	assert_true(m->floating.n <= 64 && m->steps.n <= 64);
	for (size_t i = 0; i < m->floating.n; i++) {
		l->fl[i] = m->floating.v[i].s;
		l->fl[i].a = m->floating.v[i].a;
		l->fl[i].b = m->floating.v[i].b;
	}
	for (size_t i = 0; i < m->steps.n; i++) {
		l->st[i] = m->steps.v[i].s;
		l->st[i].a = m->steps.v[i].a;
		l->st[i].b = m->steps.v[i].b;
	}
	for (size_t i = 0; i < m->sets.n; i++)
		memcpy(l->sets + 32 * i, m->sets.v[i], 32);
	l->sc = (struct aj_scan){.floating = l->fl,
	                         .steps = l->st,
	                         .sets = l->sets,
	                         .start = m->start,
	                         .n_floating = (uint16_t)m->floating.n,
	                         .n_steps = (uint8_t)m->steps.n,
	                         .n_sets = (uint8_t)m->sets.n,
	                         .depth = (uint8_t)depth};
}

/* What the walk decides for path (components split on '/'; all but the
 * last are directories): the kind of the first component that matches. */
static int walk_kind(const struct aj_scan *sc, const char *path, bool isdir)
{
	uint64_t state = sc->start;
	const char *p = path;
	for (;;) {
		size_t n = strcspn(p, "/");
		bool last = !p[n];
		uint64_t inside;
		uint8_t k = match_classify(sc, p, n, last ? isdir : true, state, &inside);
		if (k)
			return k;
		if (last)
			return 0;
		state = inside;
		p += n + 1;
	}
}

/* The reference: the glob matches the path, or one of its directories. */
static bool ref_hidden(const char *glob, bool anchored, bool dir_only, const char *path, bool isdir)
{
	char prefix[512];
	size_t len = strlen(path);
	for (size_t end = 0; end <= len; end++) {
		if (path[end] != '/' && path[end] != 0)
			continue;
		bool last = path[end] == 0;
		memcpy(prefix, path, end);
		prefix[end] = 0;
		const char *name = strrchr(prefix, '/');
		name = name ? name + 1 : prefix;
		if (dir_only && !(last ? isdir : true))
			continue;
		if (glob_match(glob, anchored ? prefix : name))
			return true;
	}
	return false;
}

static struct automaton L;

static const struct aj_scan *automaton_of(const char *key, const char *pattern)
{
	char *text = ast_printf("policy p { %s \"%s\"; }", key, pattern);
	struct compiled *c = compile_str(text);
	if (!c) {
		fflush(diag_stream);
		fail_msg("pattern \"%s\" refused: %s", pattern, diag_text ? diag_text : "");
	}
	to_table(&c->variants.v[0].scan, &L, 32);
	return &L.sc;
}

static void check(const char *pattern, const char *path, bool isdir, bool expect)
{
	const struct aj_scan *sc = automaton_of("mask", pattern);
	bool got = walk_kind(sc, path, isdir) == AJ_PATTERN_MASK;
	if (got != expect)
		fail_msg("mask \"%s\" on %s%s: %s, expected %s", pattern, path, isdir ? "/" : "",
		         got ? "hidden" : "visible", expect ? "hidden" : "visible");
}

#define HID(p, s) check((p), (s), false, true)
#define VIS(p, s) check((p), (s), false, false)

static void forms(void **state)
{
	(void)state;
	HID(".env", ".env");
	HID(".env", "a/b/.env");
	VIS(".env", ".env2");
	VIS(".env", "x.env");
	HID(".env.*", ".env.local");
	VIS(".env.*", ".env");
	HID("*.pem", ".pem");
	HID("*.pem", "certs/x.pem");
	VIS("*.pem", "x.pem.bak");
	HID("*token*.json", "token.json");
	HID("*token*.json", "a/my_token_x.json");
	VIS("*token*.json", "tok.json");
	HID("ab*ba", "abba");
	HID("ab*ba", "abxba");
	VIS("ab*ba", "aba"); /* prefix and suffix may not overlap */
	HID("id_?sa", "id_rsa");
	HID("x[0-9][!a]", "x4b");
	VIS("x[0-9][!a]", "x4a");
	HID("*", "anything");
	HID("**", "a");
}

static void anchored(void **state)
{
	(void)state;
	HID("config/*.yml", "config/prod.yml");
	VIS("config/*.yml", "app/config/prod.yml");
	VIS("config/*.yml", "prod.yml");
	HID("/top.txt", "top.txt");
	VIS("/top.txt", "a/top.txt");
	HID("**/private", "a/b/private");
	HID("config/**/prod.yml", "config/prod.yml");
	HID("config/**/prod.yml", "config/a/b/prod.yml");
	VIS("config/**/prod.yml", "x/config/prod.yml");
	HID("build/**", "build/x/y"); /* every entry of build/, one by one */
	VIS("build/**", "build");
	HID("a/**/b/**/c", "a/x/b/y/z/c");
	VIS("a/**/b/**/c", "a/x/c");
	HID("**/a/b", "x/y/a/b");
	VIS("**/a/b", "x/y/a/c");
}

static void directories_only(void **state)
{
	(void)state;
	const struct aj_scan *sc = automaton_of("deny", "secrets/");
	assert_int_equal(walk_kind(sc, "secrets", true), AJ_PATTERN_DENY);
	assert_int_equal(walk_kind(sc, "app/secrets", true), AJ_PATTERN_DENY);
	assert_int_equal(walk_kind(sc, "secrets", false), 0);
	sc = automaton_of("deny", "a/b/");
	assert_int_equal(walk_kind(sc, "a/b", true), AJ_PATTERN_DENY);
	assert_int_equal(walk_kind(sc, "a/b", false), 0);
}

static void nocase(void **state)
{
	(void)state;
	const struct aj_scan *sc = automaton_of("mask nocase", ".env");
	assert_int_equal(walk_kind(sc, ".ENV", false), AJ_PATTERN_MASK);
	assert_int_equal(walk_kind(sc, "a/.Env", false), AJ_PATTERN_MASK);
	assert_int_equal(walk_kind(sc, ".envx", false), 0);
	sc = automaton_of("mask nocase", "[!a]x*");
	assert_int_equal(walk_kind(sc, "AX", false), 0); /* 'A' is 'a': refused */
	assert_int_equal(walk_kind(sc, "bX1", false), AJ_PATTERN_MASK);
	sc = automaton_of("mask nocase", "Config/*.PEM");
	assert_int_equal(walk_kind(sc, "CONFIG/k.pem", false), AJ_PATTERN_MASK);
	/* without nocase, case counts */
	sc = automaton_of("mask", ".env");
	assert_int_equal(walk_kind(sc, ".ENV", false), 0);
}

static void precedence(void **state)
{
	(void)state;
	struct compiled *c = compile_str("policy p { scan prune \"vendor\" \"x/**\"; "
	                                 "mask \"vendor/\" \"*.pem\"; deny \"*.pem\"; }");
	(void)c; /* "*.pem" both masked and denied: refused */
	assert_null(c);
	c = compile_str("policy p { scan prune \"vendor\"; mask \"vendor/\" \"k*\"; "
	                "deny \"key*\"; }");
	assert_non_null(c);
	to_table(&c->variants.v[0].scan, &L, 32);
	assert_int_equal(walk_kind(&L.sc, "vendor", true), AJ_PATTERN_MASK);
	assert_int_equal(walk_kind(&L.sc, "a/vendor", false), 0);
	assert_int_equal(walk_kind(&L.sc, "keys", false), AJ_PATTERN_DENY);
	assert_int_equal(walk_kind(&L.sc, "kx", false), AJ_PATTERN_MASK);
}

static void prune_and_reset(void **state)
{
	(void)state;
	struct compiled *c = compile_str(
	    "policy a { scan prune \"node_modules\" \".git/objects\" \"target\"; "
	    "scan depth 12 deny; }\n"
	    "policy b extends a { mode m { scan prune none; scan prune \"target\"; } }");
	assert_non_null(c);
	const struct variant *n = &c->variants.v[0], *m = &c->variants.v[1];
	assert_int_equal(n->scan_depth, 12);
	assert_int_equal(n->scan_bound, AJ_SCAN_BOUND_DENY);
	to_table(&n->scan, &L, 12);
	assert_int_equal(walk_kind(&L.sc, "a/node_modules", true), AJ_PATTERN_PRUNE);
	assert_int_equal(walk_kind(&L.sc, ".git/objects", true), AJ_PATTERN_PRUNE);
	assert_int_equal(walk_kind(&L.sc, "x/.git/objects", true), 0);
	assert_int_equal(walk_kind(&L.sc, "node_modules", false), 0); /* a file */
	to_table(&m->scan, &L, 12);
	assert_int_equal(walk_kind(&L.sc, "node_modules", true), 0);
	assert_int_equal(walk_kind(&L.sc, "target", true), AJ_PATTERN_PRUNE);
	/* a later mode may not prune what an earlier one walks */
	assert_null(compile_str("policy a { mode m { scan prune \"target\"; } }"));
}

static void guards(void **state)
{
	(void)state;
	struct compiled *c = compile_str("policy p { deny \"/secrets/\"; scan guard \"/.env\" "
	                                 "\"config/prod.yml\" \"/secrets/\"; }");
	assert_non_null(c);
	const struct m_scan *m = &c->variants.v[0].scan;
	assert_int_equal(m->guards.n, 3);
	assert_string_equal(m->guards.v[0], ".env");
	assert_string_equal(m->guards.v[1], "config/prod.yml");
	assert_string_equal(m->guards.v[2], "secrets");
	to_table(m, &L, 32);
	/* present, a guarded path is masked; a deny of the same path wins */
	assert_int_equal(walk_kind(&L.sc, ".env", false), AJ_PATTERN_MASK);
	assert_int_equal(walk_kind(&L.sc, "a/.env", false), 0);
	assert_int_equal(walk_kind(&L.sc, "config/prod.yml", false), AJ_PATTERN_MASK);
	assert_int_equal(walk_kind(&L.sc, "secrets", true), AJ_PATTERN_DENY);
	assert_null(compile_str("policy p { scan guard \"*.env\"; }"));
}

/* ---- random patterns against the reference ---------------------------- */

static unsigned long rng = 88172645463325252UL;

static unsigned pick(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static void random_segment(char *out, bool allow_star2)
{
	static const char *const atoms[] = {"a",    "b",     ".",  "*", "?", "[ab]",
	                                    "[!a]", "[a-b]", "ab", "A", "Ba"};
	if (allow_star2 && !pick(6)) {
		strcpy(out, "**");
		return;
	}
	out[0] = 0;
	unsigned n = 1 + pick(4);
	for (unsigned i = 0; i < n; i++) {
		const char *a = atoms[pick(sizeof(atoms) / sizeof(atoms[0]))];
		size_t l = strlen(out);
		if (*a == '*' && l && out[l - 1] == '*')
			continue; /* "**" inside a name is refused */
		strcat(out, a);
	}
	if (!strcmp(out, ".") || !strcmp(out, ".."))
		strcat(out, "a"); /* "." and ".." are refused */
}

static void random_pattern(char *out)
{
	unsigned n = 1 + (pick(3) ? 0 : pick(3));
	out[0] = 0;
	if (!pick(8))
		strcat(out, "/");
	for (unsigned i = 0; i < n; i++) {
		char seg[64];
		random_segment(seg, n > 1);
		if (i)
			strcat(out, "/");
		strcat(out, seg);
	}
	if (!pick(5))
		strcat(out, "/");
}

static void random_path(char *out)
{
	static const char *const names[] = {"a",   "b",  "ab",  "ba",  ".a",   "aab", "bab", ".",
	                                    "a.b", "bb", "aba", ".ab", "abab", "AB",  "Ab",  "bA"};
	unsigned n = 1 + pick(4);
	out[0] = 0;
	for (unsigned i = 0; i < n; i++) {
		if (i)
			strcat(out, "/");
		const char *nm = names[pick(sizeof(names) / sizeof(names[0]))];
		strcat(out, strcmp(nm, ".") ? nm : ".x");
	}
}

static void lower_ascii(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s + 'a' - 'A');
}

static void against_reference(void **state)
{
	(void)state;
	char pat[256], path[256], lpath[256];
	unsigned checked = 0;
	for (int round = 0; round < 3000; round++) {
		random_pattern(pat);
		const char *g = pat;
		size_t len = strlen(g);
		bool dir_only = len > 1 && g[len - 1] == '/';
		char glob[256];
		bool rooted = g[0] == '/';
		snprintf(glob, sizeof(glob), "%.*s", (int)(len - dir_only - rooted), g + rooted);
		if (!strcmp(glob, "**") || !glob[0])
			continue;
		bool anch = rooted || strchr(glob, '/');
		bool nc = !pick(4);
		if (nc)
			lower_ascii(glob);
		char *text = ast_printf("policy p { mask %s\"%s\"; }", nc ? "nocase " : "", pat);
		struct compiled *c = compile_str(text);
		if (!c)
			fail_msg("random pattern \"%s\" refused", pat);
		to_table(&c->variants.v[0].scan, &L, 32);
		for (int k = 0; k < 40; k++) {
			random_path(path);
			bool isdir = pick(2);
			strcpy(lpath, path);
			if (nc)
				lower_ascii(lpath);
			bool want = ref_hidden(glob, anch, dir_only, lpath, isdir);
			bool got = walk_kind(&L.sc, path, isdir) == AJ_PATTERN_MASK;
			if (want != got)
				fail_msg("mask %s\"%s\" on %s%s: walk %s, reference %s",
				         nc ? "nocase " : "", pat, path, isdir ? "/" : "",
				         got ? "hidden" : "visible", want ? "hidden" : "visible");
			checked++;
		}
		ast_arena_free();
	}
	assert_true(checked > 50000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(forms, setup, teardown),
	    cmocka_unit_test_setup_teardown(anchored, setup, teardown),
	    cmocka_unit_test_setup_teardown(directories_only, setup, teardown),
	    cmocka_unit_test_setup_teardown(nocase, setup, teardown),
	    cmocka_unit_test_setup_teardown(precedence, setup, teardown),
	    cmocka_unit_test_setup_teardown(prune_and_reset, setup, teardown),
	    cmocka_unit_test_setup_teardown(guards, setup, teardown),
	    cmocka_unit_test_setup_teardown(against_reference, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
