/* mounts.h: the mount table: how a policy writes each op, a later mount
 * replacing an earlier one of the same path, the order and Landlock. */
#ifndef AJ_MOUNTS_H
#define AJ_MOUNTS_H

#include "variant.h"

struct lowering; /* changes.h: the handlers' side */

/* Is the op (enum aj_mount_op) a key of the language, and which suffixes
 * ('?', '+') follow its name there? */
bool mounts_written(int op);
const char *mounts_suffixes(int op);
/* The flag a key's suffix gives (AJ_MOUNT_OPTIONAL for '?'). */
int mounts_suffix_flag(char c);

/* The handler of every mount key: lw->arg is the op, lw->flags the
 * suffix's. */
bool mounts_lower(struct lowering *lw, const struct stmt *s);

void mounts_put(struct variant *v, const struct m_mount *m);
/* Parents before children; Landlock rights beneath each mount. */
void mounts_sort(struct variant *v);
void mounts_landlock(struct variant *v);

#endif
