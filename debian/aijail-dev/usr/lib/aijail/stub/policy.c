/* policy.c: the only file compiled once per policy: the tables the
 * compiler generated, and the one pointer through which the rest of the
 * stub reads them.  It includes the contract alone: aijail-compile --build
 * compiles it with nothing but the runtime's aj_table.h (base/base.h
 * declares the pointer for the rooms). */
#include "aj_table.h"

#include AJ_POLICY_HEADER

extern const struct aj_policy *const aj_the_policy;
const struct aj_policy *const aj_the_policy = &aj_policy;
