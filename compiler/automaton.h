/* automaton.h: mask, deny and prune patterns compiled into the steps of
 * the scan automaton, the stub's walk. */
#ifndef AJ_AUTOMATON_H
#define AJ_AUTOMATON_H

#include "variant.h"

bool automaton_build(struct variant *v);
/* An anchored mask or deny below a pruned directory would never match. */
bool automaton_check_pruned(const struct variant *v);

#endif
