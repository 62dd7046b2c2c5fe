/* stub.h: what the entry points (main.c, fallback.c, policy.c) share: every
 * room's interface (explain/explain.h includes the rooms below it), and
 * the entry points' own. */
#ifndef AJ_STUB_H
#define AJ_STUB_H

#include "explain/explain.h"

/* fallback.c: the run without namespaces (main.c decides it). */
noreturn void fallback_run(struct run *r);

#endif
