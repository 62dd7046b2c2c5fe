/* patterns.c: mask, deny and scan as a policy writes them; automaton.c
 * turns a variant's patterns into the steps of the stub's walk. */
#include "patterns.h"
#include "changes.h"
#include "args.h"
#include "diag.h"

#include <stdlib.h>
#include <string.h>

static bool glob_check(const char *g, const struct loc *loc)
{
	for (const char *p = g; *p; p++) {
		if (*p == '[') {
			const char *q = p + 1;
			if (*q == '!' || *q == '^')
				q++;
			if (*q == ']')
				q++;
			while (*q && *q != ']' && *q != '/')
				q++;
			if (*q != ']') {
				error_at(loc, "unterminated '[' in pattern \"%s\"", g);
				return false;
			}
			p = q;
		} else if (p[0] == '*' && p[1] == '*') {
			bool start_ok = p == g || p[-1] == '/';
			bool end_ok = p[2] == 0 || p[2] == '/';
			if (!start_ok || !end_ok) {
				error_at(loc, "'**' must be a whole path component in \"%s\"", g);
				return false;
			}
			p++;
		} else if (*p == '\\') {
			error_at(loc, "backslash escapes are not supported in patterns");
			return false;
		}
	}
	return true;
}

/* The flags that tell two patterns of one block apart: a mask of "x" and
 * of "/x" say the same name twice. */
#define PAT_SAME (M_PAT_NOCASE | M_PAT_DIR | M_PAT_GUARD)

/* One pattern of mask, deny, scan prune or scan guard: split into its flags
 * and glob, checked, and appended once to the block. */
static bool add_pattern(struct lowering *lw, int kind, int flags, const struct atom *a)
{
	struct m_pattern p = {.kind = kind, .flags = flags, .text = a->text, .loc = a->loc};
	char *g = xstrdup(a->text);
	size_t len = strlen(g);
	if (len && g[len - 1] == '/') {
		p.flags |= M_PAT_DIR;
		g[--len] = 0;
	}
	if (g[0] == '/') {
		p.flags |= M_PAT_ANCHORED;
		g++;
	}
	if (!g[0]) {
		error_at(&a->loc, "empty pattern");
		return false;
	}
	if (strstr(g, "//") || strcmp(g, "..") == 0 || strncmp(g, "../", 3) == 0 ||
	    strstr(g, "/../") || (len > 3 && strcmp(g + strlen(g) - 3, "/..") == 0) ||
	    strcmp(g, ".") == 0 || strncmp(g, "./", 2) == 0 || strstr(g, "/./") ||
	    (strlen(g) >= 2 && strcmp(g + strlen(g) - 2, "/.") == 0)) {
		error_at(&a->loc,
		         "impossible pattern \"%s\": patterns are relative to the "
		         "project, without '.', '..' or empty components",
		         a->text);
		return false;
	}
	if (strchr(g, '/'))
		p.flags |= M_PAT_ANCHORED;
	if (!glob_check(g, &a->loc))
		return false;
	for (const char *c = g; *c;) {
		size_t n = strcspn(c, "/");
		if (n > 255) {
			error_at(&a->loc,
			         "a name in pattern \"%s\" is longer than 255 bytes: it can "
			         "never match",
			         a->text);
			return false;
		}
		c += n + (c[n] == '/');
	}
	p.glob = g;
	for (size_t i = 0; i < lw->out->n; i++) {
		const struct change *c = &lw->out->v[i];
		if (c->kind == CH_PATTERN && c->pattern.kind == p.kind &&
		    (c->pattern.flags & PAT_SAME) == (p.flags & PAT_SAME) &&
		    strcmp(c->pattern.glob, p.glob) == 0) {
			error_at(&a->loc, "this pattern is already given in this block");
			note_at(&c->loc, "first given here");
			return false;
		}
	}
	VEC_PUSH(*lw->out, ((struct change){.kind = CH_PATTERN, .loc = a->loc, .pattern = p}));
	return true;
}

bool pattern_apply(struct variant *v, const struct m_pattern *p)
{
	for (size_t i = 0; i < v->patterns.n; i++) {
		struct m_pattern *o = &v->patterns.v[i];
		if (strcmp(o->glob, p->glob) != 0 ||
		    (o->flags & ~M_PAT_GUARD) != (p->flags & ~M_PAT_GUARD))
			continue;
		if (o->kind != p->kind && o->kind != AJ_PATTERN_PRUNE &&
		    p->kind != AJ_PATTERN_PRUNE && !((o->flags | p->flags) & M_PAT_GUARD)) {
			error_at(&p->loc, "\"%s\" is both masked and denied", p->text);
			note_at(&o->loc, "%s here",
			        o->kind == AJ_PATTERN_MASK ? "masked" : "denied");
			return false;
		}
		if (o->kind == p->kind && (o->flags & M_PAT_GUARD) == (p->flags & M_PAT_GUARD))
			return true;
	}
	VEC_PUSH(v->patterns, *p);
	return true;
}

void patterns_prune_none(struct variant *v)
{
	size_t n = 0;
	for (size_t i = 0; i < v->patterns.n; i++)
		if (v->patterns.v[i].kind != AJ_PATTERN_PRUNE)
			v->patterns.v[n++] = v->patterns.v[i];
	v->patterns.n = n;
}

bool pattern_in(const struct variant *v, const struct m_pattern *p)
{
	for (size_t i = 0; i < v->patterns.n; i++)
		if (v->patterns.v[i].kind == p->kind && v->patterns.v[i].flags == p->flags &&
		    !strcmp(v->patterns.v[i].glob, p->glob))
			return true;
	return false;
}

bool patterns_lower(struct lowering *lw, const struct stmt *s)
{
	int flags = 0;
	if (!want_args(s, 1, -1, "mask|deny [nocase] \"PATTERN\"…;"))
		return false;
	const struct atom *a = s->args;
	if (a->kind == ATOM_WORD && strcmp(a->text, "nocase") == 0) {
		flags = M_PAT_NOCASE;
		a = a->next;
		if (!a) {
			error_at(&s->end, "missing patterns after 'nocase'");
			return false;
		}
	}
	bool ok = true;
	for (; a; a = a->next) {
		if (a->kind == ATOM_WORD && strcmp(a->text, "nocase") == 0) {
			error_at(&a->loc, "'nocase' comes first: %s nocase \"PATTERN\"…;", s->key);
			ok = false;
		} else if (!quoted(a, "patterns", s->key)) {
			ok = false;
		} else {
			ok = add_pattern(lw, lw->arg, flags, a) && ok;
		}
	}
	return ok;
}

/* scan guard "PATH"…: a path that must not become readable during the run.
 * Present, it is masked like any pattern; absent, the stub's fence may
 * keep it unreadable (stub/root/fence.c). */
static bool lower_guard(struct lowering *lw, const struct atom *a)
{
	bool ok = true;
	for (; a; a = a->next) {
		if (!quoted(a, "paths", "scan guard")) {
			ok = false;
			continue;
		}
		if (strpbrk(a->text, "*?[")) {
			error_at(&a->loc,
			         "a guard names one path, from the project root, without '*', "
			         "'?' or '[': \"%s\"",
			         a->text);
			ok = false;
			continue;
		}
		ok = add_pattern(lw, AJ_PATTERN_MASK, M_PAT_ANCHORED | M_PAT_GUARD, a) && ok;
	}
	return ok;
}

static bool lower_depth(struct lowering *lw, const struct stmt *s, const struct atom *a)
{
	static const char *const bounds[] = {"fail", "deny"};
	if (!want_args(s, 2, 3, "scan depth N [fail|deny];"))
		return false;
	if (a->kind != ATOM_NUMBER || a->num < 1 || a->num > AJ_SCAN_DEPTH_MAX) {
		error_at(&a->loc, "scan depth is a number of path components, 1 to %d",
		         AJ_SCAN_DEPTH_MAX);
		return false;
	}
	/* Denied whole by default: a tree deeper than the bound (made by
	 * anything the jail runs) must not stop every launch. */
	int bound = 1;
	if (a->next) {
		bound = choose(a->next, "depth bound", bounds, 2);
		if (bound < 0)
			return false;
	}
	for (size_t i = 0; i < lw->out->n; i++) {
		if (lw->out->v[i].kind == CH_SCAN_DEPTH) {
			error_at(&s->loc, "'scan depth' is already set in this block");
			note_at(&lw->out->v[i].loc, "first given here");
			return false;
		}
	}
	struct change c = {.kind = CH_SCAN_DEPTH, .loc = s->loc};
	c.scan.depth = (int)a->num;
	c.scan.bound = bound == 1 ? AJ_SCAN_BOUND_DENY : AJ_SCAN_BOUND_FAIL;
	VEC_PUSH(*lw->out, c);
	return true;
}

bool scan_setting_lower(struct lowering *lw, const struct stmt *s)
{
	static const char *const verbs[] = {"prune", "depth", "guard"};
	const char *usage =
	    "scan prune \"DIR\"…; scan depth N [fail|deny]; or scan guard \"PATH\"…;";
	if (!want_args(s, 2, -1, usage))
		return false;
	int verb = choose(s->args, "scan setting", verbs, 3);
	if (verb < 0)
		return false;
	const struct atom *a = s->args->next;
	if (verb == 2)
		return lower_guard(lw, a);
	if (verb == 1)
		return lower_depth(lw, s, a);
	if (a->kind == ATOM_WORD && strcmp(a->text, "none") == 0) {
		if (a->next) {
			error_at(&a->next->loc, "'scan prune none;' stands alone");
			return false;
		}
		for (size_t i = 0; i < lw->out->n; i++) {
			if (lw->out->v[i].kind == CH_PRUNE_NONE) {
				error_at(&a->loc,
				         "'scan prune none' is already given in this block");
				note_at(&lw->out->v[i].loc, "first given here");
				return false;
			}
		}
		VEC_PUSH(*lw->out, ((struct change){.kind = CH_PRUNE_NONE, .loc = a->loc}));
		return true;
	}
	bool ok = true;
	for (; a; a = a->next) {
		if (!quoted(a, "patterns", "scan prune")) {
			ok = false;
			continue;
		}
		ok = add_pattern(lw, AJ_PATTERN_PRUNE, M_PAT_DIR, a) && ok;
	}
	return ok;
}
