/* run.c: what is true of the whole run and every room may ask.  Here,
 * below them all: the fallback runs (no namespaces; fallback/fallback.c
 * sets it), and the supervisor, the reports and explain word things
 * otherwise. */
#include "base/base.h"

bool run_fallback;
