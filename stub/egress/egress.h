/* egress/egress.h: the interface of the room egress/: 'network allow': the proxy, its resolver, the
 * run's host list and the tools' configuration. Included by its files and by the rooms above it
 * (docs/layout.md). */
#ifndef AJ_STUB_EGRESS_H
#define AJ_STUB_EGRESS_H

#include <sys/socket.h>

#include "base/base.h"
#include "variant/variant.h"
#include "confine/confine.h"
#include "notify/notify.h"
#include "common/hosts.h"

/* proxy.c: 'network allow' (hosts.c reads the hosts). */
void egress_allow_host(const char *value, const char *opt);
const struct aj_variant *egress_apply(const struct aj_variant *v);
void egress_hosts(const struct aj_variant *v, char *const *envp);
void egress_env(const struct aj_variant *v, char **envp, size_t max);
void egress_explain(void);
void proxy_listen(int parent_sock);
const struct ev_source *proxy_start(int fd); /* NULL: no proxy */
void proxy_end(void);
bool conn_room(void);                       /* a connection slot is free (conn.c) */
void conn_pause(int err);                   /* an accept failed with err */
void conn_adopt(int s, const char *target); /* names.c's, as a CONNECT to target */

/* names.c: the transparent relay: the jail's lookups answered with its
 * own loopback addresses, connections there relayed by the proxy. */
void names_listen(int parent_sock); /* pid 1, after proxy_listen() */
const struct ev_source *names_start(int fd);

/* forward.c: --jail-forward, host loopback ports relayed by the parent. */
void forward_add(const char *value, const char *opt);
const struct aj_variant *forward_apply(const struct aj_variant *v);
void forward_no_namespace(void);
unsigned forward_count(void);
void forward_landlock(int ruleset);
void forward_explain(void);
void forward_listen(int parent_sock);
const struct ev_source *forward_start(int fd); /* NULL: no forward */
void forward_end(void);

/* publish.c: --jail-publish and 'publish', the jail's loopback ports on
 * the host (forward.c relays them). */
void publish_add(const char *value, const char *opt);
/* A port written in decimal, 1 to 65535; 0 for anything else (forward.c
 * reads its ports with it too). */
unsigned publish_port_number(const char *s);
void publish_apply(const struct aj_variant *v); /* from forward_apply() */
void publish_no_namespace(void);
unsigned publish_count(void);
void publish_landlock(int ruleset);
void publish_explain(void);
void publish_bind(
    bool pair); /* the caller: the host's listeners (125 when taken); pair: names.c's sockets */
int publish_keep(void);   /* pid 1's end of its socket pair to the parent, or -1 */
void publish_arm(void);   /* pid 1, before its filter */
void publish_serve(void); /* pid 1, on SIGIO */
void publish_parent(void);
int publish_listener(unsigned i);
uint16_t publish_port(unsigned i);
int publish_socket(void); /* a socket of the jail's network, from pid 1; -1: none */
void publish_log(unsigned i, uint64_t up, uint64_t down, uint64_t since_ms);

/* secret.c: --jail-secret, keys the jail uses and never holds
 * (docs/keys.md). */
void secret_add(const char *value, const char *opt);
unsigned secret_count(void);
/* The followed tool's setting, read once; the host that replaces its
 * defaults and where it was read (*from), or NULL. */
void egress_follow(const struct aj_variant *v, char *const *envp);
const char *egress_followed_host(const char **from);
void secret_spawn(const struct aj_variant *v, bool explain);
void secret_env(const struct aj_variant *v, char **envp, size_t max);
bool secret_bound(const char *target);
bool secret_handoff(int c, int u, const char *target, bool answer);
const char *secret_in_plain(const char *head, size_t n);
const char *secret_ca_pem(void);
const struct ev_source *secret_source(void); /* NULL: no key */
void secret_explain(void);

/* trust.c: the run's authority trusted in the jail, only with a key. */
void trust_env(char **envp, size_t max);

#define PX_ADDRS 8

/* A target's addresses, in the order they are tried. */
struct px_addrs {
	unsigned n;
	struct sockaddr_storage a[PX_ADDRS];
	socklen_t len[PX_ADDRS];
};

/* resolver.c: host's addresses at port, a literal's one or the name's
 * (a nameserver's answer kept for its TTL); resolver_forget() drops what
 * is kept. */
void resolver_lookup(struct px_addrs *out, const char *host, unsigned port, bool literal);
void resolver_forget(void);
/* The host's own interface addresses, read at the proxy's start (in the
 * host's network namespace; false when they cannot be read), and again before each connection's
 * check, so that an address the host gains during the run counts; resolver_own(): sa is one of
 * them. */
bool resolver_own_read(void);
bool resolver_own(const struct sockaddr *sa);

/* relay.c: one way of a relayed connection, through a pipe while bytes
 * are in flight (splice). */
struct relay {
	int p[2];       /* -1: no pipe (nothing in flight) */
	size_t in;      /* bytes in the pipe */
	uint64_t piped; /* bytes moved to the other side (--jail-log) */
	bool filled;    /* bytes went into the pipe since it was taken */
};

void relay_init(struct relay *r);
/* from to `to` until one side waits; at most *left bytes when left is
 * given; readable: the poll saw from readable (no pipe is taken before).
 * false: the connection is over (an error, or no pipe to be had). */
bool relay_move(int from, int to, struct relay *r, bool *eof, uint64_t *left, bool readable);
void relay_release(struct relay *r); /* the pipe back, when the way is closed */
void relay_end(void);

/* tell.c: a refusal of the jail's connection to target, on stderr once a
 * host and in the log; hint: 0 the option that allows it, 1 its address
 * listed, 2 none (an upstream's refusal). */
void tell_refused(const char *kind, const char *target, const char *why, int hint);

/* upstream.c: a corporate proxy upstream (the caller's HTTPS_PROXY,
 * HTTP_PROXY, NO_PROXY), through which the parent dials out for the jail.
 * upstream_read(): from the caller's environment (125 naming a variable
 * whose URL is bad, never its value); upstream_for(): the upstream of
 * target (normal HOST:PORT; plain: a plain-HTTP request), NULL: directly;
 * upstream_addrs(): its addresses, to connect to; upstream_send(): the
 * CONNECT for target, once connected; upstream_answer(): NULL when the
 * tunnel is up (its head read into buf, *got bytes so far, and no byte
 * past it), "" to wait for more, else why it failed (naming the upstream,
 * never its credentials; *denied: it answered 4xx). */
struct upstream;
void upstream_read(char *const *envp);
const struct upstream *upstream_for(const char *target, bool plain);
void upstream_addrs(const struct upstream *u, struct px_addrs *out);
const char *upstream_name(const struct upstream *u); /* HOST:PORT */
const char *upstream_unreachable(const struct upstream *u);
bool upstream_send(int fd, const struct upstream *u, const char *target);
const char *upstream_answer(int fd, const struct upstream *u, char *buf, size_t size, size_t *got,
                            bool *denied);
void upstream_explain(void);

/* egress.c: whether the run's list names target ("HOST:PORT") (any
 * target under 'network public'); egress_public(): the run is 'public'. */
bool egress_allowed(const char *target);
bool egress_public(void);
/* The refusal's line on stderr (once a host) and its count and log record
 * (kind "connection", "request", "lookup"). */
/* The ports a name looked up inside the jail is relayed on (names.c). */
unsigned egress_ports(const char *name, uint16_t *ports, unsigned max);
/* 'network public': NULL when every address of to is public and none is
 * the host's own (one refused refuses them all: a client may fall back to
 * any), else "it resolves to ADDR, WHY". */
const char *egress_public_refused(const struct px_addrs *to);

/* httphead.c: one header line of a plain-HTTP request, l to its '\n' at
 * le: relayed, dropped (the proxy's own, Connection), refused; a
 * Content-Length sets *len (*has_len: one was seen). */
enum http_verdict { HH_KEEP, HH_DROP, HH_BAD, HH_BODY_UNBOUNDED };
enum http_verdict httphead_line(const char *l, const char *le, uint64_t *len, bool *has_len);

#endif
