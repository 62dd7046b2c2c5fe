/* test_secrets.c: --jail-explain's secrets section (stub/explain/secrets.c),
 * text and JSON, for a given scan: the patterns split into kind, pattern
 * and note; each hit with its kind, path, why, git's note and its cover;
 * the pruned directories; the fence or why there is none.  A hit's odd
 * name (quotes, backslashes, a newline, control bytes, a byte that begins
 * no UTF-8 sequence) is escaped in JSON and printed as it is in text.  The
 * rooms it asks (scan/, watch/, root/, fallback/) are the test's
 * stand-ins. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "explain/explain.h"
#include "capture.h"

static struct scan_result res;
static const char *notes[AJ_SCAN_MAX];
static const char *covers[AJ_SCAN_MAX];
static struct plan_entry fence_entry = {.path = "/p"};
static bool fenced;

struct scan_result *hits_now(void)
{
	return &res;
}
const char *git_note(unsigned hit)
{
	return notes[hit] ? notes[hit] : "";
}
const char *maskdir_note(unsigned hit)
{
	return covers[hit];
}
const struct plan_entry *fence_plan(const struct aj_variant *v, const char **why,
                                    const char **where)
{
	*why = fenced ? NULL : "nothing is denied or guarded";
	*where = NULL;
	return fenced ? &fence_entry : NULL;
}
unsigned fence_count(const struct plan_entry *e)
{
	return 7;
}
unsigned fallback_fence(const struct run *r, const struct plan_entry **e)
{
	*e = NULL;
	return 0;
}
const char *watch_explain(void)
{
	return "off, because the test";
}
const char *watch_origin(void)
{
	return "the walk";
}
void appear_explain(const struct aj_variant *v, bool fallback)
{
	rp_t("[appear]\n");
}

static const char *const patterns[] = {"mask\t.env\t(any case)", "deny\tsecrets/"};
static const struct aj_scan scan = {
    .patterns = patterns, .n_patterns = 2, .depth = 12, .bound = AJ_SCAN_BOUND_DENY};
static const struct aj_variant v = {.scan = &scan};
static const struct run r = {.v = &v, .project = "/p"};

static const char odd[] = "we\"ird\\na\nme\x01\xff\xc3\xa9.pem";

static void hit(uint8_t kind, uint8_t why, bool dir, const char *path)
{
	struct scan_hit *h = &res.hits[res.n++];

	*h = (struct scan_hit){.kind = kind, .why = why, .isdir = dir, .off = res.used};
	memcpy(res.arena + res.used, path, strlen(path) + 1);
	res.used += (uint32_t)strlen(path) + 1;
}

static int setup(void **state)
{
	memset(&res, 0, sizeof(res));
	memset(notes, 0, sizeof(notes));
	memset(covers, 0, sizeof(covers));
	fenced = true;
	hit(AJ_PATTERN_MASK, SCAN_BY_NAME, false, ".env");
	notes[0] = "\t(tracked by git: commit it elsewhere)";
	hit(AJ_PATTERN_DENY, SCAN_BY_NAME, true, "secrets");
	hit(AJ_PATTERN_MASK, SCAN_BY_HARDLINK, false, odd);
	covers[2] = "absent";
	hit(0, SCAN_BY_GUARD, false, "id_rsa");
	res.n_pruned = 1;
	res.pruned[0] = res.used;
	memcpy(res.arena + res.used, "node_modules", 13);
	res.used += 13;
	return 0;
}

static void text_whole(void **state)
{
	assert_string_equal(
	    capture_section(secrets_explain, &r, false),
	    "patterns:\n"
	    "  mask\t.env\t(any case)\n"
	    "  deny\tsecrets/\n"
	    "scan:      paths of up to 12 components; a directory deeper is denied\n"
	    "watcher:   off, because the test\n"
	    "[appear]\n"
	    "masked and denied in /p, found by the walk:\n"
	    "  mask\t.env\t(tracked by git: commit it elsewhere)\n"
	    "  deny\tsecrets/\n"
	    "  mask\twe\"ird\\na\nme\x01\xff\xc3\xa9.pem\t(another name of a matched file)"
	    "\t(its folder has one read-only cover: absent there)\n"
	    "  guard\tid_rsa\t(guarded, absent: the fence keeps what appears here unreadable)\n"
	    "pruned (not walked, not masked inside): 1 directory\n"
	    "  prune\tnode_modules/\n"
	    "fence:     7 Landlock rules in place of the project's one: nothing denied or guarded "
	    "is granted\n");
}

static void json_whole(void **state)
{
	assert_string_equal(
	    capture_section(secrets_explain, &r, true),
	    "{\"scan\":{\"patterns\":["
	    "{\"kind\":\"mask\",\"pattern\":\".env\",\"note\":\"(any case)\"},"
	    "{\"kind\":\"deny\",\"pattern\":\"secrets/\",\"note\":null}],"
	    "\"depth\":12,\"bound\":\"deny\",\"watcher\":\"off, because the test\","
	    "\"project\":\"/p\",\"source\":\"the walk\",\"found\":["
	    "{\"kind\":\"mask\",\"path\":\".env\",\"dir\":false,\"why\":\"name\","
	    "\"git_tracked\":true,\"git_note\":\"tracked by git: commit it elsewhere\","
	    "\"covered\":null,\"cover\":null},"
	    "{\"kind\":\"deny\",\"path\":\"secrets\",\"dir\":true,\"why\":\"name\","
	    "\"git_tracked\":false,\"git_note\":null,\"covered\":null,\"cover\":null},"
	    "{\"kind\":\"mask\",\"path\":\"we\\\"ird\\\\na\\nme\\u0001\\u00ff\xc3\xa9.pem\","
	    "\"dir\":false,\"why\":\"hardlink\",\"git_tracked\":false,\"git_note\":null,"
	    "\"covered\":null,\"cover\":\"absent\"},"
	    "{\"kind\":\"guard\",\"path\":\"id_rsa\",\"dir\":false,\"why\":\"guard\","
	    "\"git_tracked\":false,\"git_note\":null,\"covered\":true}],"
	    "\"pruned\":{\"count\":1,\"paths\":[\"node_modules\"]}},"
	    "\"fence\":{\"replaces\":\"/p\",\"rules\":7,\"why\":null,\"where\":null}}");
}

/* No fence: why not, in its place; a guard then NOT covered. */
static void no_fence(void **state)
{
	fenced = false;
	const char *t = capture_section(secrets_explain, &r, false);

	assert_non_null(strstr(t, "fence:     none: nothing is denied or guarded\n"));
	assert_non_null(strstr(t, "(guarded, absent: NOT covered, see the fence below)"));
	assert_non_null(strstr(capture_section(secrets_explain, &r, true),
	                       "\"fence\":{\"replaces\":null,\"rules\":0,\"why\":"
	                       "\"nothing is denied or guarded\",\"where\":null}"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(text_whole, setup),
	    cmocka_unit_test_setup(json_whole, setup),
	    cmocka_unit_test_setup(no_fence, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
