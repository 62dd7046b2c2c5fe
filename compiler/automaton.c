/* automaton.c: mask, deny and prune patterns compiled into the steps of
 * the scan automaton, the stub's one walk (struct aj_scan in include/aj_table.h).
 *
 * A name pattern (no '/') becomes one floating step, tried on every entry;
 * an anchored one becomes a run of steps of the variant's automaton.  Each
 * step takes the cheapest form that says what it matches: an exact name, a
 * prefix, a suffix, both, or a token program for the rest ('?', sets,
 * several stars), so that the stub compares bytes and never reads glob
 * syntax.  ASCII case is folded here for 'nocase' patterns; the stub folds
 * each name once. */
#include "automaton.h"
#include "diag.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

enum { T_LIT, T_STAR, T_ONE, T_SET };

struct tok {
	int type;
	unsigned char c; /* T_LIT: the byte; T_SET: the set's number + 1 */
};

static unsigned char fold(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 'a' - 'A') : c;
}

static const char *const kind_word[] = {
    [AJ_PATTERN_PRUNE] = "prune",
    [AJ_PATTERN_MASK] = "mask",
    [AJ_PATTERN_DENY] = "deny",
};

/* The set at *pp ('[', terminated: glob_check said so) as 256 bits, folded
 * before it is negated, so that "[!a]" with nocase refuses 'A' too.  Returns
 * its number + 1 in the variant's sets, 0 when there are too many. */
static int parse_set(struct m_scan *sc, const char **pp, bool nocase)
{
	const char *p = *pp + 1, *first;
	uint8_t bits[32] = {0};
	bool neg = false;

	if (*p == '!' || *p == '^') {
		neg = true;
		p++;
	}
	first = p;
	while (!(*p == ']' && p != first)) {
		unsigned lo = (unsigned char)*p++, hi = lo;
		if (*p == '-' && p[1] && p[1] != ']') {
			hi = (unsigned char)p[1];
			p += 2;
		}
		for (unsigned c = lo; c <= hi; c++) {
			unsigned f = nocase ? fold((unsigned char)c) : c;
			bits[f >> 3] |= (uint8_t)(1u << (f & 7));
		}
	}
	*pp = p + 1;
	if (neg)
		for (int i = 0; i < 32; i++)
			bits[i] = (uint8_t)~bits[i];
	for (size_t i = 0; i < sc->sets.n; i++)
		if (memcmp(sc->sets.v[i], bits, 32) == 0)
			return (int)i + 1;
	if (sc->sets.n == 255)
		return 0;
	uint8_t *keep = ast_alloc(32);
	memcpy(keep, bits, 32);
	VEC_PUSH(sc->sets, keep);
	return (int)sc->sets.n;
}

static char *lits(const struct tok *t, size_t n)
{
	char *s = ast_alloc(n + 1);
	for (size_t i = 0; i < n; i++)
		s[i] = (char)t[i].c;
	s[n] = 0;
	return s;
}

/* One path component of a pattern, as a step.  seg has no '/'. */
static bool name_step(struct m_scan *sc, const char *seg, size_t n, bool anchored, int flags,
                      struct m_step *st, const struct loc *loc)
{
	struct tok t[256] = {{0}};
	size_t nt = 0, stars = 0, star_at = 0, fixed = 0;
	bool special = false, nocase = flags & AJ_NAME_NOCASE;

	memset(st, 0, sizeof(*st));
	st->s.flags = (uint8_t)flags;
	st->s.max = 255;
	st->a = st->b = ast_strdup("");
	if (n == 2 && seg[0] == '*' && seg[1] == '*') {
		st->s.op = anchored ? AJ_NAME_GLOBSTAR : AJ_NAME_ANY;
		return true;
	}
	for (const char *p = seg; p < seg + n;) {
		if (*p == '*') {
			while (p < seg + n && *p == '*')
				p++;
			star_at = nt;
			stars++;
			t[nt++] = (struct tok){T_STAR, 0};
		} else if (*p == '?') {
			p++;
			special = true;
			t[nt++] = (struct tok){T_ONE, 0};
		} else if (*p == '[') {
			int set = parse_set(sc, &p, nocase);
			if (!set) {
				diag_error_at(
				    loc,
				    "too many different '[…]' sets in one variant (at most 255)");
				return false;
			}
			special = true;
			t[nt++] = (struct tok){T_SET, (unsigned char)set};
		} else {
			unsigned char c = (unsigned char)*p++;
			t[nt++] = (struct tok){T_LIT, nocase ? fold(c) : c};
		}
	}
	fixed = nt - stars;
	st->s.min = (uint8_t)fixed;
	st->s.max = stars ? 255 : (uint8_t)fixed;
	st->s.first = t[0].type == T_LIT ? t[0].c : 0;
	if (!special && stars == 0) {
		st->s.op = AJ_NAME_EXACT;
		st->a = lits(t, nt);
		st->s.la = (uint8_t)nt;
	} else if (!special && stars == 1) {
		st->a = lits(t, star_at);
		st->s.la = (uint8_t)star_at;
		st->b = lits(t + star_at + 1, nt - star_at - 1);
		st->s.lb = (uint8_t)(nt - star_at - 1);
		st->s.op = !st->s.la && !st->s.lb ? AJ_NAME_ANY
		           : !st->s.la            ? AJ_NAME_SUFFIX
		           : !st->s.lb            ? AJ_NAME_PREFIX
		                                  : AJ_NAME_AFFIX;
	} else {
		/* The token program: at most two bytes a token. */
		char *prog = ast_alloc(2 * nt + 1), *d = prog;
		for (size_t i = 0; i < nt; i++) {
			switch (t[i].type) {
			case T_STAR:
				*d++ = AJ_TOK_STAR;
				break;
			case T_ONE:
				*d++ = AJ_TOK_ONE;
				break;
			case T_SET:
				*d++ = AJ_TOK_SET;
				*d++ = (char)t[i].c;
				break;
			default:
				if (t[i].c >= AJ_TOK_STAR && t[i].c <= AJ_TOK_LIT)
					*d++ = AJ_TOK_LIT;
				*d++ = (char)t[i].c;
			}
		}
		*d = 0;
		st->s.op = AJ_NAME_GLOB;
		st->a = prog;
	}
	return true;
}

/* The components of an anchored glob, "**" runs collapsed. */
static size_t split(const char *g, const char **seg, size_t *len, size_t max)
{
	size_t n = 0;
	for (const char *p = g; *p && n < max;) {
		size_t l = strcspn(p, "/");
		bool star2 = l == 2 && p[0] == '*' && p[1] == '*';
		if (!(star2 && n && len[n - 1] == 2 && !strncmp(seg[n - 1], "**", 2))) {
			seg[n] = p;
			len[n] = l;
			n++;
		}
		p += l + (p[l] == '/');
	}
	return n;
}

static uint64_t closure(const struct m_scan *sc, size_t i, size_t end)
{
	uint64_t set = 0;
	for (; i < end; i++) {
		set |= 1ULL << i;
		if (sc->steps.v[i].s.op != AJ_NAME_GLOBSTAR)
			break;
	}
	return set;
}

bool automaton_build(struct variant *v)
{
	struct m_scan *sc = &v->scan;

	for (size_t k = 0; k < v->patterns.n; k++) {
		const struct m_pattern *p = &v->patterns.v[k];
		int flags = p->flags & M_PAT_NOCASE ? AJ_NAME_NOCASE : 0;
		const char *seg[AJ_PATH_MAX / 2];
		size_t len[AJ_PATH_MAX / 2], n;
		struct m_step st;

		if (p->flags & M_PAT_GUARD) {
			if (sc->guards.n == 255) {
				diag_error_at(
				    &p->loc, "too many guarded paths in one variant (at most 255)");
				return false;
			}
			VEC_PUSH(sc->guards, p->glob);
		}
		VEC_PUSH(sc->texts,
		         ast_printf("%s\t%s%s%s",
		                    p->flags & M_PAT_GUARD ? "guard" : kind_word[p->kind], p->text,
		                    p->flags & M_PAT_NOCASE ? "\t(any case)" : "",
		                    (p->flags & (M_PAT_ANCHORED | M_PAT_GUARD)) == M_PAT_ANCHORED
		                        ? "\t(from the project root)"
		                        : ""));
		n = split(p->glob, seg, len, sizeof(seg) / sizeof(seg[0]));
		bool floating = !(p->flags & M_PAT_ANCHORED);
		/* "**" first and one name after it: that name at any depth. */
		if (n == 2 && len[0] == 2 && !strncmp(seg[0], "**", 2)) {
			seg[0] = seg[1];
			len[0] = len[1];
			n = 1;
			floating = true;
		}
		if (floating) {
			if (!name_step(sc, seg[0], len[0], false, flags, &st, &p->loc))
				return false;
			st.s.kind = (uint8_t)p->kind;
			st.s.flags |= p->flags & M_PAT_DIR ? AJ_NAME_DIR : 0;
			st.s.pattern = (uint16_t)k;
			VEC_PUSH(sc->floating, st);
			continue;
		}
		size_t base = sc->steps.n;
		if (base + n > AJ_SCAN_STEPS) {
			diag_error_at(&p->loc,
			              "too many path components in the anchored patterns of one "
			              "variant (at most %d)",
			              AJ_SCAN_STEPS);
			return false;
		}
		for (size_t i = 0; i < n; i++) {
			if (!name_step(sc, seg[i], len[i], true, flags, &st, &p->loc))
				return false;
			/* A trailing "**": every entry inside, which the walk
			 * reaches one by one from the directory before it. */
			if (i == n - 1 && st.s.op == AJ_NAME_GLOBSTAR)
				st.s.op = AJ_NAME_ANY;
			st.s.pattern = (uint16_t)k;
			VEC_PUSH(sc->steps, st);
		}
		size_t end = base + n;
		struct m_step *last = &sc->steps.v[end - 1];
		last->s.kind = (uint8_t)p->kind;
		last->s.flags |= p->flags & M_PAT_DIR ? AJ_NAME_DIR : 0;
		for (size_t i = base; i < end - 1; i++) {
			struct m_step *s = &sc->steps.v[i];
			s->s.next = s->s.op == AJ_NAME_GLOBSTAR ? closure(sc, i, end)
			                                        : closure(sc, i + 1, end);
		}
		sc->start |= closure(sc, base, end);
	}
	return true;
}

/* ---- a pattern the walk can never reach ---------------------------------- */

/* Does the glob (its components, "**" whole) match the path of n names? */
static bool path_match(const char *const *gseg, const size_t *glen, size_t ng, char *const *name,
                       size_t n, int fnm)
{
	if (!ng)
		return n == 0;
	if (glen[0] == 2 && !strncmp(gseg[0], "**", 2)) {
		for (size_t skip = 0; skip <= n; skip++)
			if (path_match(gseg + 1, glen + 1, ng - 1, name + skip, n - skip, fnm))
				return true;
		return false;
	}
	if (!n)
		return false;
	char *g = ast_printf("%.*s", (int)glen[0], gseg[0]);
	return fnmatch(g, name[0], fnm) == 0 &&
	       path_match(gseg + 1, glen + 1, ng - 1, name + 1, n - 1, fnm);
}

/* Does prune pattern q stop the walk at the directory names[0..n)? */
static bool prunes(const struct m_pattern *q, char *const *names, size_t n)
{
	int fnm = q->flags & M_PAT_NOCASE ? FNM_CASEFOLD : 0;
	const char *seg[AJ_PATH_MAX / 2];
	size_t len[AJ_PATH_MAX / 2];
	size_t ng = split(q->glob, seg, len, sizeof(seg) / sizeof(seg[0]));

	if (!(q->flags & M_PAT_ANCHORED))
		return fnmatch(q->glob, names[n - 1], fnm) == 0;
	return path_match(seg, len, ng, names, n, fnm);
}

/* An anchored mask or deny whose leading directories are written out and
 * pruned would silently never match: refuse it. */
bool automaton_check_pruned(const struct variant *v)
{
	bool ok = true;

	for (size_t k = 0; k < v->patterns.n; k++) {
		const struct m_pattern *p = &v->patterns.v[k];
		const char *seg[AJ_PATH_MAX / 2];
		size_t len[AJ_PATH_MAX / 2];
		char *names[AJ_PATH_MAX / 2];

		if (p->kind == AJ_PATTERN_PRUNE || !(p->flags & M_PAT_ANCHORED))
			continue;
		size_t n = split(p->glob, seg, len, sizeof(seg) / sizeof(seg[0]));
		for (size_t j = 0; j + 1 < n; j++) {
			names[j] = ast_printf("%.*s", (int)len[j], seg[j]);
			if (strpbrk(names[j], "*?["))
				break;
			for (size_t q = 0; q < v->patterns.n; q++) {
				const struct m_pattern *r = &v->patterns.v[q];
				if (r->kind != AJ_PATTERN_PRUNE || !prunes(r, names, j + 1))
					continue;
				diag_error_at(&p->loc,
				              "\"%s\" lies inside the pruned directory \"%s\": the "
				              "walk never looks there",
				              p->text, r->text);
				diag_note_at(&r->loc,
				             "pruned here; 'scan prune none;' and a shorter "
				             "list would walk it");
				ok = false;
				goto next;
			}
		}
	next:;
	}
	return ok;
}
