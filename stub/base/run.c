/* run.c: what is true of the whole run and every room may ask, from
 * struct run alone. */
#include "base/base.h"

bool run_in_fallback(const struct run *r)
{
	return r->fallback && (r->v->flags & AJ_VARIANT_FALLBACK);
}
