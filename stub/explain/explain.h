/* explain/explain.h: the interface of the room explain/: --jail-explain.
 * Included by its files and by the rooms above it (docs/layout.md). */
#ifndef AJ_STUB_EXPLAIN_H
#define AJ_STUB_EXPLAIN_H

#include "base/base.h"
#include "variant/variant.h"
#include "scan/scan.h"
#include "confine/confine.h"
#include "root/root.h"
#include "egress/egress.h"
#include "term/term.h"
#include "proc/proc.h"
#include "fallback/fallback.h"

/* explain.c: --jail-explain; report.c: its process, seccomp and Landlock
 * sections. */
noreturn void explain(const struct run *r);
void report_process(const struct run *r, unsigned fb_filter);
void report_landlock_rules(const struct aj_variant *v);
/* net.c: its network section; secrets.c: its secrets section. */
void net_explain(const struct run *r);
void secrets_explain(const struct run *r);

#endif
