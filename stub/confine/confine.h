/* confine/confine.h: the interface of the room confine/: Landlock: its ABI, the rights it handles,
 * the ruleset. Included by its files and by the rooms above it (docs/layout.md). */
#ifndef AJ_STUB_CONFINE_H
#define AJ_STUB_CONFINE_H

#include "base/base.h"
#include "variant/variant.h"

/* landlock.c: landlock_create() is -1 where Landlock is not enforced;
 * every rule goes through landlock_rule() (isdir: 1, 0, or -1 for not
 * known). */
#define AJ_LL_ABI_KNOWN 9 /* the newest ABI landlock.c's table knows */
int landlock_abi(void);
uint64_t landlock_fs_handled(int abi, unsigned network);
uint64_t landlock_bind_extra(uint64_t handled, unsigned mode);
uint64_t landlock_socket_right(int fd);
bool landlock_net_blocked(const struct aj_variant *v);
bool landlock_net_private(const struct aj_variant *v); /* a network namespace of its own */
int landlock_create(const struct aj_variant *v);
void landlock_rule(int ruleset, int fd, uint64_t access, int isdir, const char *path);
void landlock_enforce(int ruleset);
void landlock_port(int ruleset, unsigned port, bool bind);

/* landlock.c too: one rule as --jail-explain prints it (explain.c, and
 * the fallback, which prints its rules with the code that makes them). */
void landlock_explain_rule(const char *path, unsigned var, bool optional, uint64_t access);

#endif
