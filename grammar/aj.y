/* aj.y: the grammar of aijail policies.
 *
 * A file is a list of statements; a statement is a key followed by atoms,
 * ended by ';' or by a block.  The shape is fixed here, the meaning of each
 * key in compiler/settings.c: that keeps the grammar conflict-free and lets
 * the semantic pass give precise, suggestive errors. */
%require "3.8"
%define api.pure full
%define api.prefix {aj}
%define parse.error detailed
%locations
%param {void *scanner}
%parse-param {struct parse_ctx *ctx}

%code requires {
#include "ast.h"
struct parse_ctx;
}

%code provides {
#define YYSTYPE AJSTYPE
#define YYLTYPE AJLTYPE
int ajlex(AJSTYPE *lval, AJLTYPE *lloc, void *scanner);
void ajerror(AJLTYPE *lloc, void *scanner, struct parse_ctx *ctx, const char *msg);
struct loc parse_loc(const struct parse_ctx *ctx, const AJLTYPE *l);
struct parse_ctx {
	const struct src *src;
	struct stmt *result;
	int lex_errors;
};
}

%code {
#include "diag.h"
#include <stdlib.h>
#include <string.h>

static struct atom *atom_new(struct parse_ctx *ctx, enum atom_kind k, char *text, const AJLTYPE *l)
{
	struct atom *a = xalloc(sizeof(*a));
	a->kind = k;
	a->text = text;
	a->loc = parse_loc(ctx, l);
	return a;
}

#define APPEND(type, head, item)                                                               \
	do {                                                                                   \
		type **pp_ = &(head);                                                          \
		while (*pp_)                                                                   \
			pp_ = &(*pp_)->next;                                                   \
		*pp_ = (item);                                                                 \
	} while (0)
}

%union {
	char *str;
	uint64_t num;
	struct stmt *stmt;
	struct atom *atom;
	struct cond *cond;
	struct operand *operand;
	struct value *value;
}

%token <str> WORD "word"
%token <str> STRING "string"
%token <num> NUMBER "number"
%token <str> PATH "path"
%token <str> GROUP "syscall group"
%token ARROW "'->'"
%token EQEQ "'=='"
%token NOTEQ "'!='"
%token LEXERROR "invalid token"

%type <stmt> stmts stmt
%type <atom> atoms atom
%type <cond> conds cond
%type <operand> operands operand
%type <value> value term

%%

file
	: stmts { ctx->result = $1; }
	;

stmts
	: %empty { $$ = NULL; }
	| stmts stmt { $$ = $1; if ($2) APPEND(struct stmt, $$, $2); }
	;

stmt
	: WORD atoms ';' {
		$$ = xalloc(sizeof(*$$));
		$$->key = $1; $$->loc = parse_loc(ctx, &@1); $$->args = $2; $$->end = parse_loc(ctx, &@3);
	}
	| WORD atoms '{' stmts '}' {
		$$ = xalloc(sizeof(*$$));
		$$->key = $1; $$->loc = parse_loc(ctx, &@1); $$->args = $2;
		$$->has_block = true; $$->body = $4; $$->end = parse_loc(ctx, &@5);
	}
	| error ';' { $$ = NULL; yyerrok; }
	| error '}' { $$ = NULL; yyerrok; }
	;

atoms
	: %empty { $$ = NULL; }
	| atoms atom { $$ = $1; APPEND(struct atom, $$, $2); }
	;

atom
	: WORD { $$ = atom_new(ctx, ATOM_WORD, $1, &@1); }
	| STRING { $$ = atom_new(ctx, ATOM_STRING, $1, &@1); }
	| NUMBER { $$ = atom_new(ctx, ATOM_NUMBER, NULL, &@1); $$->num = $1; }
	| PATH { $$ = atom_new(ctx, ATOM_PATH, $1, &@1); }
	| GROUP { $$ = atom_new(ctx, ATOM_GROUP, $1, &@1); }
	| '*' { $$ = atom_new(ctx, ATOM_STAR, xstrdup("*"), &@1); }
	| ARROW { $$ = atom_new(ctx, ATOM_ARROW, xstrdup("->"), &@1); }
	| WORD '=' atom {
		if ($3->kind == ATOM_ASSIGN || $3->kind == ATOM_CALL || $3->kind == ATOM_ARROW || $3->kind == ATOM_STAR || $3->kind == ATOM_GROUP) {
			struct loc l = $3->loc;
			error_at(&l, "expected a value after '=', found %s", atom_kind_name($3->kind));
		}
		$$ = atom_new(ctx, ATOM_ASSIGN, $1, &@1); $$->value = $3;
		$$->loc.end_line = $3->loc.end_line; $$->loc.end_col = $3->loc.end_col;
	}
	| WORD '(' conds ')' {
		$$ = atom_new(ctx, ATOM_CALL, $1, &@1); $$->conds = $3;
		for (struct cond *c = $3; c; c = c->next)
			$$->n_conds++;
		struct loc e = parse_loc(ctx, &@4);
		$$->loc.end_line = e.end_line; $$->loc.end_col = e.end_col;
	}
	;

conds
	: cond { $$ = $1; }
	| conds ',' cond { $$ = $1; APPEND(struct cond, $$, $3); }
	;

cond
	: '*' { $$ = xalloc(sizeof(*$$)); $$->kind = COND_ANY; $$->loc = parse_loc(ctx, &@1); }
	| operand { $$ = xalloc(sizeof(*$$)); $$->kind = COND_EQ; $$->operands = $1; $$->loc = $1->loc; }
	| EQEQ operand { $$ = xalloc(sizeof(*$$)); $$->kind = COND_EQ; $$->operands = $2; $$->loc = parse_loc(ctx, &@1); }
	| NOTEQ operand { $$ = xalloc(sizeof(*$$)); $$->kind = COND_NE; $$->operands = $2; $$->loc = parse_loc(ctx, &@1); }
	| '&' operand { $$ = xalloc(sizeof(*$$)); $$->kind = COND_BITS; $$->operands = $2; $$->loc = parse_loc(ctx, &@1); }
	| '&' operand EQEQ operand {
		$$ = xalloc(sizeof(*$$)); $$->kind = COND_MASKED; $$->operands = $2; $2->next = $4;
		$$->loc = parse_loc(ctx, &@1);
	}
	| WORD '{' operands '}' {
		$$ = xalloc(sizeof(*$$)); $$->kind = COND_IN; $$->operands = $3; $$->loc = parse_loc(ctx, &@1);
		if (strcmp($1, "in") != 0)
			error_at(&$$->loc, "expected 'in' before '{', found '%s'", $1);
	}
	;

operands
	: operand { $$ = $1; }
	| operands ',' operand { $$ = $1; APPEND(struct operand, $$, $3); }
	;

operand
	: value { $$ = xalloc(sizeof(*$$)); $$->terms = $1; $$->loc = $1->loc; }
	;

value
	: term { $$ = $1; }
	| value '|' term { $$ = $1; APPEND(struct value, $$, $3); }
	;

term
	: NUMBER { $$ = xalloc(sizeof(*$$)); $$->num = $1; $$->loc = parse_loc(ctx, &@1); }
	| WORD { $$ = xalloc(sizeof(*$$)); $$->name = $1; $$->loc = parse_loc(ctx, &@1); }
	;

%%

struct loc parse_loc(const struct parse_ctx *ctx, const AJLTYPE *l)
{
	struct loc r = {ctx->src, l->first_line, l->first_column, l->last_line, l->last_column};
	return r;
}

void ajerror(AJLTYPE *lloc, void *scanner, struct parse_ctx *ctx, const char *msg)
{
	(void)scanner;
	/* The scanner already said what is wrong; the parser's view of a bad
	 * token and of what follows would only be noise. */
	if (ctx->lex_errors)
		return;
	struct loc l = parse_loc(ctx, lloc);
	error_at(&l, "%s", msg);
}

void parse_lex_failed(struct parse_ctx *ctx)
{
	ctx->lex_errors++;
}
