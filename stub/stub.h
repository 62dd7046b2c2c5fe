/* stub.h: what the entry points (main.c, fallback.c, policy.c) share: every
 * room's interface (each room's header includes only the rooms it calls:
 * docs/layout.md), and the entry points' own. */
#ifndef AJ_STUB_H
#define AJ_STUB_H

#include "base/base.h"
#include "variant/variant.h"
#include "scan/scan.h"
#include "confine/confine.h"
#include "root/root.h"
#include "notify/notify.h"
#include "egress/egress.h"
#include "term/term.h"
#include "proc/proc.h"
#include "fallback/fallback.h"
#include "explain/explain.h"

/* fallback.c: the run without namespaces (main.c decides it). */
noreturn void fallback_run(struct run *r);

#endif
