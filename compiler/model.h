/* model.h: the compiler as a library, for its command line (main.c), the
 * unit tests, the fuzz target and the benchmark: load, compile, emit.  No
 * stage of the compiler includes it. */
#ifndef AJ_MODEL_H
#define AJ_MODEL_H

#include "compile.h"
#include "emit.h"
#include "explain.h"
#include "load.h"
#include "path.h"
#include "program.h"
#include "sysgroups.h"
#include "variant.h"

#endif
