/* path.h: paths as a policy writes them, normalised into head, variable
 * and tail (struct aj_path). */
#ifndef AJ_PATH_H
#define AJ_PATH_H

#include "variant.h"

/* absolute: a path of the jail (mounts); else any text with at most one
 * variable (an env set value).  Errors go to loc. */
bool path_parse(const char *text, const struct loc *loc, bool absolute, struct m_path *out);

#endif
