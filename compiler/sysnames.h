/* sysnames.h: syscall names and numbers (libseccomp), constants and errno
 * values (the C library's headers). */
#ifndef AJ_SYSNAMES_H
#define AJ_SYSNAMES_H

#include "ast.h"

/* The x86_64 number of a syscall, or -1 after an error at loc. */
int syscall_lookup(const char *name, const struct loc *loc);
/* The name of a number, "syscall[N]" for one libseccomp does not know. */
const char *nr_name(int nr);
bool constant_lookup(const char *name, uint64_t *out);
const char *constant_suggest(const char *name);
int errno_lookup(const char *name);
const char *errno_name(int e);

#endif
