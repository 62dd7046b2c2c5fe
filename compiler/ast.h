/* ast.h: the syntax tree the parser builds and the compiler's memory arena.
 *
 * The grammar is deliberately small: a file is a list of statements, a
 * statement is a key word followed by atoms and either ';' or a block.  What
 * the words mean is decided by the semantic pass (load.c, structure.c and
 * the key table of settings.c), which can then say "unknown key 'netwrok';
 * did you mean 'network'?" with the exact location instead of a generic
 * syntax error. */
#ifndef AJ_AST_H
#define AJ_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct src; /* diag.h */

struct loc {
	const struct src *src;
	int line;
	int col;
	int end_line;
	int end_col; /* inclusive */
};

enum atom_kind {
	ATOM_WORD,   /* ro, python3, TIOCSTI, rw+ */
	ATOM_STRING, /* "…" */
	ATOM_NUMBER, /* 42, 0x10, 512M */
	ATOM_PATH,   /* /usr, ~/.npm, $HOME/x */
	ATOM_GROUP,  /* @mount */
	ATOM_STAR,   /* * */
	ATOM_ARROW,  /* -> */
	ATOM_ASSIGN, /* NAME=value */
	ATOM_CALL,   /* name(cond, …) */
};

enum cond_kind {
	COND_ANY,  /* * */
	COND_EQ,   /* v or == v */
	COND_NE,   /* != v */
	COND_BITS, /* & v: any of the bits set */
	COND_IN,     /* in {v, …} */
	COND_MASKED, /* & m == v */
};

/* A constant expression: terms joined by '|'. */
struct value {
	char *name; /* NULL for a number */
	uint64_t num;
	struct loc loc;
	struct value *next; /* next term of the same '|' expression */
};

/* One element of an "in {…}" list or the single operand. */
struct operand {
	struct value *terms;
	struct loc loc;
	struct operand *next;
};

struct cond {
	enum cond_kind kind;
	struct operand *operands;
	struct loc loc;
	struct cond *next;
};

struct atom {
	enum atom_kind kind;
	char *text;         /* word, string contents, path, group (with '@'), call name */
	uint64_t num;       /* ATOM_NUMBER */
	struct atom *value; /* ATOM_ASSIGN: the right-hand side */
	struct cond *conds; /* ATOM_CALL */
	int n_conds;
	struct loc loc;
	struct atom *next;
};

struct stmt {
	char *key;
	struct loc loc; /* of the key */
	struct atom *args;
	bool has_block;
	struct stmt *body;
	struct loc end; /* of the closing ';' or '}' */
	struct stmt *next;
};

/* The arena: everything the compiler allocates lives until ast_arena_free(). */
void *ast_alloc(size_t n);
char *ast_strdup(const char *s);
char *ast_strndup(const char *s, size_t n);
char *ast_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ast_arena_free(void);

const char *ast_atom_kind_name(enum atom_kind k);

#endif
