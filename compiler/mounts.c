/* mounts.c: the mount table.  Each op of AJ_MOUNT_OPS is described once,
 * in forms[]: how a policy writes it and what Landlock grants beneath it;
 * a new op is a line there (and its row in AJ_MOUNT_OPS, which says what
 * it makes, for the stub). */
#include "mounts.h"
#include "changes.h"
#include "args.h"
#include "diag.h"
#include "path.h"

#include <stdlib.h>
#include <string.h>

enum mount_syntax {
	MOUNT_NOT_WRITTEN, /* only a toggle adds it */
	MOUNT_PATHS,       /* KEY PATH…; */
	MOUNT_LINK,        /* link PATH -> TARGET; */
	MOUNT_FIXED,       /* KEY [WORD];: one path of its own */
};

static const struct mount_form {
	enum mount_syntax syntax;
	const char *suffixes; /* MOUNT_PATHS: what may follow the name */
	const char *path;     /* MOUNT_FIXED: the path it mounts */
	const char *word;     /* MOUNT_FIXED: the one word it takes, NULL for none */
	int mode;             /* permission bits of a new root */
	unsigned landlock;    /* AJ_LL_* rights beneath it */
} forms[AJ_MOUNT_OP_COUNT] = {
    [AJ_MOUNT_RO] = {MOUNT_PATHS, "?", NULL, NULL, 0, AJ_LL_RIGHTS_READ},
    [AJ_MOUNT_RW] = {MOUNT_PATHS, "?+", NULL, NULL, 0, AJ_LL_RIGHTS_ALL},
    [AJ_MOUNT_TMPFS] = {MOUNT_PATHS, "", NULL, NULL, 0755, AJ_LL_RIGHTS_ALL},
    /* A link's own rights are its directory's; 'link?' follows the host
     * (AJ_MOUNT_AS_HOST), a read-only bind where it has a directory. */
    [AJ_MOUNT_LINK] = {MOUNT_LINK, "?", NULL, NULL, 0, 0},
    [AJ_MOUNT_DEV] = {MOUNT_FIXED, "", "/dev", "minimal", 0,
                      AJ_LL_RIGHTS_ALL & ~(AJ_LL_MAKE_CHAR | AJ_LL_MAKE_BLOCK | AJ_LL_EXECUTE)},
    [AJ_MOUNT_PROC] = {MOUNT_FIXED, "", "/proc", NULL, 0,
                       AJ_LL_READ_FILE | AJ_LL_READ_DIR | AJ_LL_WRITE_FILE},
    /* Device nodes live under /dev's rule. */
    [AJ_MOUNT_DEVICE] = {MOUNT_NOT_WRITTEN, "", NULL, NULL, 0, 0},
};

bool mounts_written(int op)
{
	return op > 0 && op < AJ_MOUNT_OP_COUNT && forms[op].syntax != MOUNT_NOT_WRITTEN;
}

const char *mounts_suffixes(int op)
{
	return forms[op].suffixes;
}

int mounts_suffix_flag(char c)
{
	return c == '?' ? AJ_MOUNT_OPTIONAL : c == '+' ? AJ_MOUNT_CREATE : 0;
}

static bool atom_path(const struct lowering *lw, const struct atom *a, struct m_path *out)
{
	if (a->kind != ATOM_PATH && a->kind != ATOM_STRING && a->kind != ATOM_WORD) {
		diag_error_at(&a->loc, "expected a path, found %s", ast_atom_kind_name(a->kind));
		return false;
	}
	if (a->kind == ATOM_WORD) {
		bool known = false;
		for (size_t i = 0; i < lw->n_keys; i++)
			known |= strcmp(a->text, lw->keys[i]) == 0;
		if (known)
			diag_error_at(&a->loc,
			              "expected a path, found the key '%s' (a missing ';'?)",
			              a->text);
		else
			diag_error_at(&a->loc,
			              "path '%s' must be absolute (start with '/', '~' or a "
			              "$VARIABLE)",
			              a->text);
		return false;
	}
	return path_parse(a->text, &a->loc, true, out);
}

void mounts_put(struct variant *v, const struct m_mount *m)
{
	for (size_t i = 0; i < v->mounts.n; i++) {
		if (strcmp(v->mounts.v[i].path.text, m->path.text) == 0) {
			v->mounts.v[i] = *m;
			return;
		}
	}
	VEC_PUSH(v->mounts, *m);
}

/* One block mounts a path once. */
static bool mount_claim(struct lowering *lw, const struct m_mount *m)
{
	for (size_t i = 0; i < lw->out->n; i++) {
		const struct change *c = &lw->out->v[i];
		if (c->kind == CH_MOUNT && strcmp(c->mount.path.text, m->path.text) == 0) {
			diag_error_at(&m->loc, "'%s' is mounted twice in this block", m->path.text);
			diag_note_at(&c->loc, "first mounted here");
			return false;
		}
	}
	VEC_PUSH(*lw->out, ((struct change){.kind = CH_MOUNT, .loc = m->loc, .mount = *m}));
	return true;
}

static bool lower_paths(struct lowering *lw, const struct stmt *s)
{
	struct m_mount m = {.op = lw->arg, .flags = lw->flags, .mode = forms[lw->arg].mode};
	char usage[64] = "";
	for (int op = 1; op < AJ_MOUNT_OP_COUNT; op++)
		if (forms[op].syntax == MOUNT_PATHS)
			snprintf(usage + strlen(usage), sizeof(usage) - strlen(usage), "%s%s",
			         usage[0] ? "|" : "", aj_mount_ops[op].name);
	if (!args_want(s, 1, -1, ast_printf("%s PATH…;", usage)))
		return false;
	bool ok = true;
	for (const struct atom *a = s->args; a; a = a->next) {
		struct m_mount one = m;
		one.loc = a->loc;
		if (!atom_path(lw, a, &one.path)) {
			ok = false;
			continue;
		}
		if (strcmp(one.path.text, "/") == 0) {
			diag_error_at(&a->loc,
			              "cannot mount over '/': the stub builds the root itself");
			ok = false;
			continue;
		}
		bool whole_home = one.path.var == AJ_VAR_HOME && !one.path.tail[0];
		if (one.op != AJ_MOUNT_TMPFS && whole_home) {
			diag_error_at(&a->loc,
			              "'%s $HOME' would expose the whole home directory; name the "
			              "directories the tool needs",
			              aj_mount_ops[one.op].name);
			ok = false;
			continue;
		}
		if (one.op == AJ_MOUNT_TMPFS && whole_home)
			one.mode = 0700;
		ok = mount_claim(lw, &one) && ok;
	}
	return ok;
}

static bool lower_link(struct lowering *lw, const struct stmt *s)
{
	const struct atom *a = s->args;
	if (args_count(s) != 3 || a->next->kind != ATOM_ARROW) {
		diag_error_at(a ? &a->loc : &s->loc, "expected: link PATH -> TARGET;");
		return false;
	}
	struct m_mount m = {.op = lw->arg, .loc = a->loc};
	if (lw->flags & AJ_MOUNT_OPTIONAL)
		m.flags = AJ_MOUNT_AS_HOST;
	if (!atom_path(lw, a, &m.path))
		return false;
	const struct atom *t = a->next->next;
	if (t->kind != ATOM_PATH && t->kind != ATOM_WORD && t->kind != ATOM_STRING) {
		diag_error_at(&t->loc, "expected the link's target, found %s",
		              ast_atom_kind_name(t->kind));
		return false;
	}
	if (strchr(t->text, '$') || t->text[0] == '~') {
		diag_error_at(&t->loc, "a link target is written literally: no variables");
		return false;
	}
	m.target = t->text;
	return mount_claim(lw, &m);
}

static bool lower_fixed(struct lowering *lw, const struct stmt *s)
{
	const struct mount_form *f = &forms[lw->arg];
	const char *name = aj_mount_ops[lw->arg].name;
	struct m_mount m = {.op = lw->arg, .mode = f->mode, .loc = s->loc};
	if (f->word) {
		if (!args_want(s, 1, 1, ast_printf("%s %s;", name, f->word)) ||
		    args_choose(s->args, ast_printf("%s kind", name), &f->word, 1) < 0)
			return false;
	} else if (!args_want(s, 0, 0, ast_printf("%s;", name))) {
		return false;
	}
	path_parse(f->path, &s->loc, true, &m.path);
	return mount_claim(lw, &m);
}

bool mounts_lower(struct lowering *lw, const struct stmt *s)
{
	switch (forms[lw->arg].syntax) {
	case MOUNT_PATHS:
		return lower_paths(lw, s);
	case MOUNT_LINK:
		return lower_link(lw, s);
	case MOUNT_FIXED:
		return lower_fixed(lw, s);
	case MOUNT_NOT_WRITTEN:
		break;
	}
	return false;
}

static int path_depth(const struct m_mount *m)
{
	int d = 0;
	for (const char *p = m->path.text; *p; p++)
		d += *p == '/';
	return d;
}

/* Parents before children for fixed paths; paths that start with a runtime
 * variable go last, and the stub orders them by their resolved depth. */
static int mount_order(const struct m_mount *m)
{
	return m->path.var && !m->path.head[0] ? 1000 + path_depth(m) : path_depth(m);
}

void mounts_sort(struct variant *v)
{
	for (size_t i = 1; i < v->mounts.n; i++) {
		struct m_mount cur = v->mounts.v[i];
		size_t j = i;
		while (j > 0 && mount_order(&v->mounts.v[j - 1]) > mount_order(&cur)) {
			v->mounts.v[j] = v->mounts.v[j - 1];
			j--;
		}
		v->mounts.v[j] = cur;
	}
}

/* Landlock mirrors the mount table: what is mounted read-only is readable
 * and executable, what is mounted writable is fully usable, nothing else.
 * Each mount carries its own rights (the stub adds the rule only when it
 * made the mount); the root itself, the one rule that is not a mount's,
 * only lets directories be listed. */
void mounts_landlock(struct variant *v)
{
	struct m_path root;
	path_parse("/", NULL, false, &root);
	VEC_PUSH(v->landlock_paths, root);
	VEC_PUSH(v->landlock_rules, ((struct aj_landlock_rule){{0}, AJ_LL_READ_DIR, 0}));
	for (size_t i = 0; i < v->mounts.n; i++) {
		struct m_mount *m = &v->mounts.v[i];
		m->landlock = m->op > 0 && m->op < AJ_MOUNT_OP_COUNT ? forms[m->op].landlock : 0;
		if (m->op == AJ_MOUNT_LINK && (m->flags & AJ_MOUNT_AS_HOST))
			m->landlock = forms[AJ_MOUNT_RO].landlock;
	}
}
