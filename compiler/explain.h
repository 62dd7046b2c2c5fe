/* explain.h: a variant's syscall policy in words. */
#ifndef AJ_EXPLAIN_H
#define AJ_EXPLAIN_H

#include "program.h"

#include <stdio.h>

struct variant; /* variant.h */

/* What --jail-explain prints of the filter (aj_variant.seccomp_summary). */
char *explain_summary(const struct variant *v);
/* --explain: every variant's filters and rules. */
void explain_print(FILE *f, const struct compiled *c);

#endif
