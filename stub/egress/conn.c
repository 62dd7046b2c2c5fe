/* conn.c: one connection of the jail's proxy (proxy.c), from its
 * request to its relay: the request read and checked against the list,
 * the name resolved and its addresses checked (the public ones, under
 * 'network public'), the connection made directly or through an upstream
 * (upstream.c), the reply or the 200, then the bytes both ways
 * (relay.c); and a connection names.c accepted, taken as a CONNECT
 * (conn_adopt()).  proxy.c holds the listener and the loop. */
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

#include "egress/conn.h"

struct conn conns[PX_CONNS];
/* Out of descriptors, the listener stays readable: it is left alone
 * until a connection ends, rather than polled in a loop. */
static bool accept_paused;

void conn_nonblock(int fd)
{
	long fl = syscall(SYS_fcntl, fd, F_GETFL);

	if (fl >= 0)
		syscall(SYS_fcntl, fd, F_SETFL, fl | O_NONBLOCK);
}

void conn_close(struct conn *k)
{
	/* A connection that reached its host: what went each way, for the
	 * log (the 200 of a CONNECT is the proxy's, not the host's). */
	if (k->state == PX_RELAY && k->c >= 0)
		reached_conn(k->target, (struct sockaddr *)&k->to.a[k->next_addr - 1],
		             k->up.own + k->up.r.piped, k->down.r.piped, k->since_ms);
	accept_paused = false;
	relay_release(&k->up.r);
	relay_release(&k->down.r);
	if (k->c >= 0)
		close(k->c);
	if (k->u >= 0)
		close(k->u);
	k->c = k->u = -1;
}

static void put(struct buf *b, const char *s, size_t n)
{
	if (n > PX_BUF - b->off - b->n)
		n = PX_BUF - b->off - b->n;
	memcpy(b->d + b->off + b->n, s, n);
	b->n += n;
}

static void puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* A reply of the proxy's own, then the connection ends. */
static void reply(struct conn *k, const char *status, const char *text)
{
	char len[AJ_DEC_MAX + 1];

	len[out_fmt_u(len, strlen(text) + 1)] = '\0';
	k->down.off = k->down.n = 0;
	puts_(&k->down, "HTTP/1.1 ");
	puts_(&k->down, status);
	puts_(&k->down, "\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: ");
	puts_(&k->down, len);
	puts_(&k->down, "\r\n\r\n");
	puts_(&k->down, text);
	puts_(&k->down, "\n");
	if (k->transparent)
		k->down.n = 0; /* not an HTTP client: the close says it */
	if (k->u >= 0)
		close(k->u);
	k->u = -1;
	k->state = PX_REPLY;
}

static void try_connect(struct conn *k)
{
	/* Through an upstream, its addresses replace the target's (those were
	 * for the checks only: the upstream resolves the name again). */
	if (k->via && !k->next_addr)
		upstream_addrs(k->via, &k->to);
	while (k->next_addr < k->to.n) {
		unsigned i = k->next_addr++;
		int s = (int)syscall(SYS_socket, k->to.a[i].ss_family,
		                     SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

		if (s < 0)
			continue;
		if (!syscall(SYS_connect, s, &k->to.a[i], k->to.len[i]) || errno == EINPROGRESS) {
			k->u = s;
			k->state = PX_CONNECTING;
			return;
		}
		close(s);
	}
	if (k->via)
		tell_refused(k->connect ? "connection" : "request", k->target,
		             upstream_unreachable(k->via), 2);
	reply(k, "502 Bad Gateway", "aijail: the host did not answer");
}

/* The addresses of k->target the list lets it reach. */
static void resolve(struct conn *k)
{
	char host[AJ_HOST_MAX], *port;
	const char *why = NULL;
	bool literal = hosts_literal(k->target);
	unsigned pn = 0, kept = 0;

	memcpy(host, k->target, strlen(k->target) + 1);
	port = strrchr(host, ':');
	*port++ = '\0';
	for (const char *d = port; *d; d++)
		pn = pn * 10 + (unsigned)(*d - '0');
	if (host[0] == '[') {
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = '\0';
	}
	k->next_addr = 0;
	k->via = upstream_for(k->target, !k->connect);
	resolver_lookup(&k->to, host, pn, literal);
	if (!k->to.n && !k->via) {
		reply(k, "502 Bad Gateway", "aijail: the host's name does not resolve");
		return;
	}
	/* 'network public': every address the name gave, or the literal,
	 * must be public and none of the host's own; one that is not refuses
	 * the name whole, as a client may fall back to any of them.  These
	 * are the addresses connected to (no second lookup): a rebinding
	 * nameserver changes only the next lookup, which is checked again. */
	if (egress_public()) {
		why = egress_public_refused(&k->to);
		if (why) {
			tell_refused(k->connect ? "connection" : "request", k->target, why, 0);
			reply(k, "403 Forbidden",
			      "aijail: the host resolves to an address the jail may not reach");
			return;
		}
		try_connect(k);
		return;
	}
	/* A name may lead only to public addresses; a literal is what the
	 * list says. */
	for (unsigned i = 0; i < k->to.n; i++) {
		const char *bad =
		    literal ? NULL : hosts_addr_refused((struct sockaddr *)&k->to.a[i]);

		if (bad) {
			why = bad;
			continue;
		}
		if (kept != i) {
			k->to.a[kept] = k->to.a[i];
			k->to.len[kept] = k->to.len[i];
		}
		kept++;
	}
	k->to.n = kept;
	/* Behind an upstream, which resolves the name again, one refused
	 * address refuses it whole. */
	if (why && (!kept || k->via)) {
		static char msg[160] = "it resolves to ";
		size_t l = strlen(why);

		memcpy(msg + 15, why, l + 1);
		tell_refused(k->connect ? "connection" : "request", k->target, msg, 1);
		reply(k, "403 Forbidden",
		      "aijail: the host resolves to an address the jail may not reach");
		return;
	}
	try_connect(k);
}

/* The request's head is complete (end: past its blank line).  CONNECT
 * HOST:PORT, or METHOD http://HOST[:PORT]/PATH, rewritten to the origin
 * form with the proxy's own headers dropped and one request only. */
static void request(struct conn *k, size_t end)
{
	char *h = k->head, *sp1, *sp2, *eol;
	const char *key;
	size_t at;

	eol = memchr(h, '\r', end);
	sp1 = eol ? memchr(h, ' ', (size_t)(eol - h)) : NULL;
	sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1)) : NULL;
	if (!sp2) {
		reply(k, "400 Bad Request", "aijail: not an HTTP proxy request");
		return;
	}
	*sp2 = '\0';
	k->connect = (size_t)(sp1 - h) == 7 && !memcmp(h, "CONNECT", 7);
	if (k->connect) {
		if (hosts_normal(sp1 + 1, false, k->target, sizeof(k->target), &at)) {
			reply(k, "400 Bad Request", "aijail: CONNECT names HOST:PORT");
			return;
		}
	} else {
		char *path = sp1 + 1;

		if (strncmp(path, "http://", 7)) {
			reply(k, "400 Bad Request",
			      "aijail: the proxy takes CONNECT, or http:// URIs");
			return;
		}
		path += 7;
		while (*path && *path != '/' && *path != '?')
			path++;
		if (!hosts_url_host(sp1 + 1, (size_t)(path - sp1 - 1), k->target,
		                    sizeof(k->target))) {
			reply(k, "400 Bad Request", "aijail: a bad host in the URI");
			return;
		}
		/* METHOD /PATH VERSION, then the headers but the proxy's own
		 * and Connection: one request per connection, so its body's
		 * length must be known. */
		bool has_len = false;

		k->bounded = true;
		put(&k->up, h, (size_t)(sp1 + 1 - h));
		if (*path != '/')
			puts_(&k->up, "/");
		puts_(&k->up, path);
		puts_(&k->up, " ");
		put(&k->up, sp2 + 1, (size_t)(eol + 2 - sp2 - 1));
		for (char *l = eol + 2; l < h + end - 2;) {
			char *le = memchr(l, '\n', (size_t)(h + end - l));
			size_t ll;

			if (!le)
				break;
			ll = (size_t)(le + 1 - l);
			switch (httphead_line(l, le, &k->left, &has_len)) {
			case HH_KEEP:
				put(&k->up, l, ll);
				break;
			case HH_DROP:
				break;
			case HH_BAD:
				reply(k, "400 Bad Request",
				      "aijail: a malformed header line, or a bad Content-Length");
				return;
			case HH_BODY_UNBOUNDED:
				reply(k, "411 Length Required",
				      "aijail: the proxy relays a plain-HTTP body of a declared "
				      "Content-Length only (https goes through CONNECT)");
				return;
			}
			l = le + 1;
		}
		puts_(&k->up, "Connection: close\r\n\r\n");
	}
	/* Bytes the client sent after the head: for plain HTTP, its body
	 * and nothing past it. */
	if (k->bounded) {
		size_t n = k->head_n - end;

		if (n > k->left)
			n = (size_t)k->left;
		put(&k->up, h + end, n);
		k->left -= n;
	} else {
		put(&k->up, h + end, k->head_n - end);
	}
	if (!k->connect && (key = secret_in_plain(h, end))) {
		tell_refused("request", k->target, key, 2);
		reply(k, "403 Forbidden",
		      "aijail: a key's placeholder goes only over https to its hosts");
		return;
	}
	if (!egress_allowed(k->target)) {
		tell_refused(k->connect ? "connection" : "request", k->target, "not in the list",
		             0);
		reply(k, "403 Forbidden", "aijail: this host is not in the jail's network list");
		return;
	}
	resolve(k);
}

void conn_head_read(struct conn *k)
{
	ssize_t r = read(k->c, k->head + k->head_n, sizeof(k->head) - k->head_n);
	char *e = NULL;

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (r <= 0) {
		conn_close(k);
		return;
	}
	/* The blank line may straddle two reads: look from 3 bytes back. */
	for (size_t i = k->head_n > 3 ? k->head_n - 3 : 0; !e && i + 4 <= k->head_n + (size_t)r;
	     i++)
		if (!memcmp(k->head + i, "\r\n\r\n", 4))
			e = k->head + i;
	k->head_n += (size_t)r;
	if (e)
		request(k, (size_t)(e + 4 - k->head));
	else if (k->head_n == sizeof(k->head))
		reply(k, "431 Request Header Fields Too Large",
		      "aijail: the request's head is too long");
}

bool conn_pending(const struct buf *b)
{
	return b->n || b->r.in;
}

/* Move what one side sent to the other, the proxy's own bytes first; no
 * more than *left bytes of it when left is given; readable: the poll saw
 * from readable. */
static bool pump(int from, int to, struct buf *b, bool *eof, uint64_t *left, bool readable)
{
	while (b->n) {
		ssize_t w = send(to, b->d + b->off, b->n, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w < 0 && (errno == EAGAIN || errno == EINTR))
			return true;
		if (w <= 0)
			return false;
		b->off += (size_t)w;
		b->n -= (size_t)w;
		b->own += (uint64_t)w;
	}
	return relay_move(from, to, &b->r, eof, left, readable);
}

/* Past its one request the client is read and nothing relayed; a client
 * that keeps sending is closed on. */
static bool discard(struct conn *k)
{
	char junk[4096];
	ssize_t r = read(k->c, junk, sizeof(junk));

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return true;
	if (r <= 0) {
		k->c_eof = true;
		return true;
	}
	k->dropped += (size_t)r;
	return k->dropped <= PX_DROP_MAX;
}

/* why: NULL, the way is open; else the upstream's failure (denied: 4xx) */
static void answered(struct conn *k, const char *why, bool denied)
{
	if (why) {
		tell_refused(k->connect ? "connection" : "request", k->target, why, 2);
		reply(k, denied ? "403 Forbidden" : "502 Bad Gateway",
		      denied ? "aijail: the network's proxy refused this host"
		             : "aijail: the host did not answer");
		return;
	}
	/* A bound host, reached (directly, or through the upstream's
	 * tunnel): aijail-keys takes both ends (secret.c), and answers the
	 * 200 where the client asked CONNECT (the relay's asked nothing). */
	if (k->connect && secret_bound(k->target)) {
		if (k->up.n || !secret_handoff(k->c, k->u, k->target, !k->transparent))
			tell_refused("connection", k->target,
			             "its key's process did not take the connection", 2);
		else
			reached_conn(k->target, (struct sockaddr *)&k->to.a[k->next_addr - 1], 0, 0,
			             k->since_ms);
		conn_close(k);
		return;
	}
	/* No pipe yet: relay.c takes one when bytes come. */
	k->state = PX_RELAY;
	if (k->connect && !k->transparent)
		puts_(&k->down, "HTTP/1.1 200 Connection established\r\n\r\n");
}

static void upstream_step(struct conn *k)
{
	bool denied = false;
	const char *why =
	    upstream_answer(k->u, k->via, k->head, sizeof(k->head), &k->head_n, &denied);

	if (!why || *why)
		answered(k, why, denied);
}

static void connected(struct conn *k)
{
	int err = 0;
	socklen_t l = sizeof(err);

	if (getsockopt(k->u, SOL_SOCKET, SO_ERROR, &err, &l) || err) {
		close(k->u);
		k->u = -1;
		try_connect(k);
		return;
	}
	k->head_n = 0; /* the head is in k->up: head takes the upstream's answer */
	k->state = k->via ? PX_UPSTREAM : PX_RELAY;
	if (k->via && !upstream_send(k->u, k->via, k->target))
		answered(k, upstream_unreachable(k->via), false);
	else if (!k->via)
		answered(k, NULL, false);
}

static bool client_done(const struct conn *k)
{
	return k->bounded && !k->left && !conn_pending(&k->up);
}

void conn_step(struct conn *k, short cr, short ur)
{
	switch (k->state) {
	case PX_HEAD_READ:
		if (cr) {
			conn_head_read(k);
			if (k->c >= 0)
				conn_advance(k);
		}
		return;
	case PX_UPSTREAM:
	case PX_CONNECTING:
		if (ur && k->state == PX_CONNECTING)
			connected(k);
		else if (ur)
			upstream_step(k);
		if (k->state == PX_REPLY)
			goto replying;
		if (k->state != PX_RELAY)
			return;
		/* the 200, and what the client sent already */
		__attribute__((fallthrough));
	case PX_RELAY:
		if (!pump(k->c, k->u, &k->up, &k->c_eof, k->bounded ? &k->left : NULL,
		          cr & (POLLIN | POLLHUP | POLLERR)) ||
		    !pump(k->u, k->c, &k->down, &k->u_eof, NULL,
		          ur & (POLLIN | POLLHUP | POLLERR))) {
			conn_close(k);
			return;
		}
		if (client_done(k) && (cr & (POLLIN | POLLHUP | POLLERR)) && !discard(k)) {
			conn_close(k);
			return;
		}
		if (k->c_eof && !conn_pending(&k->up) && !k->u_shut)
			shutdown(k->u, SHUT_WR), k->u_shut = true;
		if (k->u_eof && !conn_pending(&k->down) && !k->c_shut)
			shutdown(k->c, SHUT_WR), k->c_shut = true;
		/* Plain HTTP: the response has been relayed (the host closed,
		 * as Connection: close asks); the client's own close is
		 * waited for, so that what it sent past its request does not
		 * turn the close into a reset that may cost it the response. */
		if (k->c_shut && (k->bounded ? k->c_eof : k->u_shut))
			conn_close(k);
		return;
	case PX_REPLY:
	replying : {
		bool eof = true;

		if (!pump(k->c, k->c, &k->down, &eof, NULL, false) || !k->down.n)
			conn_close(k);
		return;
	}
	}
}

/* The head has been read as far as it came: what can go on at once does,
 * rather than after another turn of the loop.  A connect() on loopback
 * (and to a near host) is often complete when it returns EINPROGRESS: a
 * poll that does not wait says so, and the 200 goes out now. */
void conn_advance(struct conn *k)
{
	if (k->state == PX_CONNECTING) {
		struct pollfd p = {.fd = k->u, .events = POLLOUT};

		if (poll(&p, 1, 0) == 1)
			conn_step(k, 0, p.revents);
	} else if (k->state == PX_REPLY) {
		conn_step(k, POLLOUT, 0);
	}
}

struct conn *conn_new(int s)
{
	for (unsigned i = 0; i < PX_CONNS; i++) {
		struct conn *k = &conns[i];

		if (k->c >= 0)
			continue;
		memset(k, 0, offsetof(struct conn, head));
		k->up.off = k->up.n = k->down.off = k->down.n = 0;
		k->up.own = k->down.own = 0;
		relay_init(&k->up.r);
		relay_init(&k->down.r);
		k->since_ms = reached_now_ms();
		k->c = s;
		k->u = -1;
		return k;
	}
	return NULL;
}

bool conn_paused(void)
{
	return accept_paused;
}

bool conn_room(void)
{
	if (accept_paused)
		return false;
	for (unsigned i = 0; i < PX_CONNS; i++)
		if (conns[i].c < 0)
			return true;
	return false;
}

/* An accept failed: out of descriptors, no listener is polled until a
 * connection ends (conn_close()), rather than in a loop. */
void conn_pause(int err)
{
	accept_paused = err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM;
}

/* A connection names.c accepted on a name's address: as a CONNECT to
 * target, the same checks and lines, without the HTTP. */
void conn_adopt(int s, const char *target)
{
	struct conn *k = conn_new(s);

	if (!k || strlen(target) >= sizeof(k->target)) {
		close(s);
		if (k)
			k->c = -1;
		return;
	}
	memcpy(k->target, target, strlen(target) + 1);
	k->connect = k->transparent = true;
	if (!egress_allowed(k->target)) {
		tell_refused("connection", k->target, "not in the list", 0);
		reply(k, "403 Forbidden", "");
	} else {
		resolve(k);
	}
	conn_advance(k);
}
