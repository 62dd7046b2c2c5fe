/* compile.h: a policy compiled into its variants (command group x mode). */
#ifndef AJ_COMPILE_H
#define AJ_COMPILE_H

#include "program.h"

bool compile_policy(const struct program *prog, const struct policy *pol, struct compiled *out);

#endif
