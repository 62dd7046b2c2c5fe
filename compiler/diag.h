/* diag.h: gcc-style diagnostics with the source line and a caret. */
#ifndef AJ_DIAG_H
#define AJ_DIAG_H

#include "ast.h"

#include <stdio.h>

struct src {
	const char *name; /* as given on the command line or by include */
	const char *text; /* NUL-terminated contents */
	size_t len;
};

const struct src *diag_src_new(const char *name, const char *text, size_t len);

void diag_set_stream(FILE *f);
void diag_error_at(const struct loc *loc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void diag_note_at(const struct loc *loc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void diag_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* file:line:col: error: …, without the line: for a file that is not a
 * policy, whose bytes are never printed (source.c). */
void diag_error_in(const char *file, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int diag_error_count(void);
void diag_reset(void);

/* The candidate closest to word by edit distance, or NULL when none is close
 * enough to be a plausible typo. */
const char *diag_suggest(const char *word, const char *const *cands, size_t n);

#endif
