/* policy.c: files, includes and the 'extends' graph. */
#include "diag.h"
#include "model.h"
#include "parse.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void program_init(struct program *p, const char **dirs, size_t n_dirs)
{
	memset(p, 0, sizeof(*p));
	p->include_dirs = dirs;
	p->n_include_dirs = n_dirs;
	groups_reset();
}

struct policy *program_find(const struct program *p, const char *name)
{
	for (struct policy *pol = p->policies; pol; pol = pol->next)
		if (strcmp(pol->name, name) == 0)
			return pol;
	return NULL;
}

static const char *const top_keys[] = {"include", "policy", "group"};

static bool load_stmts(struct program *p, const struct src *src, const struct stmt *list,
		       bool is_main);

/* Include files are found beside the including file first, then on the -I
 * path, as a C compiler does for "…". */
static const char *find_include(const struct program *p, const char *from, const char *name)
{
	if (name[0] == '/')
		return access(name, R_OK) == 0 ? name : NULL;
	const char *slash = strrchr(from, '/');
	char *cand = slash ? xprintf("%.*s/%s", (int)(slash - from), from, name) : xstrdup(name);
	if (access(cand, R_OK) == 0)
		return cand;
	for (size_t i = 0; i < p->n_include_dirs; i++) {
		cand = xprintf("%s/%s", p->include_dirs[i], name);
		if (access(cand, R_OK) == 0)
			return cand;
	}
	return NULL;
}

static bool already_loaded(struct program *p, const char *path)
{
	char real[PATH_MAX];
	const char *key = realpath(path, real) ? real : path;
	for (size_t i = 0; i < p->loaded.n; i++)
		if (strcmp(p->loaded.v[i], key) == 0)
			return true;
	VEC_PUSH(p->loaded, xstrdup(key));
	return false;
}

bool program_load(struct program *p, const char *path, const struct src *src)
{
	if (!src) {
		src = src_read(path);
		if (!src) {
			error_plain("cannot read '%s': %s", path, strerror(errno));
			return false;
		}
	}
	already_loaded(p, path);
	int before = diag_error_count();
	struct stmt *list = parse_src(src);
	if (diag_error_count() != before)
		return false;
	return load_stmts(p, src, list, true);
}

static bool load_include(struct program *p, const struct src *from, const struct stmt *s)
{
	const struct atom *a = s->args;
	if (!a || a->kind != ATOM_STRING || a->next || s->has_block) {
		error_at(a ? &a->loc : &s->loc, "expected: include \"file.aj\";");
		return false;
	}
	const char *path = find_include(p, from->name, a->text);
	if (!path) {
		error_at(&a->loc, "include file '%s' not found", a->text);
		return false;
	}
	if (already_loaded(p, path))
		return true;
	const struct src *src = src_read(path);
	if (!src) {
		error_at(&a->loc, "cannot read '%s': %s", path, strerror(errno));
		return false;
	}
	int before = diag_error_count();
	struct stmt *list = parse_src(src);
	if (diag_error_count() != before)
		return false;
	return load_stmts(p, src, list, false);
}

static bool load_policy(struct program *p, const struct stmt *s, bool is_main)
{
	const struct atom *a = s->args;
	if (!a || a->kind != ATOM_WORD) {
		error_at(a ? &a->loc : &s->loc, "expected a policy name after 'policy'");
		return false;
	}
	struct policy *pol = xalloc(sizeof(*pol));
	pol->name = a->text;
	pol->loc = a->loc;
	pol->stmt = s;
	a = a->next;
	if (a) {
		if (a->kind != ATOM_WORD || strcmp(a->text, "extends") != 0 || !a->next ||
		    a->next->kind != ATOM_WORD || a->next->next) {
			error_at(&a->loc, "expected: policy NAME [extends PARENT] { … }");
			return false;
		}
		pol->parent_name = a->next->text;
		pol->parent_loc = a->next->loc;
	}
	if (!s->has_block) {
		error_at(&s->end, "expected '{' to open the body of policy '%s'", pol->name);
		return false;
	}
	struct policy *old = program_find(p, pol->name);
	if (old) {
		error_at(&pol->loc, "policy '%s' is defined twice", pol->name);
		note_at(&old->loc, "first defined here");
		return false;
	}
	struct policy **pp = &p->policies;
	while (*pp)
		pp = &(*pp)->next;
	*pp = pol;
	if (is_main)
		p->last_in_main = pol;
	return true;
}

static bool load_stmts(struct program *p, const struct src *src, const struct stmt *list,
		       bool is_main)
{
	bool ok = true;
	for (const struct stmt *s = list; s; s = s->next) {
		if (strcmp(s->key, "include") == 0) {
			ok = load_include(p, src, s) && ok;
		} else if (strcmp(s->key, "policy") == 0) {
			ok = load_policy(p, s, is_main) && ok;
		} else if (strcmp(s->key, "group") == 0) {
			ok = group_define(s) && ok;
		} else {
			const char *hint = suggest(s->key, top_keys, 3);
			if (hint)
				error_at(&s->loc, "unknown top-level key '%s'; did you mean '%s'?", s->key,
					 hint);
			else
				error_at(&s->loc,
					 "'%s' outside a policy: a file holds only 'include', "
					 "'group' and 'policy NAME { … }'",
					 s->key);
			ok = false;
		}
	}
	return ok;
}

static bool resolve_one(struct program *p, struct policy *pol)
{
	if (pol->state == 2)
		return true;
	if (pol->state == 1) {
		error_at(&pol->parent_loc, "policy '%s' extends itself through a cycle", pol->name);
		for (struct policy *q = pol->parent; q && q != pol; q = q->parent)
			note_at(&q->parent_loc, "'%s' extends '%s' here", q->name, q->parent_name);
		return false;
	}
	pol->state = 1;
	if (pol->parent_name) {
		struct policy *parent = program_find(p, pol->parent_name);
		if (!parent) {
			const char *names[64];
			size_t n = 0;
			for (struct policy *q = p->policies; q && n < 64; q = q->next)
				names[n++] = q->name;
			const char *hint = suggest(pol->parent_name, names, n);
			if (hint)
				error_at(&pol->parent_loc, "unknown policy '%s'; did you mean '%s'?",
					 pol->parent_name, hint);
			else
				error_at(&pol->parent_loc,
					 "unknown policy '%s' (is its file included?)",
					 pol->parent_name);
			pol->state = 2;
			return false;
		}
		pol->parent = parent;
		if (!resolve_one(p, parent)) {
			pol->state = 2;
			return false;
		}
	}
	pol->state = 2;
	return true;
}

bool program_resolve(struct program *p)
{
	bool ok = true;
	for (struct policy *pol = p->policies; pol; pol = pol->next)
		ok = resolve_one(p, pol) && ok;
	return ok;
}
