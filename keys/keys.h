/* keys/keys.h: aijail-keys, the process that adds a bound key's real value
 * to the requests a jail sends to the key's hosts (docs/keys.md).  The
 * stubs carry none of it: the parent execs it only when --jail-secret binds
 * a key.  The request parser (request.c) is pure and fuzzed; main.c speaks
 * TLS on both sides with Mbed TLS and is confined by filter.c. */
#ifndef AJ_KEYS_H
#define AJ_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/keys.h"

/* One request stream from the jail to one host: its heads rewritten, its
 * bodies relayed as they are, a malformed one refused whole. */
enum keys_req_state { KR_HEAD, KR_BODY, KR_CHUNK_SIZE, KR_CHUNK_DATA, KR_CHUNK_END, KR_TRAILER };

struct keys_req {
	const struct keys_bind *binds[KEYS_MAX]; /* the keys bound to this host */
	unsigned n_binds;
	enum keys_req_state state;
	uint64_t left;
	size_t n; /* bytes in head (a head, a chunk-size line, a trailer) */
	unsigned trailer_lines;
	char head[KEYS_HEAD_MAX];
	/* A rewritten head; a chunked one is held until its first chunk's
	 * size line is read, so that a body that starts malformed sends
	 * nothing at all. */
	size_t out_n;
	bool out_full, held;
	char out[KEYS_OUT_MAX];
};

/* Where rewritten bytes go (to the host); false: it could not take them. */
typedef bool (*keys_out_fn)(void *ctx, const char *b, size_t n);

/* request.c */
void keys_req_init(struct keys_req *q, const struct keys_bind *binds, unsigned n,
                   const char *target);
/* n bytes the jail sent: NULL, or why the connection must close (nothing
 * of the offending request has been passed to out). */
const char *keys_req_feed(struct keys_req *q, const char *in, size_t n, keys_out_fn out, void *ctx);
/* The first placeholder in b[0..n), its key's name in name; false: none. */
bool keys_placeholder_in(const char *b, size_t n, char *name, size_t name_max);

#endif
