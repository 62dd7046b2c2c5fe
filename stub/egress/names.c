/* names.c: the transparent relay of 'network allow' and 'network public',
 * for clients that ignore the proxy variables (node's own fetch, ssh, a
 * plain socket).
 *
 * The jail keeps the host's /etc/resolv.conf: pid 1 puts each nameserver
 * it names on the jail's own lo and listens there on UDP port 53, so the
 * jail's libc asks the stub's parent, which answers an allowed name with
 * an address of the jail's loopback, one per name (127.77.1.N), and
 * listens on it (in the jail's network, with a socket pid 1 makes:
 * publish.c) on the ports the name may be reached on.  A connection
 * there is the proxy's (conn_adopt()) as if it had asked CONNECT
 * NAME:PORT: the same list, the same public-address check at the address
 * connected to, the same refusal and "allowed" lines.  A name not
 * allowed gets NXDOMAIN and a refusal of kind "lookup"; AAAA gets no
 * answer (the loopback range is IPv4: a client falls back to A, and an
 * IPv6 spelling of a jail-only address would only add a way to write
 * it).  UDP other than these questions is not relayed.
 *
 * For a variant without a proxy none of this exists (ns.c calls
 * names_listen() only for one). */
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "egress/egress.h"

#define NM_NS    3  /* nameservers, as resolv.conf's readers take them */
#define NM_NAMES 64 /* names one run may look up; past that, SERVFAIL */
#define NM_PORTS 4  /* relayed ports a name */
#define NM_TTL   300

struct name {
	char host[AJ_HOST_MAX];
	unsigned n_ports;
	uint16_t port[NM_PORTS];
	int l[NM_PORTS]; /* the listeners on 127.77.1.N:port, in the jail's network */
};

static struct name names[NM_NAMES];
static unsigned n_names;
static int dns[NM_NS] = {-1, -1, -1};
static unsigned n_dns;

static uint32_t name_addr(unsigned i)
{
	return htonl(0x7f4d0101u + i); /* 127.77.1.1 onwards */
}

/* ---- pid 1: the nameservers' addresses on lo, and their sockets ---------- */

/* addr/len on the jail's lo (still all-capable pid 1, in its own network
 * namespace): a nameserver of the host outside 127/8 is answered here. */
static bool lo_add(int family, const void *addr, unsigned len)
{
	struct {
		struct nlmsghdr h;
		struct ifaddrmsg a;
		struct rtattr r;
		uint8_t d[16];
	} m = {0};
	struct ifreq ifr = {0};
	char ack[256];
	int s = (int)syscall(SYS_socket, AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	int i = (int)syscall(SYS_socket, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool ok;

	memcpy(ifr.ifr_name, "lo", 3);
	ok = s >= 0 && i >= 0 && !ioctl(i, SIOCGIFINDEX, &ifr);
	m.h.nlmsg_len = (uint32_t)(NLMSG_LENGTH(sizeof(m.a)) + RTA_LENGTH(len));
	m.h.nlmsg_type = RTM_NEWADDR;
	m.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE;
	m.a.ifa_family = (uint8_t)family;
	m.a.ifa_prefixlen = (uint8_t)(len * 8);
	m.a.ifa_flags = IFA_F_NODAD;
	m.a.ifa_index = (uint32_t)ifr.ifr_ifindex;
	m.r.rta_len = (unsigned short)RTA_LENGTH(len);
	m.r.rta_type = IFA_LOCAL;
	memcpy(m.d, addr, len);
	ok = ok && send(s, &m, m.h.nlmsg_len, 0) == (ssize_t)m.h.nlmsg_len &&
	     recv(s, ack, sizeof(ack), 0) >= (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)) &&
	     !((struct nlmsgerr *)NLMSG_DATA(ack))->error;
	if (s >= 0)
		close(s);
	if (i >= 0)
		close(i);
	return ok;
}

/* One UDP socket on ADDR:53 (a nameserver line's address). */
static int ns_socket(const char *text)
{
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons(53)};
	struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_port = htons(53)};
	bool v6 = inet_pton(AF_INET6, text, &a6.sin6_addr) == 1;
	int s;

	if (!v6 && inet_pton(AF_INET, text, &a4.sin_addr) != 1)
		return -1;
	if (v6 ? !IN6_IS_ADDR_LOOPBACK(&a6.sin6_addr) && !lo_add(AF_INET6, &a6.sin6_addr, 16)
	       : (ntohl(a4.sin_addr.s_addr) >> 24) != 127 && !lo_add(AF_INET, &a4.sin_addr, 4))
		die("answer the jail's name lookups", errno ? errno : EIO,
		    "the host's nameserver address could not be put on the jail's loopback");
	s = (int)syscall(SYS_socket, v6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0 ||
	    (v6 ? syscall(SYS_bind, s, &a6, sizeof(a6)) : syscall(SYS_bind, s, &a4, sizeof(a4))))
		die("answer the jail's name lookups on port 53", errno, NULL);
	return s;
}

/* pid 1, after the proxy's listener: the nameservers' sockets (none when
 * the host names none: then libc asks 127.0.0.1, and so is answered). */
void names_listen(int parent_sock)
{
	static char buf[4096];
	int fd = open("/etc/resolv.conf", O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	size_t n = fd >= 0 ? out_read(fd, buf, sizeof(buf) - 1) : 0;
	int s[NM_NS], ns = 0;

	if (fd >= 0)
		close(fd);
	buf[n] = '\0';
	for (char *l = buf, *next; *l && ns < NM_NS; l = next) {
		char *v, *ve, *e = strchrnul(l, '\n');

		next = *e ? e + 1 : e; /* before the address is cut at its end */
		if (strncmp(l, "nameserver", 10) || (l[10] != ' ' && l[10] != '\t'))
			continue;
		for (v = l + 10; *v == ' ' || *v == '\t'; v++)
			;
		for (ve = v; ve < e && *ve != ' ' && *ve != '\t' && *ve != '\r' && *ve != '%'; ve++)
			;
		if (ve - v >= INET6_ADDRSTRLEN)
			continue;
		*ve = '\0';
		if ((s[ns] = ns_socket(v)) >= 0)
			ns++;
	}
	if (!ns)
		s[ns++] = ns_socket("127.0.0.1");
	/* The relayed ports below 1024 are bound by the parent, which holds
	 * no capability here when the jail has no user namespace of its
	 * own: in the jail's network only, where nothing else listens. */
	fd = open("/proc/sys/net/ipv4/ip_unprivileged_port_start", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		(void)!write(fd, "0", 1);
		close(fd);
	}
	if (!wire_send(parent_sock, WIRE_NAMES, NULL, 0, s, (unsigned)ns))
		_exit(AJ_EXIT_SETUP);
	for (int i = 0; i < ns; i++)
		close(s[i]);
}

/* ---- the parent: the answers -------------------------------------------- */

/* The question's name, lower-cased and dotted, into out; the offset past
 * its type and class, or 0 for a question this does not read. */
static size_t question(const uint8_t *q, size_t n, char *out, uint16_t *type)
{
	size_t at = 12, o = 0;

	if (n < 17 || (q[2] & 0x80) || (q[2] & 0x78) || q[4] || q[5] != 1)
		return 0;
	while (at < n && q[at]) {
		size_t l = q[at++];

		if (l > 63 || at + l >= n || o + l + 2 > AJ_HOST_MAX - 7)
			return 0;
		if (o)
			out[o++] = '.';
		for (size_t i = 0; i < l; i++) {
			char c = (char)q[at + i];

			if (!c)
				return 0; /* no name has one; a C string would end there */
			out[o++] = c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
		}
		at += l;
	}
	out[o] = '\0';
	if (!o || at + 5 > n)
		return 0;
	*type = (uint16_t)(q[at + 1] << 8 | q[at + 2]);
	return at + 5;
}

/* The name's entry, made with its listeners at the first question; NULL
 * when the table is full or a listener could not be made. */
static struct name *name_entry(const char *host, const uint16_t *ports, unsigned np)
{
	struct name *e;

	for (unsigned i = 0; i < n_names; i++)
		if (!strcmp(names[i].host, host))
			return &names[i];
	if (n_names == NM_NAMES)
		return NULL;
	e = &names[n_names];
	memcpy(e->host, host, strlen(host) + 1);
	e->n_ports = 0;
	for (unsigned i = 0; i < np && i < NM_PORTS; i++) {
		struct sockaddr_in a = {.sin_family = AF_INET,
		                        .sin_port = htons(ports[i]),
		                        .sin_addr.s_addr = name_addr(n_names)};
		int one = 1, s = publish_socket();

		if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
		    bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 64)) {
			if (s >= 0)
				close(s);
			while (e->n_ports)
				close(e->l[--e->n_ports]);
			return NULL;
		}
		e->port[e->n_ports] = ports[i];
		e->l[e->n_ports++] = s;
	}
	n_names++;
	return e;
}

static void answer(int s, const uint8_t *q, size_t n, const struct sockaddr *from, socklen_t fl)
{
	static uint8_t r[512 + 16];
	char host[AJ_HOST_MAX];
	uint16_t type = 0, ports[NM_PORTS];
	size_t end = question(q, n, host, &type);
	unsigned np;
	struct name *e = NULL;
	uint8_t rcode = 0;

	if (!end || end > 512)
		return; /* not a question: no answer, as from a closed port */
	memcpy(r, q, end);
	r[2] = (uint8_t)(0x84 | (q[2] & 0x01)); /* an answer, authoritative, RD as asked */
	r[3] = 0x80;                            /* recursion available */
	memset(r + 6, 0, 6);
	np = egress_ports(host, ports, NM_PORTS);
	if (!np) {
		/* A client asks A and AAAA together: one refusal, not two. */
		if (type != 28)
			tell_refused("lookup", host, "not in the list", 0);
		rcode = 3; /* NXDOMAIN */
	} else if (type == 1 && !(e = name_entry(host, ports, np))) {
		rcode = 2; /* SERVFAIL: the table is full */
	}
	r[3] |= rcode;
	if (e) {
		uint32_t a = name_addr((unsigned)(e - names));
		static const uint8_t rr[] = {0xc0,          12, 0, 1, 0, 1, 0, 0, NM_TTL >> 8,
		                             NM_TTL & 0xff, 0,  4};

		r[7] = 1;
		memcpy(r + end, rr, sizeof(rr));
		memcpy(r + end + sizeof(rr), &a, 4);
		end += sizeof(rr) + 4;
	}
	(void)sendto(s, r, end, MSG_DONTWAIT, from, fl);
}

/* ---- the parent: its source ---------------------------------------------- */

static unsigned names_fill(struct pollfd *p, unsigned max)
{
	unsigned n = 0;
	bool room = conn_room();

	if (max < NM_NS + NM_NAMES * NM_PORTS)
		die("answer the jail's name lookups", EMFILE, NULL);
	for (unsigned i = 0; i < n_dns; i++)
		p[n++] = (struct pollfd){.fd = dns[i], .events = POLLIN};
	for (unsigned i = 0; i < n_names; i++)
		for (unsigned j = 0; j < names[i].n_ports; j++)
			p[n++] = (struct pollfd){.fd = room ? names[i].l[j] : -1, .events = POLLIN};
	return n;
}

static void names_serve(const struct pollfd *p, unsigned n)
{
	static uint8_t q[512];
	unsigned k = 0;

	for (unsigned i = 0; i < n_dns && k < n; i++, k++) {
		struct sockaddr_storage from;
		socklen_t fl = sizeof(from);
		ssize_t r;

		if (!(p[k].revents & POLLIN))
			continue;
		while ((r = recvfrom(dns[i], q, sizeof(q), MSG_DONTWAIT, (struct sockaddr *)&from,
		                     &fl)) > 0) {
			answer(dns[i], q, (size_t)r, (struct sockaddr *)&from, fl);
			fl = sizeof(from);
		}
	}
	for (unsigned i = 0; i < n_names; i++)
		for (unsigned j = 0; j < names[i].n_ports && k < n; j++, k++) {
			char target[AJ_HOST_MAX + 8];
			size_t l = strlen(names[i].host);
			int s;

			if (!(p[k].revents & POLLIN) || !conn_room())
				continue;
			s = accept4(names[i].l[j], NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
			if (s < 0) {
				conn_pause(errno);
				continue;
			}
			memcpy(target, names[i].host, l);
			target[l] = ':';
			target[l + 1 + out_fmt_u(target + l + 1, names[i].port[j])] = '\0';
			conn_adopt(s, target);
		}
}

static const struct ev_source names_source = {names_fill, names_serve};

/* The parent, after the proxy's listener: the nameservers' sockets. */
const struct ev_source *names_start(int fd)
{
	int got = wire_recv(fd, WIRE_NAMES, NULL, 0, dns, NM_NS);

	if (got <= 0)
		return NULL;
	n_dns = (unsigned)got;
	for (unsigned i = 0; i < n_dns; i++)
		fcntl(dns[i], F_SETFL, O_NONBLOCK);
	return &names_source;
}
