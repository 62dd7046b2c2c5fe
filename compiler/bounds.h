/* bounds.h: limit memory|processes and rlimit. */
#ifndef AJ_BOUNDS_H
#define AJ_BOUNDS_H

#include "variant.h"

struct lowering; /* changes.h: the handlers' side */

bool bounds_rlimit_lower(struct lowering *lw, const struct stmt *s);
bool bounds_limit_lower(struct lowering *lw, const struct stmt *s);
/* Sets an rlimit, replacing an earlier one of the same resource. */
void bounds_rlimit_put(struct variant *v, const struct m_rlimit *l);
/* "4G", "25 percent", "unlimited": a memory limit as a policy writes it. */
const char *bounds_memory_text(uint64_t m);

#endif
