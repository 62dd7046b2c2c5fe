/* parse.h: source text to statements. */
#ifndef AJ_PARSE_H
#define AJ_PARSE_H

#include "ast.h"
#include "diag.h"

struct parse_ctx;

/* The scanner's cursor, shared by grammar/aj.l and parse.c. */
struct lex_state {
	int line;
	int col;
	struct parse_ctx *ctx;
};

/* Set by the scanner when it reported a bad token itself. */
void parse_lex_failed(struct parse_ctx *ctx);

/* Parses src; errors go through diag.  The result is meaningless when
 * diag_error_count() grew. */
struct stmt *parse_src(const struct src *src);

#endif
