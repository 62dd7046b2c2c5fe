/* secrets.c: the secrets section of --jail-explain (explain.c): the
 * patterns the policy names, what the walk of the project found and how
 * each is covered (masked, denied, fenced, left to git), the watcher's
 * state and names that may appear during the run. */
#include <string.h>

#include "explain/explain.h"

/* "mask\t.env\t(any case)": kind, pattern, note. */
static void print_pattern(const char *p)
{
	static const char *const keys[] = {"kind", "pattern", "note"};

	rp_open(NULL, '{');
	rp_t("  ");
	for (unsigned k = 0; k < 3; k++) {
		const char *end = k < 2 ? strchrnul(p, '\t') : p + strlen(p);

		rp_strn(keys[k], *p || k < 2 ? p : NULL, (size_t)(end - p));
		if (*end)
			rp_t("\t");
		p = *end ? end + 1 : end;
	}
	rp_t("\n");
	rp_close();
}

static void print_hit(const struct run *r, unsigned i, bool fenced)
{
	static const char *const whys[] = {"name",   "hardlink", "permissions", "depth", "guard",
	                                   "socket", "length",   "links",       "count", "record"};
	const struct scan_hit *h = &hits_now()->hits[i];
	const char *note = git_note(i);

	rp_open(NULL, '{');
	rp_t("  ");
	rp_str("kind", !h->kind ? "guard" : h->kind == AJ_PATTERN_DENY ? "deny" : "mask");
	rp_t("\t");
	rp_str("path", hits_now()->arena + h->off);
	rp_bool("dir", h->isdir);
	if (h->isdir)
		rp_t("/");
	rp_jstr("why", h->why < SCAN_BY_N ? whys[h->why] : NULL);
	if (h->why == SCAN_BY_HARDLINK)
		rp_t("\t(another name of a matched file)");
	if (h->why == SCAN_BY_PERM)
		rp_t("\t(yours but unreadable: its content could not be checked)");
	if (h->why == SCAN_BY_DEPTH)
		rp_t("\t(at the depth bound: its content was not checked)");
	if (h->why == SCAN_BY_RECORD)
		rp_t("\t(held a secret in an earlier run: renamed, moved or linked since)");
	if (h->why == SCAN_BY_LONG)
		rp_t("\t(holds a path too long to check: its content was not checked)");
	if (h->why == SCAN_BY_LINKS)
		rp_t("\t(has other hard links, more than the jail tracks: may be a secret's)");
	if (h->why == SCAN_BY_COUNT)
		rp_t(
		    "\t(more secrets below it than the jail covers one by one: its content was not "
		    "checked)");
	/* git_note: "\t(tracked by git: …)", "\t(in a git repository whose
	 * index could not be read: …)", or "". */
	if (rp_json) {
		if (!strncmp(note, "\t(in a git", 10))
			rp_str("git_tracked", NULL);
		else
			rp_bool("git_tracked", !strncmp(note, "\t(tracked", 9));
		rp_strn("git_note", *note ? note + 2 : NULL, *note ? strlen(note) - 3 : 0);
	} else {
		out_s(note);
	}
	if (h->why == SCAN_BY_SOCKET)
		rp_t("\t(a Unix socket: no host service without the host's network)");
	if (h->why != SCAN_BY_GUARD) {
		const char *how = run_in_fallback(r) ? NULL : maskdir_note(i);

		rp_jstr("covered", NULL);
		rp_jstr("cover", how);
		if (how)
			rp_t(*how == 'a'
			         ? "\t(its folder has one read-only cover: absent there)"
			         : "\t(its folder has one read-only cover: a stand-in there)");
	}
	if (h->why == SCAN_BY_GUARD) {
		rp_bool("covered", fenced);
		rp_t(fenced ? "\t(guarded, absent: the fence keeps what appears here unreadable)"
		            : "\t(guarded, absent: NOT covered, see the fence below)");
	}
	rp_t("\n");
	rp_close();
}

void secrets_explain(const struct run *r)
{
	const struct aj_scan *sc = r->v->scan;
	const char *why, *where;
	const struct plan_entry *fenced = fence_plan(r->v, &why, &where);
	unsigned fence_n = fenced ? fence_count(fenced) : 0;

	/* The fallback fences the project whatever its mode (fallback.c). */
	if (run_in_fallback(r)) {
		fence_n = fallback_fence(r, &fenced);
		why = fenced ? NULL : "nothing is denied or guarded here";
		where = NULL;
	}

	rp_open("scan", '{');
	rp_t("patterns:\n");
	rp_open("patterns", '[');
	for (unsigned i = 0; i < sc->n_patterns; i++)
		print_pattern(sc->patterns[i]);
	rp_close();
	rp_field("scan");
	rp_t("paths of up to ");
	rp_u("depth", sc->depth);
	rp_jstr("bound", sc->bound == AJ_SCAN_BOUND_DENY ? "deny" : "stop");
	rp_t(sc->bound == AJ_SCAN_BOUND_DENY ? " components; a directory deeper is denied\n"
	                                     : " components; a deeper directory stops the jail\n");
	rp_field("watcher");
	rp_str("watcher", watch_explain());
	rp_t("\n"), appear_explain(r->v, run_in_fallback(r)); /* names that appear during the run */
	rp_t("masked and denied in ");
	rp_str("project", r->project);
	rp_t(", found by ");
	rp_str("source", watch_origin());
	rp_t(":\n");
	if (!hits_now()->n)
		rp_t("  (nothing)\n");
	rp_open("found", '[');
	for (unsigned i = 0; i < hits_now()->n; i++)
		print_hit(r, i, fenced);
	rp_close();
	rp_open("pruned", '{');
	rp_t("pruned (not walked, not masked inside): ");
	rp_u("count", hits_now()->n_pruned);
	rp_t(hits_now()->n_pruned == 1 ? " directory\n" : " directories\n");
	rp_open("paths", '[');
	for (unsigned i = 0; i < hits_now()->n_pruned && i < SCAN_PRUNED_SHOWN; i++) {
		if (hits_now()->pruned[i] == UINT32_MAX)
			continue;
		rp_t("  prune\t");
		rp_str(NULL, hits_now()->arena + hits_now()->pruned[i]);
		rp_t("/\n");
	}
	rp_close();
	rp_close();
	if (hits_now()->n_pruned > SCAN_PRUNED_SHOWN)
		rp_t("  …\n");
	rp_close();
	rp_field("fence");
	rp_open("fence", '{');
	rp_jstr("replaces", fenced ? fenced->path : NULL);
	if (fenced) {
		rp_u("rules", fence_n);
		rp_t(" Landlock rules in place of the project's one: nothing denied or guarded "
		     "is granted\n");
		rp_jstr("why", NULL);
		rp_jstr("where", NULL);
	} else {
		rp_ju("rules", 0);
		rp_t("none: ");
		rp_str("why", why);
		if (where)
			rp_t(" ");
		rp_str("where", where);
		rp_t("\n");
	}
	rp_close();
}
