/* test_watchtab.c: the scan table as a launch sends it to the watcher
 * (stub/watch/watchtab.c): flattened and back gives the same steps, sets
 * and bounds, classifies every name as the compiled table does, is the
 * same bytes for the same table (the watcher finds a table's index by
 * them), and a table that would make a step read past its strings or
 * name a step that is not there is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "watch/watch.h"

static const uint8_t sets[32] = {[('0' >> 3)] = 0xff, [('8' >> 3)] = 0x03}; /* set 1: digits */

/* mask .env, *.pem, v[0-9][0-9] and key (any case); deny secrets/; prune
 * node_modules/; mask config/ ** /prod.yml (anchored steps 0..2). */
static const struct aj_step floating[] = {
    {AJ_NAME_EXACT, 0, AJ_PATTERN_MASK, '.', 4, 4, 4, 0, ".env", "", 0, 0},
    {AJ_NAME_SUFFIX, 0, AJ_PATTERN_MASK, 0, 4, 255, 0, 4, "", ".pem", 0, 1},
    {AJ_NAME_GLOB, 0, AJ_PATTERN_MASK, 'v', 3, 3, 0, 0, "v\x03\x01\x03\x01", "", 0, 2},
    {AJ_NAME_EXACT, AJ_NAME_NOCASE, AJ_PATTERN_MASK, 'k', 3, 3, 3, 0, "key", NULL, 0, 3},
    {AJ_NAME_EXACT, AJ_NAME_DIR, AJ_PATTERN_DENY, 's', 7, 7, 7, 0, "secrets", "", 0, 4},
    {AJ_NAME_EXACT, AJ_NAME_DIR, AJ_PATTERN_PRUNE, 'n', 12, 12, 12, 0, "node_modules", "", 0, 5},
};
static const struct aj_step anchored[] = {
    {AJ_NAME_EXACT, AJ_NAME_DIR, 0, 'c', 6, 6, 6, 0, "config", "", 0x6, 6},
    {AJ_NAME_GLOBSTAR, 0, 0, 0, 0, 255, 0, 0, "", "", 0x6, 6},
    {AJ_NAME_EXACT, 0, AJ_PATTERN_MASK, 'p', 8, 8, 8, 0, "prod.yml", "", 0, 6},
};
static const struct aj_scan table = {
    .floating = floating,
    .steps = anchored,
    .sets = sets,
    .start = 0x1,
    .n_floating = 6,
    .n_steps = 3,
    .n_sets = 1,
    .depth = 12,
    .bound = AJ_SCAN_BOUND_DENY,
};
static const struct aj_variant variant = {.scan = &table, .network = AJ_NET_NONE};

static struct watchtab_table t; /* the watcher's copy */

/* The launch's table flattened, into the watcher's copy. */
static void flatten_into(const struct aj_variant *v)
{
	assert_true(watchtab_flatten(v));
	assert_true(watchtab_flat_len > sizeof(struct watchtab_hdr));
	memset(&t, 0, sizeof(t));
	memcpy(t.blob, watchtab_flat, watchtab_flat_len);
	t.len = watchtab_flat_len;
}

static void same_step(const struct aj_step *a, const struct aj_step *b)
{
	assert_int_equal(a->op, b->op);
	assert_int_equal(a->flags, b->flags);
	assert_int_equal(a->kind, b->kind);
	assert_int_equal(a->first, b->first);
	assert_int_equal(a->min, b->min);
	assert_int_equal(a->max, b->max);
	assert_int_equal(a->la, b->la);
	assert_int_equal(a->lb, b->lb);
	assert_int_equal(a->next, b->next);
	assert_int_equal(a->pattern, b->pattern);
	assert_string_equal(a->a ? a->a : "", b->a);
	assert_string_equal(a->b ? a->b : "", b->b);
}

static void round_trip(void **state)
{
	(void)state;
	flatten_into(&variant);
	assert_true(watchtab_unflatten(&t));
	assert_ptr_equal(t.v.scan, &t.sc);
	assert_int_equal(t.sc.n_floating, table.n_floating);
	assert_int_equal(t.sc.n_steps, table.n_steps);
	assert_int_equal(t.sc.n_sets, table.n_sets);
	assert_int_equal(t.sc.start, table.start);
	assert_int_equal(t.sc.depth, table.depth);
	assert_int_equal(t.sc.bound, table.bound);
	assert_memory_equal(t.sc.sets, sets, sizeof(sets));
	for (unsigned i = 0; i < table.n_floating; i++)
		same_step(&table.floating[i], &t.sc.floating[i]);
	for (unsigned i = 0; i < table.n_steps; i++)
		same_step(&table.steps[i], &t.sc.steps[i]);
	/* No host network: sockets denied, as the launch's table says. */
	assert_int_equal(t.v.network != AJ_NET_HOST, variant.network != AJ_NET_HOST);
}

static void network_host(void **state)
{
	const struct aj_variant host = {.scan = &table, .network = AJ_NET_HOST};

	(void)state;
	flatten_into(&host);
	assert_true(watchtab_unflatten(&t));
	assert_int_equal(t.v.network, AJ_NET_HOST);
}

/* Every name, in every state, classified alike by both tables. */
static void classifies_alike(void **state)
{
	static const char *const names[] = {
	    ".env",   ".ENV",     "x.pem", ".pem", "pem",     "v42",     "v4x",
	    "v421",   "KeY",      "key",   "keys", "secrets", "Secrets", "node_modules",
	    "config", "prod.yml", "a",     "src",  "",
	};
	static const uint64_t states[] = {0, 0x1, 0x2, 0x4, 0x6, 0x7};

	(void)state;
	flatten_into(&variant);
	assert_true(watchtab_unflatten(&t));
	for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++)
		for (size_t s = 0; s < sizeof(states) / sizeof(states[0]); s++)
			for (int dir = 0; dir < 2; dir++) {
				uint64_t in_a = 0, in_b = 0;
				size_t l = strlen(names[n]);
				uint8_t a =
				    match_classify(&table, names[n], l, dir, states[s], &in_a);
				uint8_t b =
				    match_classify(&t.sc, names[n], l, dir, states[s], &in_b);

				assert_int_equal(a, b);
				assert_int_equal(in_a, in_b);
			}
	/* And the classifying is not vacuous. */
	{
		uint64_t in;

		assert_int_equal(match_classify(&t.sc, "v42", 3, false, 0x1, &in), AJ_PATTERN_MASK);
		assert_int_equal(match_classify(&t.sc, "prod.yml", 8, false, 0x6, &in),
		                 AJ_PATTERN_MASK);
		assert_int_equal(match_classify(&t.sc, "secrets", 7, true, 0x1, &in),
		                 AJ_PATTERN_DENY);
	}
}

/* The watcher finds a table's index by its bytes: the same table gives
 * the same bytes, another table other bytes. */
static void same_bytes(void **state)
{
	static uint8_t first[WATCH_TABLE_MAX];
	uint32_t len;
	struct aj_scan deeper = table;
	const struct aj_variant other = {.scan = &deeper, .network = AJ_NET_NONE};

	(void)state;
	assert_true(watchtab_flatten(&variant));
	len = watchtab_flat_len;
	memcpy(first, watchtab_flat, len);
	assert_true(watchtab_flatten(&variant));
	assert_int_equal(watchtab_flat_len, len);
	assert_memory_equal(watchtab_flat, first, len);
	deeper.depth = 13;
	assert_true(watchtab_flatten(&other));
	assert_int_equal(watchtab_flat_len, len);
	assert_memory_not_equal(watchtab_flat, first, len);
}

/* ---- what a table from elsewhere may not do ------------------------------- */

static struct watchtab_hdr hdr(void)
{
	struct watchtab_hdr h;

	memcpy(&h, t.blob, sizeof(h));
	return h;
}

static void set_hdr(struct watchtab_hdr h)
{
	memcpy(t.blob, &h, sizeof(h));
}

static struct watchtab_step step_at(unsigned i)
{
	struct watchtab_step w;

	memcpy(&w, t.blob + sizeof(struct watchtab_hdr) + i * sizeof(w), sizeof(w));
	return w;
}

static void set_step(unsigned i, struct watchtab_step w)
{
	memcpy(t.blob + sizeof(struct watchtab_hdr) + i * sizeof(w), &w, sizeof(w));
}

/* The flattened table with one field changed by fn is refused. */
static void refused_hdr(void (*fn)(struct watchtab_hdr *))
{
	struct watchtab_hdr h;

	flatten_into(&variant);
	h = hdr();
	fn(&h);
	set_hdr(h);
	assert_false(watchtab_unflatten(&t));
}

static void refused_step(unsigned i, void (*fn)(struct watchtab_step *))
{
	struct watchtab_step w;

	flatten_into(&variant);
	w = step_at(i);
	fn(&w);
	set_step(i, w);
	assert_false(watchtab_unflatten(&t));
}

static void h_len(struct watchtab_hdr *h)
{
	h->len--;
}
static void h_depth0(struct watchtab_hdr *h)
{
	h->depth = 0;
}
static void h_deep(struct watchtab_hdr *h)
{
	h->depth = AJ_SCAN_DEPTH_MAX + 1;
}
static void h_start(struct watchtab_hdr *h)
{
	h->start = 1ULL << 3; /* three anchored steps: bits 0..2 */
}
static void h_sets(struct watchtab_hdr *h)
{
	h->n_sets = 200; /* past the end */
}
static void h_steps(struct watchtab_hdr *h)
{
	h->n_floating = 60000;
}
static void s_op0(struct watchtab_step *w)
{
	w->op = 0;
}
static void s_op_big(struct watchtab_step *w)
{
	w->op = AJ_NAME_GLOBSTAR + 1;
}
static void s_kind(struct watchtab_step *w)
{
	w->kind = AJ_PATTERN_DENY + 1;
}
static void s_next(struct watchtab_step *w)
{
	w->next = 1ULL << 5;
}
static void s_off(struct watchtab_step *w)
{
	w->a = 0xfffff;
}
static void s_la(struct watchtab_step *w)
{
	w->la = 5; /* ".env" has four bytes */
}
static void s_quick(struct watchtab_step *w)
{
	w->min = 3; /* shorter than its prefix */
}

static void refuses_bad_tables(void **state)
{
	(void)state;
	flatten_into(&variant);
	t.len--; /* shorter than the header says */
	assert_false(watchtab_unflatten(&t));
	flatten_into(&variant);
	t.len = sizeof(struct watchtab_hdr) - 1;
	assert_false(watchtab_unflatten(&t));
	refused_hdr(h_len);
	refused_hdr(h_depth0);
	refused_hdr(h_deep);
	refused_hdr(h_start);
	refused_hdr(h_sets);
	refused_hdr(h_steps);
	refused_step(0, s_op0);
	refused_step(0, s_op_big);
	refused_step(0, s_kind);
	refused_step(6, s_next);
	refused_step(0, s_off);
	refused_step(0, s_la);
	refused_step(0, s_quick);
	/* A glob naming set 2 of one, and one ending inside a token. */
	{
		struct watchtab_step w;
		char *p;

		flatten_into(&variant);
		w = step_at(2);
		p = (char *)t.blob + w.a;
		assert_string_equal(p, "v\x03\x01\x03\x01");
		p[2] = 2;
		assert_false(watchtab_unflatten(&t));
		flatten_into(&variant);
		p = (char *)t.blob + step_at(2).a;
		p[4] = '\0';
		assert_false(watchtab_unflatten(&t));
	}
	/* And the table itself is still taken. */
	flatten_into(&variant);
	assert_true(watchtab_unflatten(&t));
}

/* A table past what the socket carries is not flattened. */
static void too_large(void **state)
{
	static struct aj_step many[WATCH_STEPS + 1];
	static char longname[256];
	struct aj_scan big = table;
	const struct aj_variant v = {.scan = &big, .network = AJ_NET_NONE};

	(void)state;
	for (unsigned i = 0; i < WATCH_STEPS + 1; i++)
		many[i] = floating[0];
	big.floating = many;
	big.n_floating = WATCH_STEPS + 1 - big.n_steps;
	assert_false(watchtab_flatten(&v));
	/* Within the steps, past the bytes: 300 names of 255 bytes. */
	memset(longname, 'a', 255);
	for (unsigned i = 0; i < 300; i++)
		many[i] = (struct aj_step){AJ_NAME_PREFIX,
		                           0,
		                           AJ_PATTERN_MASK,
		                           'a',
		                           255,
		                           255,
		                           255,
		                           0,
		                           longname,
		                           longname,
		                           0,
		                           0};
	big.n_floating = 300;
	assert_false(watchtab_flatten(&v));
	big.n_floating = 100;
	assert_true(watchtab_flatten(&v));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(round_trip),         cmocka_unit_test(network_host),
	    cmocka_unit_test(classifies_alike),   cmocka_unit_test(same_bytes),
	    cmocka_unit_test(refuses_bad_tables), cmocka_unit_test(too_large),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
