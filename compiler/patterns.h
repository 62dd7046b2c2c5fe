/* patterns.h: mask, deny and scan as a policy writes them, and how the
 * patterns of several blocks combine. */
#ifndef AJ_PATTERNS_H
#define AJ_PATTERNS_H

#include "variant.h"

struct lowering; /* changes.h: the handlers' side */

/* mask|deny [nocase] "PATTERN"…; lw->arg is the kind. */
bool patterns_lower(struct lowering *lw, const struct stmt *s);
/* scan prune "DIR"… | none;  scan depth N [fail|deny];  scan guard "PATH"…; */
bool patterns_scan_lower(struct lowering *lw, const struct stmt *s);

/* Adds p unless the variant has it; false (reported) when an earlier
 * block gave the same pattern the other kind. */
bool patterns_apply(struct variant *v, const struct m_pattern *p);
/* 'scan prune none': the prunes given so far are taken back. */
void patterns_prune_none(struct variant *v);
/* Does the variant have pattern p (kind, glob and flags)? */
bool patterns_in(const struct variant *v, const struct m_pattern *p);

#endif
