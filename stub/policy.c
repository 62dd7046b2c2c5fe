/* policy.c: the only file compiled once per policy: the tables the
 * compiler generated, and the one pointer through which the rest of the
 * stub reads them. */
#include "base/base.h"

#include AJ_POLICY_HEADER

const struct aj_policy *const aj_the_policy = &aj_policy;
