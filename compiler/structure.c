/* structure.c: the structure of a policy: its target (exec), its modes
 * and their triggers, its command groups, its default mode; all of the
 * 'extends' chain, root first. */
#include "structure.h"
#include "args.h"
#include "diag.h"
#include "environment.h"
#include "load.h"

#include <stdlib.h>
#include <string.h>

static bool same_key(const struct stmt *a, const struct stmt *b)
{
	return strcmp(a->key, b->key) == 0;
}

/* default mode NAME; */
static bool default_shape(const struct stmt *s, const struct stmt *unused)
{
	const struct atom *a = s->args;
	return strcmp(s->key, "default") == 0 && a && a->kind == ATOM_WORD &&
	       strcmp(a->text, "mode") == 0 && a->next && a->next->kind == ATOM_WORD &&
	       !a->next->next && !s->has_block;
}

static int mode_index(const struct compiled *c, const char *name)
{
	for (size_t i = 0; i < c->modes.n; i++)
		if (strcmp(c->modes.v[i], name) == 0)
			return (int)i;
	return -1;
}

static bool same_mode(const struct stmt *a, const struct stmt *b)
{
	return strcmp(a->key, "mode") == 0 && a->args && a->args->kind == ATOM_WORD &&
	       a->has_block && strcmp(a->args->text, b->args->text) == 0;
}

static bool check_mode_stmt(struct compiled *c, const struct stmt *first, const struct stmt *s)
{
	const struct atom *a = s->args;
	if (!a || a->kind != ATOM_WORD) {
		error_at(a ? &a->loc : &s->loc, "expected: mode NAME [when env VAR…] { … }");
		return false;
	}
	if (!s->has_block) {
		error_at(&s->end, "expected '{' to open the body of mode '%s'", a->text);
		return false;
	}
	if (!first_in_block(first, s, same_mode, &a->loc,
	                    xprintf("mode '%s' is defined twice in this policy", a->text)))
		return false;
	if (mode_index(c, a->text) < 0) {
		if (c->modes.n >= 16) {
			error_at(&a->loc, "too many modes (at most 16)");
			return false;
		}
		/* The stub records it in the jail's NIS domain name (64 bytes),
		 * for the jails started inside (stub/variant/mode.c). */
		if (strlen(a->text) > 48) {
			error_at(&a->loc, "a mode's name has at most 48 characters");
			return false;
		}
		VEC_PUSH(c->modes, a->text);
		VEC_PUSH(c->mode_locs, a->loc);
	}
	int m = mode_index(c, a->text);
	a = a->next;
	if (!a)
		return true;
	if (a->kind != ATOM_WORD || strcmp(a->text, "when") != 0 || !a->next ||
	    a->next->kind != ATOM_WORD || strcmp(a->next->text, "env") != 0 || !a->next->next) {
		error_at(&a->loc, "expected: mode NAME when env VAR… { … }");
		return false;
	}
	for (a = a->next->next; a; a = a->next) {
		if (a->kind != ATOM_WORD || !env_name_ok(a->text, false)) {
			error_at(&a->loc, "expected an environment variable name");
			return false;
		}
		bool dup = false;
		for (size_t i = 0; i < c->triggers.n; i++) {
			if (strcmp(c->triggers.v[i].env, a->text) == 0) {
				if (c->triggers.v[i].mode != m) {
					error_at(&a->loc, "$%s already selects mode '%s'", a->text,
					         c->modes.v[c->triggers.v[i].mode]);
					return false;
				}
				dup = true;
			}
		}
		if (!dup)
			VEC_PUSH(c->triggers, ((struct aj_trigger){a->text, (uint8_t)m}));
	}
	return true;
}

static bool check_command_stmt(struct compiled *c, const struct program *prog, const struct stmt *s)
{
	const struct atom *a = s->args;
	if (!a) {
		error_at(&s->loc, "expected: command NAME… use POLICY; or command NAME… { … }");
		return false;
	}
	struct command_group g = {0};
	const struct atom *names = a, *end = NULL;
	for (; a; a = a->next) {
		if (a->kind == ATOM_WORD && strcmp(a->text, "use") == 0) {
			end = a;
			break;
		}
		if (a->kind != ATOM_WORD || strchr(a->text, '/')) {
			error_at(&a->loc, "expected a command name (a basename such as python3)");
			return false;
		}
	}
	if (end) {
		if (s->has_block || !end->next || end->next->kind != ATOM_WORD || end->next->next) {
			error_at(&end->loc, "expected: command NAME… use POLICY;");
			return false;
		}
		const struct policy *from = program_find(prog, end->next->text);
		if (!from) {
			error_at(&end->next->loc, "unknown policy '%s' (is its file included?)",
			         end->next->text);
			return false;
		}
		g.from = from;
		g.overlay = from->stmt->body;
	} else if (s->has_block) {
		g.overlay = s->body;
	} else {
		error_at(&s->end, "expected 'use POLICY' or a block after the command names");
		return false;
	}
	if (names == end) {
		error_at(&names->loc, "expected at least one command name before 'use'");
		return false;
	}
	g.name = names->text;
	int group = (int)c->groups.n;
	if (group > 200) {
		error_at(&s->loc, "too many command groups");
		return false;
	}
	for (a = names; a != end; a = a->next) {
		for (size_t i = 0; i < c->commands.n; i++) {
			if (strcmp(c->commands.v[i].name, a->text) == 0) {
				error_at(&a->loc, "command '%s' is already mapped", a->text);
				return false;
			}
		}
		VEC_PUSH(c->commands, ((struct aj_command){a->text, (uint8_t)group}));
	}
	VEC_PUSH(c->groups, g);
	return true;
}

bool collect_structure(struct compiled *c, const struct program *prog, const chain_t *chain)
{
	bool ok = true;
	VEC_PUSH(c->modes, "normal");
	VEC_PUSH(c->mode_locs, ((struct loc){0}));
	VEC_PUSH(c->groups, ((struct command_group){"", NULL, NULL}));
	const char *default_mode = NULL;
	struct loc default_loc = {0};
	for (size_t i = 0; i < chain->n; i++) {
		const struct stmt *first = chain->v[i]->stmt->body;
		for (const struct stmt *s = first; s; s = s->next) {
			if (strcmp(s->key, "mode") == 0) {
				ok = check_mode_stmt(c, first, s) && ok;
			} else if (strcmp(s->key, "command") == 0) {
				ok = check_command_stmt(c, prog, s) && ok;
			} else if (strcmp(s->key, "exec") == 0) {
				if (!first_in_block(first, s, same_key, &s->loc,
				                    "'exec' is already set in this policy"))
					ok = false;
				else if (s->has_block || !want_args(s, 1, 1, "exec COMMAND;"))
					ok = false;
				else if (s->args->kind == ATOM_WORD ||
				         s->args->kind == ATOM_STRING || s->args->kind == ATOM_PATH)
					c->exec = s->args->text;
				else {
					error_at(&s->args->loc, "expected a command after 'exec'");
					ok = false;
				}
			} else if (strcmp(s->key, "default") == 0) {
				const struct atom *a = s->args;
				if (!a || a->kind != ATOM_WORD || strcmp(a->text, "mode") != 0 ||
				    !a->next || a->next->kind != ATOM_WORD || a->next->next ||
				    s->has_block) {
					error_at(a ? &a->loc : &s->loc,
					         "expected: default mode NAME;");
					ok = false;
				} else if (!first_in_block(
				               first, s, default_shape, &s->loc,
				               "'default mode' is already set in this policy")) {
					ok = false;
				} else {
					default_mode = a->next->text;
					default_loc = a->next->loc;
				}
			}
		}
	}
	if (default_mode) {
		int m = mode_index(c, default_mode);
		if (m < 0) {
			const char *hint = suggest(default_mode, c->modes.v, c->modes.n);
			if (hint)
				error_at(&default_loc, "unknown mode '%s'; did you mean '%s'?",
				         default_mode, hint);
			else
				error_at(&default_loc, "unknown mode '%s'", default_mode);
			ok = false;
		}
		c->default_mode = m < 0 ? 0 : m;
	}
	if (c->exec && c->groups.n > 1) {
		error_at(&chain->v[chain->n - 1]->loc,
		         "policy '%s' has both 'exec' and 'command' groups: a fixed target "
		         "never chooses by command name",
		         chain->v[chain->n - 1]->name);
		ok = false;
	}
	return ok;
}
