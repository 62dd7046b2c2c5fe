/* syscalls.h: 'syscalls' lowered into rules, and the rules of several
 * blocks combined. */
#ifndef AJ_SYSCALLS_H
#define AJ_SYSCALLS_H

#include "variant.h"

struct change;   /* changes.h */
struct lowering; /* changes.h: the handlers' side */

/* syscalls default ACTION;  syscalls ACTION TARGET…; */
bool syscalls_lower(struct lowering *lw, const struct stmt *s);
/* Adds the rules of one target unless the variant has them; false
 * (reported) when an earlier block gave one of them another deny action. */
bool syscalls_rules_apply(struct variant *v, const struct change *c);

#endif
