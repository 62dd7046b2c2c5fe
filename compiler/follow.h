/* follow.h: where each tool that 'network allow follow TOOL' names finds
 * its registry, for the variants that follow it (include/aj_table.h,
 * struct aj_follow_conf). */
#ifndef AJ_FOLLOW_H
#define AJ_FOLLOW_H

#include "aj_table.h"

#include <stddef.h>

/* The tool's rows (enum aj_follow), NULL for none. */
const struct aj_follow_conf *follow_conf(int tool);

/* The tool's struct aj_follow_conf for a variant's initialiser: the name
 * of a one-element array, its rows and it written by array (emit.c's:
 * identical arrays are written once, shared by the variants that follow
 * the same tool); "0" for none. */
typedef const char *follow_array_fn(void *o, const char *type, const char *body, size_t n);
const char *follow_init(int tool, follow_array_fn *array, void *o);

#endif
