/* contract.c: the contract's own tables (include/aj_table.h: the mount
 * ops' names and kinds, the toggles' names), defined here for the
 * compiler as stub/base/contract.c defines them for the stub. */
#define AJ_TABLE_DEFINE
#include "aj_table.h"
