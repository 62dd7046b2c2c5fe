/* proxy.h: what proxy.c and its resolver share (sys.h has the stub's
 * side of 'network allow'). */
#ifndef AJ_PROXY_H
#define AJ_PROXY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#define PX_ADDRS 8

/* A target's addresses, in the order they are tried. */
struct px_addrs {
	unsigned n;
	struct sockaddr_storage a[PX_ADDRS];
	socklen_t len[PX_ADDRS];
};

/* resolver.c: host's addresses at port, a literal's one or the name's. */
void px_resolve(struct px_addrs *out, const char *host, unsigned port, bool literal);

/* egress.c: whether the run's list names target ("HOST:PORT"). */
bool proxy_allowed(const char *target);

/* httphead.c: one header line of a plain-HTTP request, l to its '\n' at
 * le: relayed, dropped (the proxy's own, Connection), refused; a
 * Content-Length sets *len (*has_len: one was seen). */
enum http_verdict { HH_KEEP, HH_DROP, HH_BAD, HH_BODY_UNBOUNDED };
enum http_verdict http_header(const char *l, const char *le, uint64_t *len, bool *has_len);

#endif
