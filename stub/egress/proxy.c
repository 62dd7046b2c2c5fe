/* proxy.c: 'network allow': named hosts through a proxy in the stub's
 * parent.
 *
 * The jail has a network namespace with lo only.  pid 1 listens there on
 * 127.0.0.1:AJ_PROXY_PORT and hands the listening socket to the parent,
 * which stays in the host's network namespace for the whole run: the
 * parent accepts the jail's connections itself, so nothing relays inside
 * and no thread or process is added.  It speaks HTTP CONNECT and plain
 * HTTP with an absolute URI, resolves names itself (the jail has no
 * resolver and no route to one), and connects only to a listed name and
 * port whose addresses are public, or to an address the list names
 * literally.  Everything else gets a 403, and the jail's stderr one line
 * naming the host, the policy and the option that allows it.
 *
 * For a variant without the level none of this runs.  With it, the
 * proxy is one source of the parent's one loop (proxy_start()).
 *
 * The hosts are the variant's, where the registry a followed tool's own
 * configuration names (its variables, then its file in $HOME, read once,
 * bounded) replaces the tool's default, and --jail-allow-host's. */
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

/* ---- pid 1: the listening socket, handed to the parent ------------------- */

void proxy_listen(int parent_sock)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
	                        .sin_port = htons(AJ_PROXY_PORT),
	                        .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int s = (int)syscall(SYS_socket, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	int defer = 5;

	if (s < 0 || syscall(SYS_bind, s, &a, sizeof(a)) || syscall(SYS_listen, s, 128))
		die("listen for the jail's proxy on 127.0.0.1:3128", errno, NULL);
	/* A client of a proxy speaks first: the parent is woken for a
	 * connection only once its request is there, and reads it with the
	 * accept, one turn of its loop rather than two; a client that
	 * connects and says nothing holds no slot of the proxy for a while.
	 * Speed only: without it the proxy works the same. */
	syscall(SYS_setsockopt, s, IPPROTO_TCP, TCP_DEFER_ACCEPT, &defer, sizeof(defer));
	if (!wire_send(parent_sock, WIRE_PROXY, NULL, 0, &s, 1))
		_exit(AJ_EXIT_SETUP); /* the parent is gone, or has said why */
	close(s);
}

/* ---- the parent: the listener and the loop -------------------------------- */

/* Every connection waiting, while a slot is free: with TCP_DEFER_ACCEPT
 * (proxy_listen()) each comes with its request, which is read at once. */
static void accept_some(int listener)
{
	while (conn_room()) { /* full: the listener is not polled until a slot frees */
		struct conn *k;
		int s = accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

		if (s < 0) {
			conn_pause(errno);
			return;
		}
		k = conn_new(s);
		conn_head_read(k);
		if (k->c >= 0)
			conn_advance(k);
	}
}

/* pid 1's listening socket, over the socket pair; -1 when pid 1 ended
 * before it sent one (its status says why). */
static int receive_listener(int fd)
{
	int s;

	return wire_recv(fd, WIRE_PROXY, NULL, 0, &s, 1) == 1 ? s : -1;
}

/* The proxy as a source of the parent's one loop (proc/supervise.c):
 * the listener while a slot is free, and each connection's ends as its
 * state wants them.  Only the descriptors waited on: the kernel refuses
 * more poll entries than RLIMIT_NOFILE. */
static int listener = -1;
static uint8_t slot_conn[2 * PX_CONNS], slot_up[2 * PX_CONNS];

static unsigned proxy_fill(struct pollfd *p, unsigned max)
{
	unsigned n = 1, free_slots = 0;

	if (max < 1 + 2 * PX_CONNS)
		die("run the jail's proxy", EMFILE, NULL);
	p[0] = (struct pollfd){.fd = listener, .events = POLLIN};
	for (unsigned i = 0; i < PX_CONNS; i++) {
		struct conn *k = &conns[i];
		short ce = 0, ue = 0;

		if (k->c < 0) {
			free_slots++;
			continue;
		}
		if (k->state == PX_HEAD_READ)
			ce = POLLIN;
		else if (k->state == PX_CONNECTING)
			ue = POLLOUT;
		else if (k->state == PX_UPSTREAM)
			ue = POLLIN;
		else if (k->state == PX_REPLY)
			ce = POLLOUT;
		else {
			if (conn_pending(&k->up))
				ue |= POLLOUT;
			else if (!k->c_eof)
				ce |= POLLIN; /* the body, or what is discarded past it */
			if (conn_pending(&k->down))
				ce |= POLLOUT;
			else if (!k->u_eof)
				ue |= POLLIN;
		}
		if (ce) {
			slot_conn[n - 1] = (uint8_t)i, slot_up[n - 1] = 0;
			p[n++] = (struct pollfd){.fd = k->c, .events = ce};
		}
		if (ue) {
			slot_conn[n - 1] = (uint8_t)i, slot_up[n - 1] = 1;
			p[n++] = (struct pollfd){.fd = k->u, .events = ue};
		}
	}
	if (!free_slots || conn_paused())
		p[0].fd = -1;
	return n;
}

static void proxy_serve(const struct pollfd *p, unsigned n)
{
	static short rc[PX_CONNS], ru[PX_CONNS];

	memset(rc, 0, sizeof(rc));
	memset(ru, 0, sizeof(ru));
	for (unsigned j = 1; j < n; j++)
		if (slot_up[j - 1])
			ru[slot_conn[j - 1]] = p[j].revents;
		else
			rc[slot_conn[j - 1]] = p[j].revents;
	for (unsigned i = 0; i < PX_CONNS; i++)
		if (conns[i].c >= 0 && (rc[i] || ru[i]))
			conn_step(&conns[i], rc[i], ru[i]);
	if (p[0].revents & POLLIN)
		accept_some(listener);
}

static const struct ev_source proxy_source = {proxy_fill, proxy_serve};

/* The run ends (pid 1 has ended, the jail's ends with it): the
 * connections still open are closed, and logged. */
void proxy_end(void)
{
	for (unsigned i = 0; listener >= 0 && i < PX_CONNS; i++)
		if (conns[i].c >= 0)
			conn_close(&conns[i]);
	relay_end();
}

/* The parent, first of its messages from pid 1 (the listener, or none):
 * the source to wait on, or NULL when the jail has no proxy. */
const struct ev_source *proxy_start(int fd)
{
	sigset_t pipe_sig;

	listener = receive_listener(fd);
	if (listener < 0)
		return NULL;
	if (egress_public() && !resolver_own_read())
		die("run the jail's proxy", errno ? errno : EIO,
		    "'network public' reads the host's own addresses (netlink) to keep them out");
	/* splice() into a socket the jail closed raises SIGPIPE, which
	 * would end the run: taken as EPIPE instead. */
	sigemptyset(&pipe_sig);
	sigaddset(&pipe_sig, SIGPIPE);
	if (sigprocmask(SIG_BLOCK, &pipe_sig, NULL))
		die("run the jail's proxy", errno, NULL);
	conn_nonblock(listener);
	for (unsigned i = 0; i < PX_CONNS; i++) {
		struct conn *k = &conns[i];

		k->c = k->u = -1;
		relay_init(&k->up.r);
		relay_init(&k->down.r);
	}
	return &proxy_source;
}
