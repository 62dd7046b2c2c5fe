/* contract.c: the contract's own tables (aj_table.h: the mount ops' names
 * and kinds, the toggles' names), defined once for every room of the stub,
 * as compiler/contract.c defines them for the compiler. */
#define AJ_TABLE_DEFINE
#include "base/base.h"
