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

struct change;
/* forward PORT|127.0.0.1:PORT|[::1]:PORT…; (aj_forward) */
bool network_forward_lower(struct lowering *lw, const struct stmt *s);
/* Replay: a forward replaces one of the same port; a 'network'
 * statement keeps the forwards of its own block only: a mode that fixes
 * the network (lockdown) forwards what it says itself, and a command
 * group's 'network host' reaches the host's ports without them. */
void network_forward_put(struct variant *v, const struct change *c, const void *block);
void network_forwards_keep_block(struct variant *v, const void *block);
/* A variant's forwards need a network namespace of its own. */
bool network_forwards_check(const struct variant *v);

/* publish.c: publish [ADDR:][HOSTPORT:]PORT…; (aj_publish), kept per
 * block as forwards are. */
bool publish_lower(struct lowering *lw, const struct stmt *s);
void publish_put(struct variant *v, const struct change *c, const void *block);
void publishes_keep_block(struct variant *v, const void *block);
bool publishes_check(const struct variant *v);

/* keys.c: secret NAME "HOST[:PORT]"…; (aj_key), kept per block as
 * forwards are; each host reachable through the jail's proxy. */
bool keys_lower(struct lowering *lw, const struct stmt *s);
void keys_put(struct variant *v, const struct change *c, const void *block);
void keys_keep_block(struct variant *v, const void *block);
bool keys_check(const struct variant *v);
/* Why a stricter mode's keys are wider than the weaker one's, or NULL. */
const char *keys_wider(const struct variant *s, const struct variant *w);
/* The header's ".keys = …, .n_keys = …," line, "" for none; array() is
 * the emitter's (follow.h). */
typedef const char *keys_array_fn(void *o, const char *type, const char *body, size_t n);
const char *keys_init(const struct variant *v, keys_array_fn *array, void *o);

#endif
