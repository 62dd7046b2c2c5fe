/* structure.h: a policy's exec, modes, commands and default mode. */
#ifndef AJ_STRUCTURE_H
#define AJ_STRUCTURE_H

#include "program.h"

typedef VEC(const struct policy *) chain_t;

/* Fills c's exec, modes (normal first), triggers, command groups (the
 * default first) and default mode from the chain, root first. */
bool structure_collect(struct compiled *c, const struct program *prog, const chain_t *chain);

#endif
