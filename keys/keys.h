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

#define KEYS_MAX       8    /* keys of one run */
#define KEYS_HOSTS     8    /* hosts of one key */
#define KEYS_NAME_MAX  64   /* a variable's name */
#define KEYS_VALUE_MAX 4096 /* a key's value */
#define KEYS_HOST_MAX  262  /* HOST:PORT */
/* "aijail-secret-" NAME "-" and 32 hex digits (128 random bits). */
#define KEYS_PH_RAND   32
#define KEYS_PH_MAX    (14 + KEYS_NAME_MAX + 1 + KEYS_PH_RAND + 1)
#define KEYS_HEAD_MAX  16384 /* a request's head, as the jail sent it */
#define KEYS_OUT_MAX   (KEYS_HEAD_MAX * 2 + 4 * KEYS_VALUE_MAX)

struct keys_bind {
	char name[KEYS_NAME_MAX];
	char value[KEYS_VALUE_MAX];
	char placeholder[KEYS_PH_MAX];
	unsigned n_hosts;
	char hosts[KEYS_HOSTS][KEYS_HOST_MAX]; /* HOST:PORT, as hosts_normal() writes it */
};

/* One request stream from the jail to one host: its heads rewritten, its
 * bodies relayed as they are, a malformed one refused whole. */
enum keys_req_state { KR_HEAD, KR_BODY, KR_CHUNK_SIZE, KR_CHUNK_DATA, KR_CHUNK_END, KR_TRAILER };

struct keys_req {
	const struct keys_bind *binds[KEYS_MAX]; /* the keys bound to this host */
	unsigned n_binds;
	enum keys_req_state state;
	uint64_t left;
	size_t n;                  /* bytes in head (a head, a chunk-size line, a trailer) */
	unsigned trailer_lines;
	char head[KEYS_HEAD_MAX];
};

/* Where rewritten bytes go (to the host); false: it could not take them. */
typedef bool (*keys_out_fn)(void *ctx, const char *b, size_t n);

/* request.c */
void keys_req_init(struct keys_req *q, const struct keys_bind *binds, unsigned n,
                   const char *target);
/* n bytes the jail sent: NULL, or why the connection must close (nothing
 * of the offending request has been passed to out). */
const char *keys_req_feed(struct keys_req *q, const char *in, size_t n, keys_out_fn out,
                          void *ctx);
/* The first placeholder in b[0..n), its key's name in name; false: none. */
bool keys_placeholder_in(const char *b, size_t n, char *name, size_t name_max);

#endif
