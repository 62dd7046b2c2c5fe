/* load.c: files, includes and the 'extends' graph. */
#include "load.h"
#include "diag.h"
#include "sysgroups.h"
#include "parse.h"
#include "source.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void load_init(struct program *p, const char **dirs, size_t n_dirs)
{
	memset(p, 0, sizeof(*p));
	p->include_dirs = dirs;
	p->n_include_dirs = n_dirs;
	sysgroups_reset();
}

struct policy *load_find(const struct program *p, const char *name)
{
	for (struct policy *pol = p->policies; pol; pol = pol->next)
		if (strcmp(pol->name, name) == 0)
			return pol;
	return NULL;
}

static const char *const top_keys[] = {"include", "policy", "group"};

static bool load_stmts(struct program *p, const struct src *src, const struct stmt *list,
		       bool is_main);

/* The folder of path, as a prefix to search beneath ("" for the current
 * one). */
static const char *folder_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return "";
	return slash == path ? "/" : ast_strndup(path, (size_t)(slash - path));
}

static const struct loaded_file *loaded_by_id(const struct program *p, dev_t dev, ino_t ino)
{
	for (size_t i = 0; i < p->files.n; i++)
		if (p->files.v[i].has_id && p->files.v[i].dev == dev && p->files.v[i].ino == ino)
			return &p->files.v[i];
	return NULL;
}

static const struct loaded_file *file_of(const struct program *p, const struct src *src)
{
	for (size_t i = 0; i < p->files.n; i++)
		if (p->files.v[i].src == src)
			return &p->files.v[i];
	return NULL;
}

static bool parse_and_load(struct program *p, const struct src *src, bool is_main)
{
	int before = diag_error_count();
	struct stmt *list = parse_src(src);
	if (diag_error_count() != before)
		return false;
	return load_stmts(p, src, list, is_main);
}

/* A file that was read but is not policy text is placed, never quoted. */
static void report_fault(const struct src_fault *f, const struct loc *include)
{
	if (f->line) {
		diag_error_in(f->path, f->line, f->col,
		              "not a policy file (%s); its lines are not shown", f->why);
		if (include)
			diag_note_at(include, "included here");
	} else if (include) {
		diag_error_at(include, "cannot include '%s': %s", f->path, f->why);
	} else {
		diag_error("cannot read '%s': %s", f->path, f->why);
	}
}

bool load_program(struct program *p, const char *path, const struct src *src)
{
	struct loaded_file lf = {.base = folder_of(path), .dir = ""};
	if (!src) {
		struct src_id id;
		struct src_fault fault;
		switch (source_read_path(path, &src, &id, &fault)) {
		case SRC_READ:
			break;
		case SRC_MISSING:
			diag_error("cannot read '%s': %s", path, strerror(ENOENT));
			return false;
		case SRC_REFUSED:
			report_fault(&fault, NULL);
			return false;
		}
		lf.has_id = true;
		lf.dev = id.dev;
		lf.ino = id.ino;
	}
	lf.src = src;
	VEC_PUSH(p->files, lf);
	return parse_and_load(p, src, true);
}

/* An include names a file beneath a folder the user chose: the including
 * file's, then each -I one, as a C compiler does for "…".  So neither an
 * absolute name nor ".." (which would leave that folder) is taken.  And
 * only a policy: a policy written into a project, where a jailed process
 * cannot read the masked .env, would otherwise have the compiler, run
 * outside, quote .env's lines in its errors. */
static bool include_name_ok(const struct atom *a)
{
	const char *n = a->text;
	size_t len = strlen(n);
	if (!n[0]) {
		diag_error_at(&a->loc, "expected a file name after 'include'");
		return false;
	}
	if (n[0] == '/') {
		diag_error_at(
		    &a->loc,
		    "absolute include '%s': an include is found beside the including file "
		    "or in an -I folder",
		    n);
		return false;
	}
	for (const char *c = n;;) {
		if (!strncmp(c, "..", 2) && (!c[2] || c[2] == '/')) {
			diag_error_at(
			    &a->loc,
			    "'..' in include '%s': an include stays beneath the folder it is "
			    "found in",
			    n);
			return false;
		}
		const char *slash = strchr(c, '/');
		if (!slash)
			break;
		c = slash + 1;
	}
	if (len < 3 || strcmp(n + len - 3, ".aj") != 0) {
		diag_error_at(&a->loc, "include '%s' is not a policy: an include names a .aj file",
		              n);
		return false;
	}
	return true;
}

static bool load_include(struct program *p, const struct src *from, const struct stmt *s)
{
	const struct atom *a = s->args;
	if (!a || a->kind != ATOM_STRING || a->next || s->has_block) {
		diag_error_at(a ? &a->loc : &s->loc, "expected: include \"file.aj\";");
		return false;
	}
	if (!include_name_ok(a))
		return false;
	const struct loaded_file *here = file_of(p, from);
	struct loaded_file lf = {0};
	struct src_id id;
	struct src_fault fault;
	enum src_result r = SRC_MISSING;
	for (size_t i = 0; r == SRC_MISSING && i <= p->n_include_dirs; i++) {
		if (i == 0 && !here)
			continue;
		lf.base = i == 0 ? here->base : p->include_dirs[i - 1];
		lf.dir = i == 0 ? here->dir : "";
		const char *rel = lf.dir[0] ? ast_printf("%s/%s", lf.dir, a->text) : a->text;
		r = source_read_beneath(lf.base, rel, &lf.src, &id, &fault);
		if (r == SRC_READ)
			lf.dir = folder_of(rel);
	}
	if (r == SRC_MISSING) {
		diag_error_at(&a->loc, "include file '%s' not found", a->text);
		return false;
	}
	if (r == SRC_REFUSED) {
		report_fault(&fault, &a->loc);
		return false;
	}
	if (loaded_by_id(p, id.dev, id.ino))
		return true;
	lf.has_id = true;
	lf.dev = id.dev;
	lf.ino = id.ino;
	VEC_PUSH(p->files, lf);
	return parse_and_load(p, lf.src, false);
}

static bool load_policy(struct program *p, const struct stmt *s, bool is_main)
{
	const struct atom *a = s->args;
	if (!a || a->kind != ATOM_WORD) {
		diag_error_at(a ? &a->loc : &s->loc, "expected a policy name after 'policy'");
		return false;
	}
	struct policy *pol = ast_alloc(sizeof(*pol));
	pol->name = a->text;
	pol->loc = a->loc;
	pol->stmt = s;
	a = a->next;
	if (a) {
		if (a->kind != ATOM_WORD || strcmp(a->text, "extends") != 0 || !a->next ||
		    a->next->kind != ATOM_WORD || a->next->next) {
			diag_error_at(&a->loc, "expected: policy NAME [extends PARENT] { … }");
			return false;
		}
		pol->parent_name = a->next->text;
		pol->parent_loc = a->next->loc;
	}
	if (!s->has_block) {
		diag_error_at(&s->end, "expected '{' to open the body of policy '%s'", pol->name);
		return false;
	}
	struct policy *old = load_find(p, pol->name);
	if (old) {
		diag_error_at(&pol->loc, "policy '%s' is defined twice", pol->name);
		diag_note_at(&old->loc, "first defined here");
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
			ok = sysgroups_define(s) && ok;
		} else {
			const char *hint = diag_suggest(s->key, top_keys, 3);
			if (hint)
				diag_error_at(&s->loc,
				              "unknown top-level key '%s'; did you mean '%s'?",
				              s->key, hint);
			else
				diag_error_at(&s->loc,
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
		diag_error_at(&pol->parent_loc, "policy '%s' extends itself through a cycle",
		              pol->name);
		for (struct policy *q = pol->parent; q && q != pol; q = q->parent)
			diag_note_at(&q->parent_loc, "'%s' extends '%s' here", q->name,
			             q->parent_name);
		return false;
	}
	pol->state = 1;
	if (pol->parent_name) {
		struct policy *parent = load_find(p, pol->parent_name);
		if (!parent) {
			const char *names[64];
			size_t n = 0;
			for (struct policy *q = p->policies; q && n < 64; q = q->next)
				names[n++] = q->name;
			const char *hint = diag_suggest(pol->parent_name, names, n);
			if (hint)
				diag_error_at(&pol->parent_loc,
				              "unknown policy '%s'; did you mean '%s'?",
				              pol->parent_name, hint);
			else
				diag_error_at(&pol->parent_loc,
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

bool load_resolve(struct program *p)
{
	bool ok = true;
	for (struct policy *pol = p->policies; pol; pol = pol->next)
		ok = resolve_one(p, pol) && ok;
	return ok;
}
