/* build.h: aijail-compile --build, and where the compiler finds the files
 * installed beside it. */
#ifndef AJ_BUILD_H
#define AJ_BUILD_H

#include "program.h"

/* PREFIX/sub, where PREFIX is the folder above the one holding this
 * executable (PREFIX/bin/aijail-compile, or the tree's build/bin), when
 * it is a directory; else NULL. */
const char *build_install_dir(const char *sub);

/* Compiles the policy into a static stub at out, with the runtime in
 * PREFIX/lib/aijail and musl-gcc; returns the exit status. */
int build_stub(const struct compiled *c, const char *source, const char *out);

#endif
