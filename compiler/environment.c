/* environment.c: env keep, drop and set.  keep and drop are both lists
 * that accumulate; at run time a variable is passed when a keep pattern
 * matches it and no drop pattern does, so a mode can take back what the
 * policy or a command group keeps. */
#include "environment.h"
#include "changes.h"
#include "args.h"
#include "diag.h"
#include "path.h"

#include <stdlib.h>
#include <string.h>

bool environment_name_ok(const char *n, bool glob)
{
	if (!*n)
		return false;
	for (const char *p = n; *p; p++) {
		bool alpha = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || *p == '_';
		bool digit = *p >= '0' && *p <= '9';
		bool g = glob && (*p == '*' || *p == '?');
		if (!alpha && !(digit && p != n) && !g)
			return false;
	}
	return true;
}

void environment_list_add(m_env_list *l, const char *pattern, const struct loc *loc)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].pattern, pattern) == 0)
			return;
	VEC_PUSH(*l, ((struct m_env_pattern){ast_strdup(pattern), loc ? *loc : (struct loc){0}}));
}

void environment_set_put(struct variant *v, const struct m_env_set *e)
{
	for (size_t i = 0; i < v->env_set.n; i++) {
		if (strcmp(v->env_set.v[i].name, e->name) == 0) {
			v->env_set.v[i] = *e;
			return;
		}
	}
	VEC_PUSH(v->env_set, *e);
}

/* The change of the block that names the same variable, or NULL. */
static const struct change *named_before(const struct lowering *lw, enum change_kind kind,
                                         const char *name)
{
	for (size_t i = 0; i < lw->out->n; i++) {
		const struct change *c = &lw->out->v[i];
		if (c->kind == kind &&
		    strcmp(kind == CH_ENV_SET ? c->env_set.name : c->env.pattern, name) == 0)
			return c;
	}
	return NULL;
}

static bool lower_set(struct lowering *lw, const struct atom *a)
{
	if (a->kind != ATOM_ASSIGN) {
		diag_error_at(&a->loc, "expected NAME=VALUE after 'env set'");
		return false;
	}
	if (!environment_name_ok(a->text, false)) {
		diag_error_at(&a->loc, "'%s' is not a valid variable name", a->text);
		return false;
	}
	const struct atom *val = a->value;
	struct m_env_set e = {.name = a->text, .loc = a->loc};
	const char *text =
	    val->kind == ATOM_NUMBER ? ast_printf("%llu", (unsigned long long)val->num) : val->text;
	if (!text || !path_parse(text, &val->loc, false, &e.value))
		return false;
	const struct change *c = named_before(lw, CH_ENV_SET, a->text);
	if (c) {
		diag_error_at(&a->loc, "this variable is already set in this block");
		diag_note_at(&c->loc, "first given here");
		return false;
	}
	VEC_PUSH(*lw->out, ((struct change){.kind = CH_ENV_SET, .loc = a->loc, .env_set = e}));
	return true;
}

bool environment_lower(struct lowering *lw, const struct stmt *s)
{
	static const char *const verbs[] = {"keep", "set", "drop"};
	if (!args_want(s, 2, -1, "env keep NAME…; env drop NAME…; or env set NAME=VALUE…;"))
		return false;
	int verb = args_choose(s->args, "env verb", verbs, N(verbs));
	if (verb < 0)
		return false;
	bool ok = true;
	for (const struct atom *a = s->args->next; a; a = a->next) {
		if (verb == 1) {
			ok = lower_set(lw, a) && ok;
			continue;
		}
		const char *n = args_word_of(a);
		if (!n || !environment_name_ok(n, true)) {
			diag_error_at(&a->loc, "expected a variable name or pattern (quote "
			                       "patterns: \"LC_*\")");
			ok = false;
			continue;
		}
		enum change_kind kind = verb == 0 ? CH_ENV_KEEP : CH_ENV_DROP;
		const struct change *c = named_before(lw, kind, n);
		if (c) {
			diag_error_at(&a->loc,
			              verb == 0 ? "this variable is already kept in this block"
			                        : "this variable is already dropped in this block");
			diag_note_at(&c->loc, "first given here");
			ok = false;
			continue;
		}
		struct change k = {.kind = kind, .loc = a->loc};
		k.env = (struct m_env_pattern){ast_strdup(n), a->loc};
		VEC_PUSH(*lw->out, k);
	}
	return ok;
}
