/* settings.h: the keys of a block and the changes a block lowers to. */
#ifndef AJ_SETTINGS_H
#define AJ_SETTINGS_H

#include "changes.h"

/* Lowers the statements of one block, once, into its changes, in order.
 * The structure keys (exec, mode, command, default) are skipped in a
 * policy's body (structure.c reads them) and refused anywhere else. */
bool settings_block_lower(const struct stmt *list, enum block_kind kind, change_list *out);

#endif
