/* environment.h: env keep, drop and set. */
#ifndef AJ_ENVIRONMENT_H
#define AJ_ENVIRONMENT_H

#include "variant.h"

struct lowering; /* changes.h: the handlers' side */

/* A variable's name, or with glob a pattern of '*' and '?'. */
bool environment_name_ok(const char *n, bool glob);
bool environment_lower(struct lowering *lw, const struct stmt *s);
/* Adds a keep or drop pattern unless the list has it. */
void environment_list_add(m_env_list *l, const char *pattern, const struct loc *loc);
/* Sets a variable, replacing an earlier value. */
void environment_set_put(struct variant *v, const struct m_env_set *e);

#endif
