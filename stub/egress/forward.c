/* forward.c: 'forward [HOST:]PORT;' and --jail-forward=[HOST:]PORT: a
 * port of the host's loopback, reachable from the jail at its own
 * 127.0.0.1:PORT and [::1]:PORT.
 *
 * As for the proxy, pid 1 listens inside the jail's network namespace and
 * hands the listeners to the parent (WIRE_FORWARD), which stays in the
 * host's: the parent accepts, connects to the host's 127.0.0.1:PORT (or
 * [::1]:PORT) and relays both ways, and --jail-log gets one 'allowed' line
 * per connection (notify/reached.c).  No process is added and the jail gets
 * no route anywhere: only these ports answer on its loopback, and with
 * Landlock handling TCP ('network none') only these ports may be
 * connected to.  A forward needs a network namespace of the jail's own:
 * with the host's network (--jail-net, 'network host', 'network blocked',
 * the fallback) it is refused, as in a mode that fixes the network.
 * publish.c is the other way, through the same relay. */
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>

#include "egress/egress.h"

#define FW_MAX   AJ_FORWARDS_MAX /* the policy's and the options', together */
#define FW_CONNS 64              /* connections relayed at once, all forwards together */

struct forward {
	uint16_t port;
	bool v6;         /* the host's [::1] rather than 127.0.0.1 */
	const char *opt; /* the option that asked, NULL: the policy */
};

static struct forward fw[FW_MAX];
static unsigned n_fw, n_opt; /* all, and those of the options */

static int listener[FW_MAX]; /* the parent's */

/* ---- the caller: the options -------------------------------------------- */

void forward_add(const char *value, const char *opt)
{
	struct forward f = {.opt = opt};
	const char *port = value;
	unsigned p;

	if (n_fw == FW_MAX)
		die_usage("too many --jail-forward options (at most 8)", opt);
	if (!strncmp(value, "127.0.0.1:", 10)) {
		port = value + 10;
	} else if (!strncmp(value, "[::1]:", 6)) {
		port = value + 6, f.v6 = true;
	} else if (!strncmp(value, "::1:", 4)) {
		port = value + 4, f.v6 = true;
	} else if (strchr(value, ':')) {
		die_usage("a forward's host is 127.0.0.1 or ::1 only", value);
	}
	p = publish_port_number(port);
	if (!p)
		die_usage("not a port (1 to 65535)", value);
	for (unsigned i = 0; i < n_fw; i++)
		if (fw[i].port == p)
			die_usage("the jail's port is forwarded twice", value);
	f.port = (uint16_t)p;
	fw[n_fw++] = f;
	n_opt = n_fw;
}

/* The policy's forwards first, then the options' that add a port: an
 * option that names a port the policy forwards already to the same host
 * adds nothing, one that names another host is refused. */
static void merge_policy(const struct aj_variant *v)
{
	struct forward opts[FW_MAX];
	unsigned n = n_fw;

	memcpy(opts, fw, sizeof(opts));
	n_fw = 0;
	for (unsigned i = 0; i < v->n_forwards && i < FW_MAX; i++)
		fw[n_fw++] = (struct forward){v->forwards[i].port, v->forwards[i].v6, NULL};
	for (unsigned i = 0; i < n; i++) {
		unsigned j = 0;

		while (j < v->n_forwards && fw[j].port != opts[i].port)
			j++;
		if (j < v->n_forwards) {
			if (fw[j].v6 != opts[i].v6)
				die_usage(
				    "the policy forwards this port to the host's other loopback "
				    "address",
				    opts[i].opt);
			continue;
		}
		if (n_fw == FW_MAX)
			die_usage("too many forwards with the policy's (at most 8)", opts[i].opt);
		fw[n_fw++] = opts[i];
	}
	n_opt = 0;
	for (unsigned i = 0; i < n_fw; i++)
		n_opt += fw[i].opt != NULL;
}

static const char *first_opt(void)
{
	for (unsigned i = 0; i < n_fw; i++)
		if (fw[i].opt)
			return fw[i].opt;
	return "forward";
}

/* After the mode, --jail-net and --jail-allow-host have made the network:
 * a forward needs the jail's own namespace, and a mode that fixed the
 * network is not widened.  As --jail-allow-host narrows the policy's
 * 'network host' to the hosts it names, a forward narrows it (and
 * 'network public', as wide a default) to the loopback with the forwarded
 * ports only ('network none'); --jail-net
 * asks for the host's network and is refused alongside. */
const struct aj_variant *forward_apply(const struct aj_variant *v)
{
	static struct aj_variant narrowed;

	/* The policy's forwards (the compiler keeps them to variants with a
	 * namespace of their own) are moot once --jail-net gives the host's
	 * network, whose ports the jail reaches without them. */
	if (v->n_forwards && v->network != AJ_NET_HOST)
		merge_policy(v);
	publish_apply(v);
	if (!n_opt)
		return v;
	/* A mode that fixed the network forwards what its policy block
	 * says, and nothing a run adds. */
	if (v->flags & AJ_VARIANT_NET_FIXED)
		diep("use", first_opt(), 0,
		     "this mode fixes the network: no host port is forwarded into it");
	if (v->network == AJ_NET_HOST && extra_net_option())
		diep("use", first_opt(), 0,
		     "--jail-net gives the host's network, whose ports need no forward");
	if (v->network == AJ_NET_BLOCKED)
		diep("use", first_opt(), 0,
		     "'network blocked' keeps the host's network namespace, where no forward "
		     "can listen; use 'network none' or 'network allow'");
	if (v->network != AJ_NET_HOST && v->network != AJ_NET_PUBLIC)
		return v;
	narrowed = *v;
	narrowed.network = AJ_NET_NONE;
	narrowed.n_hosts = narrowed.n_followed = 0;
	narrowed.follow = NULL;
	return &narrowed;
}

/* The fallback has no network namespace to listen in: a forward the
 * policy or the run asks for cannot be set up. */
void forward_no_namespace(void)
{
	publish_no_namespace();
	if (n_fw)
		diep("use", fw[0].opt ? fw[0].opt : "the policy's 'forward'", 0,
		     "the jail runs without namespaces here (the fallback): a forward needs "
		     "a network namespace");
}

/* Forwards and published ports: either needs the jail's loopback up. */
unsigned forward_count(void)
{
	return n_fw + publish_count();
}

/* pid 1, before Landlock: with TCP handled ('network none'), the jail may
 * connect to its forwarded ports, and to no other. */
void forward_landlock(int ruleset)
{
	for (unsigned i = 0; i < n_fw; i++)
		landlock_port(ruleset, fw[i].port, false);
	publish_landlock(ruleset);
}

/* Inside --jail-explain's "network" object. */
void forward_explain(void)
{
	rp_t(n_fw ? "\n  forwarded host ports (the jail's 127.0.0.1:PORT and [::1]:PORT, relayed "
	            "by the stub's parent):"
	          : "");
	rp_open("forwards", '[');
	for (unsigned i = 0; i < n_fw; i++) {
		rp_open(NULL, '{');
		rp_t(" ");
		rp_u("port", fw[i].port);
		rp_t(" -> ");
		rp_str("host", fw[i].v6 ? "[::1]" : "127.0.0.1");
		rp_t(":");
		rp_u("host_port", fw[i].port);
		rp_t(" (");
		rp_str("origin", fw[i].opt ? "option" : "policy");
		if (fw[i].opt) {
			rp_t(" ");
			rp_str("option", fw[i].opt);
		} else {
			rp_jstr("option", NULL);
		}
		rp_t(")");
		rp_close();
	}
	rp_close();
	publish_explain();
}

/* ---- pid 1: the listeners, handed to the parent -------------------------- */

/* One socket for both of the jail's loopback addresses: an IPv6 one on
 * [::]:PORT that takes IPv4 too.  The jail's namespace has lo and nothing
 * else, so its "any" address is its loopback.  Where the jail's IPv6 is
 * off (no ::1 on its lo, ipv6.disable), 127.0.0.1 alone. */
static int listen_one(uint16_t port)
{
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons(port)};
	struct sockaddr_in a4 = {.sin_family = AF_INET,
	                         .sin_port = htons(port),
	                         .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int no = 0, s = (int)syscall(SYS_socket, AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s >= 0 && !syscall(SYS_setsockopt, s, IPPROTO_IPV6, IPV6_V6ONLY, &no, sizeof(no)) &&
	    !syscall(SYS_bind, s, &a6, sizeof(a6)))
		return s;
	if (s >= 0 && errno != EADDRNOTAVAIL && errno != EAFNOSUPPORT)
		return -1;
	if (s >= 0)
		close(s);
	s = (int)syscall(SYS_socket, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s >= 0 && syscall(SYS_bind, s, &a4, sizeof(a4)))
		return -1;
	return s;
}

void forward_listen(int parent_sock)
{
	int s[FW_MAX];

	if (!n_fw)
		return;
	for (unsigned i = 0; i < n_fw; i++) {
		s[i] = listen_one(fw[i].port);
		if (s[i] < 0 || syscall(SYS_listen, s[i], 128))
			diep("listen in the jail for",
			     fw[i].opt ? fw[i].opt : "the policy's 'forward'", errno, NULL);
	}
	if (!wire_send(parent_sock, WIRE_FORWARD, NULL, 0, s, n_fw))
		_exit(AJ_EXIT_SETUP); /* the parent is gone, or has said why */
	for (unsigned i = 0; i < n_fw; i++)
		close(s[i]);
}

/* ---- the parent: the relay ------------------------------------------------ */

struct fconn {
	int c, u; /* the jail's end, the host's; -1: the slot is free */
	bool connecting, c_eof, u_eof, c_shut, u_shut;
	uint8_t fw;            /* fw[] */
	uint64_t since_ms;     /* accepted at, reached_now_ms()'s clock */
	struct relay up, down; /* jail to host, host to jail (relay.c) */
};

static struct fconn conns[FW_CONNS];
static bool relaying; /* conns[] is set up (forward_start()) */
static uint8_t slot_conn[2 * FW_CONNS], slot_up[2 * FW_CONNS];

/* A connection that reached the host's port: its line in --jail-log. */
static void conn_log(const struct fconn *k)
{
	const struct forward *f = &fw[k->fw < n_fw ? k->fw : 0];
	struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
	char target[16] = "[::1]:";
	char *d = target + (f->v6 ? 6 : 0);
	char digits[6];
	unsigned n = 0, p = f->port;

	if (k->fw >= n_fw) {
		publish_log(k->fw - n_fw, k->up.piped, k->down.piped, k->since_ms);
		return;
	}
	if (!f->v6)
		memcpy(target, "127.0.0.1:", 10), d = target + 10;
	do
		digits[n++] = (char)('0' + p % 10);
	while ((p /= 10));
	while (n)
		*d++ = digits[--n];
	*d = 0;
	reached_conn(target, f->v6 ? (struct sockaddr *)&a6 : (struct sockaddr *)&a4, k->up.piped,
	             k->down.piped, k->since_ms);
}

static void conn_close(struct fconn *k)
{
	if (!k->connecting)
		conn_log(k);
	relay_release(&k->up);
	relay_release(&k->down);
	close(k->c);
	close(k->u);
	k->c = k->u = -1;
}

static void accept_one(unsigned i)
{
	int c = (int)syscall(SYS_accept4, i < n_fw ? listener[i] : publish_listener(i - n_fw), NULL,
	                     NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	struct sockaddr_in a4 = {.sin_family = AF_INET,
	                         .sin_port = htons(fw[i].port),
	                         .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6,
	                          .sin6_port = htons(fw[i].port),
	                          .sin6_addr = IN6ADDR_LOOPBACK_INIT};
	struct fconn *k = NULL;
	bool v6 = i < n_fw && fw[i].v6;
	int u;

	if (c < 0)
		return;
	for (unsigned j = 0; j < FW_CONNS && !k; j++)
		if (conns[j].c < 0)
			k = &conns[j];
	if (i >= n_fw) /* published: the jail's 127.0.0.1:PORT, by pid 1's socket */
		a4.sin_port = htons(publish_port(i - n_fw));
	u = !k          ? -1
	    : i >= n_fw ? publish_socket()
	                : (int)syscall(SYS_socket, v6 ? AF_INET6 : AF_INET,
	                               SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (!k || u < 0) {
		close(c);
		if (u >= 0)
			close(u);
		return;
	}
	*k = (struct fconn){.c = c, .u = u, .fw = (uint8_t)i, .since_ms = reached_now_ms()};
	relay_init(&k->up);
	relay_init(&k->down);
	if (!syscall(SYS_connect, u, v6 ? (void *)&a6 : (void *)&a4, v6 ? sizeof(a6) : sizeof(a4)))
		return;
	k->connecting = true; /* conn_close() logs no line for it */
	if (errno != EINPROGRESS)
		conn_close(k); /* the jail's client sees its connection closed */
}

/* from -> to, by splice (relay.c); at from's end, to's write side is
 * shut, so the other side sees the end too.  false: the connection is
 * over. */
static bool move(int from, int to, struct relay *r, bool *eof, bool *shut, short rf)
{
	if (!relay_move(from, to, r, eof, NULL, rf & (POLLIN | POLLERR | POLLHUP)))
		return false;
	if (*eof && !r->in && !*shut) {
		shutdown(to, SHUT_WR);
		*shut = true;
	}
	return true;
}

static void step(struct fconn *k, short rc, short ru)
{
	if (k->connecting) {
		int err = 0;
		socklen_t l = sizeof(err);

		if (!ru)
			return;
		if (getsockopt(k->u, SOL_SOCKET, SO_ERROR, &err, &l) || err) {
			conn_close(k); /* still connecting: nothing was reached */
			return;
		}
		k->connecting = false;
		return;
	}
	if (!move(k->c, k->u, &k->up, &k->c_eof, &k->u_shut, rc) ||
	    !move(k->u, k->c, &k->down, &k->u_eof, &k->c_shut, ru) ||
	    (k->c_eof && k->u_eof && !k->up.in && !k->down.in))
		conn_close(k);
}

static unsigned forward_fill(struct pollfd *p, unsigned max)
{
	unsigned nl = n_fw + publish_count(), n = nl;
	bool free_slot = false;

	if (max < FW_MAX + AJ_PUBLISH_MAX + 2 * FW_CONNS)
		die("run the jail's forwards", EMFILE, NULL);
	for (unsigned i = 0; i < FW_CONNS; i++) {
		struct fconn *k = &conns[i];
		short ce = 0, ue = 0;

		if (k->c < 0) {
			free_slot = true;
			continue;
		}
		if (k->connecting) {
			ue = POLLOUT;
		} else {
			if (k->up.in)
				ue |= POLLOUT;
			else if (!k->c_eof)
				ce |= POLLIN;
			if (k->down.in)
				ce |= POLLOUT;
			else if (!k->u_eof)
				ue |= POLLIN;
		}
		if (ce) {
			slot_conn[n - nl] = (uint8_t)i, slot_up[n - nl] = 0;
			p[n++] = (struct pollfd){.fd = k->c, .events = ce};
		}
		if (ue) {
			slot_conn[n - nl] = (uint8_t)i, slot_up[n - nl] = 1;
			p[n++] = (struct pollfd){.fd = k->u, .events = ue};
		}
	}
	for (unsigned i = 0; i < nl; i++)
		p[i] = (struct pollfd){.fd = !free_slot ? -1
		                             : i < n_fw ? listener[i]
		                                        : publish_listener(i - n_fw),
		                       .events = POLLIN};
	return n;
}

static void forward_serve(const struct pollfd *p, unsigned n)
{
	static short rc[FW_CONNS], ru[FW_CONNS];
	unsigned nl = n_fw + publish_count();

	memset(rc, 0, sizeof(rc));
	memset(ru, 0, sizeof(ru));
	for (unsigned j = nl; j < n; j++)
		if (slot_up[j - nl])
			ru[slot_conn[j - nl]] = p[j].revents;
		else
			rc[slot_conn[j - nl]] = p[j].revents;
	for (unsigned i = 0; i < FW_CONNS; i++)
		if (conns[i].c >= 0 && (rc[i] || ru[i]))
			step(&conns[i], rc[i], ru[i]);
	for (unsigned i = 0; i < nl; i++)
		if (p[i].revents & POLLIN)
			accept_one(i);
}

static const struct ev_source forward_source = {forward_fill, forward_serve};

/* The run ends.  What the jail wrote before it ended (a published
 * server's last reply, a forward's last request) may still be in the
 * kernel's buffers, and the jail's network lives on while a socket of it
 * is open here: it is relayed to its end first, no new connection taken,
 * for FW_DRAIN_MS at most; then what is still open is closed, and
 * logged. */
#define FW_DRAIN_MS 2000
void forward_end(void)
{
	struct pollfd p[FW_MAX + AJ_PUBLISH_MAX + 2 * FW_CONNS];
	unsigned nl = n_fw + publish_count();
	struct timespec t0, t;
	long left = FW_DRAIN_MS;

	if (!nl || !relaying)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (left > 0) {
		unsigned n = forward_fill(p, sizeof(p) / sizeof(p[0]));

		if (n == nl)
			break; /* none open */
		for (unsigned i = 0; i < nl; i++)
			p[i].fd = -1;
		if (poll(p, n, (int)left) <= 0)
			break;
		forward_serve(p, n);
		clock_gettime(CLOCK_MONOTONIC, &t);
		left = FW_DRAIN_MS - (t.tv_sec - t0.tv_sec) * 1000 -
		       (t.tv_nsec - t0.tv_nsec) / 1000000;
	}
	for (unsigned i = 0; i < FW_CONNS; i++)
		if (conns[i].c >= 0)
			conn_close(&conns[i]);
}

/* The parent, after the proxy's listener: the forwards' listeners, or
 * NULL when the run has none or pid 1 ended before it sent them. */
const struct ev_source *forward_start(int fd)
{
	int n;

	if (!n_fw && !publish_count())
		return NULL;
	publish_parent();
	n = n_fw ? wire_recv(fd, WIRE_FORWARD, NULL, 0, listener, FW_MAX) : 0;
	if (n != (int)n_fw) {
		while (n > 0)
			close(listener[--n]);
		return NULL;
	}
	for (unsigned i = 0; i < n_fw; i++)
		if (fcntl(listener[i], F_SETFL, fcntl(listener[i], F_GETFL) | O_NONBLOCK))
			die("run the jail's forwards", errno, NULL);
	for (unsigned i = 0; i < FW_CONNS; i++) {
		conns[i].c = conns[i].u = -1;
		relay_init(&conns[i].up);
		relay_init(&conns[i].down);
	}
	relaying = true;
	return &forward_source;
}
