/* network.h: the 'network' setting, lowered and resolved. */
#ifndef AJ_NETWORK_H
#define AJ_NETWORK_H

#include "variant.h"

struct lowering; /* changes.h: the handlers' side */

/* network LEVEL; (AJ_NETWORKS)  network allow "HOST[:PORT]"… [follow TOOL "HOST"…]; */
bool network_lower(struct lowering *lw, const struct stmt *s);
/* The variant's filter rules for its network: 'network blocked' refuses
 * every socket family but AF_UNIX. */
void network_rules(struct variant *v);

#endif
