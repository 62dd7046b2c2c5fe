/* bounds.h: limit memory|processes and rlimit. */
#ifndef AJ_BOUNDS_H
#define AJ_BOUNDS_H

#include "variant.h"

struct lowering; /* changes.h: the handlers' side */

bool rlimit_lower(struct lowering *lw, const struct stmt *s);
bool limit_lower(struct lowering *lw, const struct stmt *s);
/* Sets an rlimit, replacing an earlier one of the same resource. */
void rlimit_put(struct variant *v, const struct m_rlimit *l);
/* "4G", "25 percent", "unlimited": a memory limit as a policy writes it. */
const char *limit_memory_text(uint64_t m);

#endif
