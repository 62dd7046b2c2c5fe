/* sysnames.h: syscall names and numbers (libseccomp), constants and errno
 * values (the C library's headers). */
#ifndef AJ_SYSNAMES_H
#define AJ_SYSNAMES_H

#include "ast.h"

#include <stdint.h>
#include <stdio.h>

/* The target architecture (aijail-compile --arch): "x86_64" or "aarch64";
 * false for any other name. */
bool sysnames_target_arch_set(const char *name);
uint32_t sysnames_target_arch(void);       /* libseccomp's token, SCMP_ARCH_* */
uint32_t sysnames_target_audit_arch(void); /* AUDIT_ARCH_*, as seccomp_data.arch holds it */
const char *sysnames_target_arch_name(void);

/* sysnames_syscall_lookup for a name that x86_64 has and the target has not: a
 * call the target cannot make, whose rules fall away. */
#define NR_ABSENT (-2)
/* The target's number of a syscall, NR_ABSENT, or -1 after an error at
 * loc. */
int sysnames_syscall_lookup(const char *name, const struct loc *loc);
/* The name of a target number, "syscall[N]" for one libseccomp does not
 * know. */
const char *sysnames_nr_name(int nr);

bool sysnames_constant_lookup(const char *name, uint64_t *out);
const char *sysnames_constant_suggest(const char *name);
int sysnames_errno_lookup(const char *name);
/* Every constant and errno, "NAME VALUE" a line: the values are this
 * machine's headers', and a cross build checks them against the target's
 * (tests/aarch64/constants.c). */
void sysnames_constants_print(FILE *f);
const char *sysnames_errno_name(int e);

#endif
