/* stub.h: what the entry points (main.c, options.c, fallback.c, policy.c)
 * share: every room's interface (each room's header includes only the
 * rooms it calls: docs/layout.md), and the entry points' own. */
#ifndef AJ_STUB_H
#define AJ_STUB_H

#include "base/base.h"
#include "variant/variant.h"
#include "scan/scan.h"
#include "watch/watch.h"
#include "confine/confine.h"
#include "root/root.h"
#include "notify/notify.h"
#include "egress/egress.h"
#include "term/term.h"
#include "proc/proc.h"
#include "fallback/fallback.h"
#include "explain/explain.h"

/* options.c: the stub's own options, one table; what main() decides with
 * is here, the rest in the rooms that use it. */
struct opts {
	const char *mode;          /* explicit mode name */
	const char *mode_opt;      /* the option that named it */
	const char *log, *log_opt; /* --jail-log=FILE */
	bool explain;
	const struct aj_policy *pol;
};
int options_parse(const struct aj_policy *pol, int argc, char **argv, struct opts *o);

/* fallback.c: the run without namespaces (main.c decides it). */
noreturn void fallback_run(struct run *r);

#endif
