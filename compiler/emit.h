/* emit.h: the generated header. */
#ifndef AJ_EMIT_H
#define AJ_EMIT_H

#include "program.h"

#include <stdio.h>

bool emit_fits(const struct compiled *c);
bool emit_header(FILE *f, const struct compiled *c, const char *source);
/* "sha256:HEX (aijail-compile VERSION, libseccomp V)" */
char *emit_identity(const struct compiled *c);

#endif
