/* lower.h: mask, deny and prune patterns lowered into the steps of the
 * stub's walk. */
#ifndef AJ_LOWER_H
#define AJ_LOWER_H

#include "types.h"

bool scan_lower(struct variant *v);
/* An anchored mask or deny below a pruned directory would never match. */
bool pattern_check_pruned(const struct variant *v);

#endif
