/* egress/conn.h: the proxy's connections, shared by its two files: conn.c
 * (one connection's way, from its request to its relay) and proxy.c (the
 * listener and the parent's loop). */
#ifndef AJ_STUB_EGRESS_CONN_H
#define AJ_STUB_EGRESS_CONN_H

#include "egress/egress.h"

#define PX_CONNS    64
#define PX_HEAD     8192
#define PX_BUF      (PX_HEAD + 512) /* the proxy's own bytes: a rewritten head, a reply */
#define PX_DROP_MAX (1 << 20)       /* what a client may send past its request */

enum { PX_HEAD_READ, PX_CONNECTING, PX_UPSTREAM, PX_RELAY, PX_REPLY };

/* What goes one way: the proxy's own bytes first (a rewritten head, a
 * reply), then what the other side sent (relay.c). */
struct buf {
	size_t off, n;
	uint64_t own; /* bytes of d sent (--jail-log) */
	struct relay r;
	char d[PX_BUF];
};

struct conn {
	int c, u; /* the jail's end, the host's; -1 when closed */
	uint8_t state;
	bool c_eof, u_eof, u_shut, c_shut;
	bool connect;     /* CONNECT: the client waits for a 200 */
	bool transparent; /* names.c's: no HTTP at all, a refusal is a close */
	/* Plain HTTP: one request, whose body is left bytes long; what the
	 * client sends past it (a pipelined request) is never relayed. */
	bool bounded;
	uint64_t left;
	size_t dropped;     /* bytes past it, read and thrown away */
	size_t head_n;      /* bytes of head */
	struct px_addrs to; /* the target's addresses, the reachable ones */
	unsigned next_addr;
	uint64_t since_ms;          /* accepted at, reached_now_ms()'s clock */
	const struct upstream *via; /* NULL: directly (upstream.c) */
	char head[PX_HEAD];
	char target[AJ_HOST_MAX];
	struct buf up, down; /* to the host, to the jail */
};

extern struct conn conns[PX_CONNS];

void conn_nonblock(int fd);
struct conn *conn_new(int s);
void conn_close(struct conn *k);
void conn_head_read(struct conn *k);
void conn_step(struct conn *k, short cr, short ur);
void conn_advance(struct conn *k);
bool conn_pending(const struct buf *b);
bool conn_paused(void); /* out of descriptors: no accept until a connection ends */

#endif
