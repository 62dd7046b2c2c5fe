/* args.c: reading a statement's arguments. */
#include "args.h"
#include "diag.h"

#include <string.h>

int args_count(const struct stmt *s)
{
	int n = 0;
	for (const struct atom *a = s->args; a; a = a->next)
		n++;
	return n;
}

bool args_want(const struct stmt *s, int min, int max, const char *usage)
{
	int n = args_count(s);
	if (n >= min && (max < 0 || n <= max))
		return true;
	const struct loc *l = &s->loc;
	if (n > max && max >= 0) {
		const struct atom *a = s->args;
		for (int i = 0; i < max; i++)
			a = a->next;
		l = &a->loc;
		diag_error_at(l, "unexpected %s '%s'; expected: %s (a missing ';'?)",
		              ast_atom_kind_name(a->kind), a->text ? a->text : "", usage);
	} else {
		diag_error_at(l, "missing argument; expected: %s", usage);
	}
	return false;
}

const char *args_word_of(const struct atom *a)
{
	return (a->kind == ATOM_WORD || a->kind == ATOM_STRING) ? a->text : NULL;
}

int args_choose(const struct atom *a, const char *what, const char *const *names, size_t n)
{
	const char *w = args_word_of(a);
	if (w)
		for (size_t i = 0; i < n; i++)
			if (strcmp(w, names[i]) == 0)
				return (int)i;
	char list[256] = "";
	for (size_t i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
		         names[i]);
	const char *hint = w ? diag_suggest(w, names, n) : NULL;
	if (hint)
		diag_error_at(&a->loc, "unknown %s '%s'; did you mean '%s'?", what, w, hint);
	else
		diag_error_at(&a->loc, "unknown %s '%s'; expected one of: %s", what,
		              a->text ? a->text : ast_atom_kind_name(a->kind), list);
	return -1;
}

bool args_quoted(const struct atom *a, const char *noun, const char *usage)
{
	if (a->kind == ATOM_STRING)
		return true;
	diag_error_at(&a->loc, "%s are quoted strings: %s \"%s\"", noun, usage,
	              a->text ? a->text : "…");
	return false;
}

/* The statement of the block before s that same() says is s again. */
static const struct stmt *said_before(const struct stmt *first, const struct stmt *s,
                                      bool (*same)(const struct stmt *a, const struct stmt *b))
{
	for (const struct stmt *t = first; t && t != s; t = t->next)
		if (same(t, s))
			return t;
	return NULL;
}

bool args_first_in_block(const struct stmt *first, const struct stmt *s,
                         bool (*same)(const struct stmt *a, const struct stmt *b),
                         const struct loc *at, const char *what)
{
	const struct stmt *t = said_before(first, s, same);
	if (!t)
		return true;
	diag_error_at(at, "%s", what);
	/* at is s's key or its first argument; the note points at the same
	 * place in t. */
	diag_note_at(at == &s->loc || !t->args ? &t->loc : &t->args->loc, "first given here");
	return false;
}

static bool same_key(const struct stmt *a, const struct stmt *b)
{
	return strcmp(a->key, b->key) == 0;
}

bool args_key_once(const struct stmt *first, const struct stmt *s)
{
	return args_first_in_block(first, s, same_key, &s->loc,
	                           ast_printf("'%s' is already set in this block", s->key));
}
