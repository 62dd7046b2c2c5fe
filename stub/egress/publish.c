/* publish.c: --jail-publish=[ADDR:][HOSTPORT:]PORT and 'publish', the
 * other way from a forward (forward.c, whose relay it shares): the parent
 * listens on the host's ADDR:HOSTPORT (127.0.0.1 unless named), bound in
 * the caller before anything is created, and relays each connection into
 * the jail's 127.0.0.1:PORT.  A socket is of the network namespace it was
 * made in, and the parent cannot enter the jail's (it holds no
 * capability there, nor could it come back), so pid 1, which is in it,
 * makes one unconnected socket per connection on the parent's request:
 * one byte on a socket pair of their own, woken by SIGIO in pid 1's one
 * wait, the socket back by SCM_RIGHTS.  The parent connects it and
 * relays as for a forward. */
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>

#include "egress/egress.h"

#define PB_MAX AJ_PUBLISH_MAX /* the policy's and the options', together */

struct publish {
	struct sockaddr_in host; /* where the parent listens */
	uint16_t port;           /* the jail's 127.0.0.1:port */
	const char *opt;
};

static struct publish pb[PB_MAX];
static unsigned n_pb, n_pb_opt;   /* all, and those of the options */
static int pb_pair[2] = {-1, -1}; /* the parent's end, pid 1's */
static int pb_listener[PB_MAX];   /* the parent's, on the host */

unsigned publish_port_number(const char *s)
{
	unsigned long p = 0;

	if (!*s)
		return 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || p > 65535)
			return 0;
		p = p * 10 + (unsigned long)(*s - '0');
	}
	return p <= 65535 ? (unsigned)p : 0;
}

/* [ADDR:][HOSTPORT:]PORT: the host's side is 127.0.0.1:PORT unless
 * named; another address only as the person writes it. */
void publish_add(const char *value, const char *opt)
{
	struct publish b = {.host = {.sin_family = AF_INET}, .opt = opt};
	char part[3][16];
	unsigned n = 0, hp, jp;

	if (n_pb == PB_MAX)
		die_usage("too many --jail-publish options (at most 8)", opt);
	for (const char *p = value;; n++) {
		const char *e = strchrnul(p, ':');

		if (n == 3 || (size_t)(e - p) >= sizeof(part[0]))
			die_usage("not [ADDRESS:][HOSTPORT:]PORT", value);
		memcpy(part[n], p, (size_t)(e - p));
		part[n][e - p] = 0;
		if (!*e) {
			n++;
			break;
		}
		p = e + 1;
	}
	if (n == 3 && inet_pton(AF_INET, part[0], &b.host.sin_addr) != 1)
		die_usage("the host's address is an IPv4 address (127.0.0.1 unless named)", value);
	if (n < 3)
		b.host.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	jp = publish_port_number(part[n - 1]);
	hp = n > 1 ? publish_port_number(part[n - 2]) : jp;
	if (!jp || !hp)
		die_usage("not a port (1 to 65535)", value);
	for (unsigned i = 0; i < n_pb; i++)
		if (pb[i].host.sin_port == htons((uint16_t)hp) &&
		    pb[i].host.sin_addr.s_addr == b.host.sin_addr.s_addr)
			die_usage("the host's port is published twice", value);
	b.host.sin_port = htons((uint16_t)hp);
	b.port = (uint16_t)jp;
	pb[n_pb++] = b;
	n_pb_opt = n_pb;
}

/* The policy's published ports first, then the options': one for a host
 * port the policy publishes adds nothing when it names the same jail
 * port, and is refused when it names another. */
static void publish_merge_policy(const struct aj_variant *v)
{
	struct publish opts[PB_MAX];
	unsigned n = n_pb;

	memcpy(opts, pb, sizeof(opts));
	n_pb = 0;
	for (unsigned i = 0; i < v->n_publishes && i < PB_MAX; i++)
		pb[n_pb++] = (struct publish){{.sin_family = AF_INET,
		                               .sin_port = htons(v->publishes[i].host_port),
		                               .sin_addr.s_addr = v->publishes[i].addr},
		                              v->publishes[i].port,
		                              NULL};
	for (unsigned i = 0; i < n; i++) {
		unsigned j = 0;

		while (j < v->n_publishes &&
		       (pb[j].host.sin_port != opts[i].host.sin_port ||
		        pb[j].host.sin_addr.s_addr != opts[i].host.sin_addr.s_addr))
			j++;
		if (j < v->n_publishes) {
			if (pb[j].port != opts[i].port)
				die_usage("the policy publishes another port of the jail there",
				          opts[i].opt);
			continue;
		}
		if (n_pb == PB_MAX)
			die_usage("too many published ports with the policy's (at most 8)",
			          opts[i].opt);
		pb[n_pb++] = opts[i];
	}
	n_pb_opt = 0;
	for (unsigned i = 0; i < n_pb; i++)
		n_pb_opt += pb[i].opt != NULL;
}

static const char *publish_first_opt(void)
{
	for (unsigned i = 0; i < n_pb; i++)
		if (pb[i].opt)
			return pb[i].opt;
	return "publish";
}

/* After forward_apply()'s merge: the policy's, then the run's; the run's
 * need the jail's own loopback, in a mode that left the network open. */
void publish_apply(const struct aj_variant *v)
{
	if (v->n_publishes && v->network != AJ_NET_HOST)
		publish_merge_policy(v);
	/* A published port needs the jail's own loopback; a mode that fixed
	 * the network (lockdown) publishes what its policy block says, and
	 * nothing a run adds. */
	if (n_pb_opt && (v->flags & AJ_VARIANT_NET_FIXED))
		diep("use", publish_first_opt(), 0,
		     "this mode fixes the network: no port of the jail is published from it");
	if (n_pb_opt && (v->network == AJ_NET_HOST || v->network == AJ_NET_BLOCKED))
		diep("use", publish_first_opt(), 0,
		     "the jail shares the host's network namespace here, where its ports are the "
		     "host's already; add --jail-no-net to give it a loopback of its own");
}

void publish_no_namespace(void)
{
	if (n_pb)
		diep("use", pb[0].opt ? pb[0].opt : "the policy's 'publish'", 0,
		     "the jail runs without namespaces here (the fallback): a published port "
		     "needs a network namespace");
}

unsigned publish_count(void)
{
	return n_pb;
}

/* pid 1, before Landlock: the jail's server must bind its published
 * ports where the ruleset handles TCP. */
void publish_landlock(int ruleset)
{
	for (unsigned i = 0; i < n_pb; i++)
		landlock_port(ruleset, pb[i].port, true);
}

/* Inside --jail-explain's "network" object, after the forwards. */
void publish_explain(void)
{
	rp_t(
	    n_pb
	        ? "\n  published ports of the jail (on the host, relayed by the stub's parent into "
	          "the jail's 127.0.0.1:PORT):"
	        : "");
	rp_open("published", '[');
	for (unsigned i = 0; i < n_pb; i++) {
		char a[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &pb[i].host.sin_addr, a, sizeof(a));
		rp_open(NULL, '{');
		rp_t("\n    ");
		rp_str("host", a);
		rp_t(":");
		rp_u("host_port", ntohs(pb[i].host.sin_port));
		rp_t(" -> 127.0.0.1:");
		rp_u("port", pb[i].port);
		rp_t(" (");
		rp_str("origin", pb[i].opt ? "option" : "policy");
		if (pb[i].opt) {
			rp_t(" ");
			rp_str("option", pb[i].opt);
		} else {
			rp_jstr("option", NULL);
		}
		rp_t(")");
		rp_close();
	}
	rp_close();
}

/* The caller, before any namespace: the host's listeners, so that a port
 * in use ends the run before anything exists; and the socket pair to
 * pid 1.  Both close-on-exec; pid 1 closes the listeners with the rest. */
void publish_bind(bool pair)
{
	int one = 1;

	if (!n_pb && !pair)
		return;
	for (unsigned i = 0; i < n_pb; i++) {
		char what[96];
		const char *opt = pb[i].opt ? pb[i].opt : "the policy's 'publish'";
		size_t l, ol = strlen(opt);
		int s = (int)syscall(SYS_socket, AF_INET,
		                     SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

		/* "ADDR:PORT for OPTION", for the message that names both. */
		inet_ntop(AF_INET, &pb[i].host.sin_addr, what, INET_ADDRSTRLEN);
		l = strlen(what);
		what[l++] = ':';
		l += out_fmt_u(what + l, ntohs(pb[i].host.sin_port));
		if (l + 5 + ol < sizeof(what)) {
			memcpy(what + l, " for ", 5);
			memcpy(what + l + 5, opt, ol);
			l += 5 + ol;
		}
		what[l] = 0;
		/* SO_REUSEADDR: a port left in TIME_WAIT by the last run is
		 * free; one another socket listens on is not. */
		if (s < 0 ||
		    syscall(SYS_setsockopt, s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
		    syscall(SYS_bind, s, &pb[i].host, sizeof(pb[i].host)) ||
		    syscall(SYS_listen, s, 128))
			diep("listen on the host's", what, errno,
			     errno == EADDRINUSE ? "another program listens there: pick a free "
			                           "host port (--jail-publish=HOSTPORT:PORT)"
			                         : NULL);
		pb_listener[i] = s;
	}
	if (syscall(SYS_socketpair, AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pb_pair))
		die("publish the jail's ports", errno, NULL);
}

/* ---- pid 1: a socket of the jail's network for each published connection */

int publish_keep(void)
{
	return pb_pair[1];
}

/* pid 1, before its filter: SIGIO when the parent asks, taken in its one
 * wait (supervise.c), never delivered: blocked before it can come. */
void publish_arm(void)
{
	sigset_t io;

	if (pb_pair[1] < 0)
		return;
	sigemptyset(&io);
	sigaddset(&io, SIGIO);
	if (sigprocmask(SIG_BLOCK, &io, NULL) || fcntl(pb_pair[1], F_SETOWN, getpid()) ||
	    fcntl(pb_pair[1], F_SETFL, O_ASYNC | O_NONBLOCK))
		die("publish the jail's ports", errno, NULL);
	publish_serve(); /* what the parent asked before the signal could come */
}

/* pid 1, on SIGIO (which anyone in the jail may send too: then nothing is
 * waiting, and nothing is done).  One unconnected TCP socket per byte;
 * made without one, the parent closes that connection. */
void publish_serve(void)
{
	for (;;) {
		char c, cbuf[CMSG_SPACE(sizeof(int))] = {0};
		struct iovec iov = {&c, 1};
		struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
		ssize_t r;
		int s;

		if (pb_pair[1] < 0)
			return;
		r = recv(pb_pair[1], &c, 1, MSG_DONTWAIT);
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (r <= 0) { /* the parent is gone */
			close(pb_pair[1]);
			pb_pair[1] = -1;
			return;
		}
		s = (int)syscall(SYS_socket, AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		                 0);
		if (s >= 0) {
			struct cmsghdr *h;

			m.msg_control = cbuf;
			m.msg_controllen = sizeof(cbuf);
			h = CMSG_FIRSTHDR(&m);
			h->cmsg_level = SOL_SOCKET;
			h->cmsg_type = SCM_RIGHTS;
			h->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(h), &s, sizeof(int));
		}
		(void)sendmsg(pb_pair[1], &m, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (s >= 0)
			close(s);
	}
}

/* ---- the parent ------------------------------------------------------------- */

/* The run's relay begins: pid 1's end goes. */
void publish_parent(void)
{
	if (pb_pair[1] >= 0) {
		close(pb_pair[1]);
		pb_pair[1] = -1;
	}
}

int publish_listener(unsigned i)
{
	return pb_listener[i];
}

uint16_t publish_port(unsigned i)
{
	return pb[i].port;
}

/* A published connection's line in --jail-log. */
void publish_log(unsigned i, uint64_t up, uint64_t down, uint64_t since_ms)
{
	reached_published((const struct sockaddr *)&pb[i].host, pb[i].port, up, down, since_ms);
}

/* pid 1's socket for one published connection, asked for and waited on
 * here: pid 1 answers at once, from its loop. */
int publish_socket(void)
{
	char c = 0, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {&c, 1};
	struct msghdr m = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	struct pollfd p = {.fd = pb_pair[0], .events = POLLIN};
	struct cmsghdr *h;
	int s = -1;

	if (send(pb_pair[0], &c, 1, MSG_NOSIGNAL) != 1 || poll(&p, 1, 5000) != 1 ||
	    recvmsg(pb_pair[0], &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT) < 0)
		return -1;
	h = CMSG_FIRSTHDR(&m);
	if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS &&
	    h->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&s, CMSG_DATA(h), sizeof(int));
	return s;
}
