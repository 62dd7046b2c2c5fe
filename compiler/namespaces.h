/* namespaces.h: the 'namespaces' setting, lowered and resolved. */
#ifndef AJ_NAMESPACES_H
#define AJ_NAMESPACES_H

#include "variant.h"

struct lowering; /* changes.h: the handlers' side */

/* namespaces none;  namespaces KIND… max COUNT; */
bool namespaces_lower(struct lowering *lw, const struct stmt *s);
/* The filter rules for what the variant's 'namespaces' does not allow. */
void namespaces_rules(struct variant *v);

#endif
