/* model.h: the meaning of each statement (model.c) and the syscall
 * tables (syscalls.c), for the compiler's other stages. */
#ifndef AJ_MODEL_H
#define AJ_MODEL_H

#include "emit.h"
#include "load.h"
#include "lower.h"
#include "types.h"

/* model.c */
bool compile_policy(const struct program *prog, const struct policy *pol, struct compiled *out);
bool path_parse(const char *text, const struct loc *loc, bool absolute, struct m_path *out);
/* "4G", "25 percent", "unlimited": a memory limit as a policy writes it. */
const char *limit_memory_text(uint64_t m);

/* syscalls.c */
int syscall_lookup(const char *name, const struct loc *loc);
bool syscalls_add(struct variant *v, const struct atom *targets, int action, const void *block);
bool group_define(const struct stmt *s);
void groups_reset(void);
bool seccomp_build(struct variant *v);
bool constant_lookup(const char *name, uint64_t *out);
int errno_lookup(const char *name);
const char *errno_name(int e);
void groups_list(FILE *f);
bool group_expand_print(FILE *f, const char *name);

#endif
