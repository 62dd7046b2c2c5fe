/* args.h: reading a statement's arguments: how many, which word, which
 * of a fixed list of choices; the same message for every key. */
#ifndef AJ_ARGS_H
#define AJ_ARGS_H

#include "ast.h"

int args_count(const struct stmt *s);
/* min to max arguments (max < 0: any), else an error naming usage. */
bool args_want(const struct stmt *s, int min, int max, const char *usage);
/* The text of a word or a string, else NULL. */
const char *args_word_of(const struct atom *a);
/* Which of names a is, with a suggestion for a typo; -1 after an error. */
int args_choose(const struct atom *a, const char *what, const char *const *names, size_t n);
/* Patterns and guarded paths are quoted: unquoted, '*' and '#' would be
 * read as other tokens. */
bool args_quoted(const struct atom *a, const char *noun, const char *usage);
/* True when s is the first of its kind in the block; else reports it at at,
 * with a note at the first. */
bool args_first_in_block(const struct stmt *first, const struct stmt *s,
                         bool (*same)(const struct stmt *a, const struct stmt *b),
                         const struct loc *at, const char *what);
/* A setting that takes one value is given once in a block: true when s
 * is the first of its key in the block that starts at first. */
bool args_key_once(const struct stmt *first, const struct stmt *s);

#endif
