/* resolver.c: the proxy's own resolver (proxy.c), in the stub's parent.
 *
 * musl's getaddrinfo would bring malloc and stdio into every stub: this
 * reads /etc/hosts, then asks the nameservers of /etc/resolv.conf (A and
 * AAAA, over UDP), each file read into a fixed buffer.  It blocks the
 * proxy while it waits (at most 2 s a nameserver).
 *
 * A nameserver's answer is kept for its TTL (the least of its records',
 * at most RS_TTL_MAX) in a small fixed table, so that the connections a
 * client opens one after the other to one host cost one question, not
 * one each.  What is kept is the answer only: every connection's target
 * is checked against the list and its addresses against the public ones
 * as before (proxy.c).  /etc/hosts is read on every lookup, before the
 * table, so that an edit to it counts at once; a failed lookup or a name
 * that does not exist is not kept. */
#include <errno.h>
#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <strings.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

#include "egress/egress.h"

#define PX_NS 3

#define RS_CACHE   16
#define RS_TTL_MAX 300 /* s: however long a nameserver says */

struct cached {
	uint64_t until_ms;  /* reached_now_ms()'s clock; 0: a free entry */
	struct px_addrs to; /* port 0 */
	char host[AJ_HOST_MAX];
};

static struct cached cache[RS_CACHE];

static size_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	size_t n = fd < 0 ? 0 : out_read(fd, buf, size);

	if (fd >= 0)
		close(fd);
	return n;
}

/* The next blank-separated word of [*p, end) on this line, NUL-terminated
 * in w (size 64); false at the line's end. */
static bool word(const char **p, const char *end, char *w)
{
	const char *s = *p;
	size_t n = 0;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s == end || *s == '\n' || *s == '#')
		return false;
	while (s < end && *s != ' ' && *s != '\t' && *s != '\n' && *s != '#') {
		if (n < 63)
			w[n++] = *s;
		s++;
	}
	w[n] = '\0';
	*p = s;
	return true;
}

static void next_line(const char **p, const char *end)
{
	const char *e = memchr(*p, '\n', (size_t)(end - *p));

	*p = e ? e + 1 : end;
}

static bool parse_addr(const char *text, unsigned port, struct sockaddr_storage *out,
                       socklen_t *len)
{
	struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port)};

	if (inet_pton(AF_INET, text, &a4.sin_addr) == 1) {
		memcpy(out, &a4, sizeof(a4));
		*len = sizeof(a4);
	} else if (inet_pton(AF_INET6, text, &a6.sin6_addr) == 1) {
		memcpy(out, &a6, sizeof(a6));
		*len = sizeof(a6);
	} else {
		return false;
	}
	return true;
}

static void add_addr(struct px_addrs *k, const char *text, unsigned port)
{
	if (k->n < PX_ADDRS && parse_addr(text, port, &k->a[k->n], &k->len[k->n]))
		k->n++;
}

static void add_raw(struct px_addrs *k, const uint8_t *b, bool v6, unsigned port)
{
	struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port)};

	if (k->n == PX_ADDRS)
		return;
	if (v6) {
		memcpy(&a6.sin6_addr, b, 16);
		memcpy(&k->a[k->n], &a6, sizeof(a6));
		k->len[k->n++] = sizeof(a6);
	} else {
		memcpy(&a4.sin_addr, b, 4);
		memcpy(&k->a[k->n], &a4, sizeof(a4));
		k->len[k->n++] = sizeof(a4);
	}
}

static bool from_hosts(struct px_addrs *k, const char *host, unsigned port)
{
	static char buf[16384];
	size_t n = read_small("/etc/hosts", buf, sizeof(buf));
	const char *p = buf, *end = buf + n;

	while (p < end) {
		char addr[64], name[64];

		if (word(&p, end, addr))
			while (word(&p, end, name))
				if (!strcasecmp(name, host))
					add_addr(k, addr, port);
		next_line(&p, end);
	}
	return k->n > 0;
}

/* Both questions to one nameserver; true when it answered both. */
static bool ask(struct px_addrs *k, const struct sockaddr_storage *ns, socklen_t nl,
                const char *host, unsigned port, uint32_t *ttl)
{
	uint8_t q[2][300], m[1232];
	size_t qn[2];
	bool done[2] = {false, false};
	uint16_t id[2];
	int s =
	    (int)syscall(SYS_socket, ns->ss_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	struct timespec t0, t;

	if (s < 0)
		return false;
	if (syscall(SYS_getrandom, id, sizeof(id), 0) != sizeof(id))
		id[0] = (uint16_t)getpid(), id[1] = (uint16_t)(id[0] ^ 0x5a5a);
	qn[0] = hosts_dns_query(host, 1, id[0], q[0], sizeof(q[0]));
	qn[1] = hosts_dns_query(host, 28, id[1], q[1], sizeof(q[1]));
	if (!qn[0] || !qn[1] || syscall(SYS_connect, s, ns, nl) ||
	    send(s, q[0], qn[0], MSG_NOSIGNAL) < 0 || send(s, q[1], qn[1], MSG_NOSIGNAL) < 0) {
		close(s);
		return false;
	}
	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t0);
	while (!done[0] || !done[1]) {
		struct pollfd p = {.fd = s, .events = POLLIN};
		long left;
		ssize_t r;

		syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
		left = 2000 - ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			break;
		while ((r = recv(s, m, sizeof(m), 0)) > 0)
			for (int i = 0; i < 2; i++) {
				uint8_t a[PX_ADDRS][16];
				int got = done[i] ? -1
				                  : hosts_dns_answers(m, (size_t)r, q[i], qn[i], a,
				                                      PX_ADDRS);

				if (got < 0)
					continue;
				done[i] = true;
				if (got) {
					uint32_t least = hosts_dns_ttl(m, (size_t)r, qn[i]);

					if (least < *ttl)
						*ttl = least;
				}
				for (int j = 0; j < got; j++)
					add_raw(k, a[j], i == 1, port);
			}
	}
	close(s);
	return done[0] && done[1];
}

static void from_dns(struct px_addrs *k, const char *host, unsigned port, uint32_t *ttl)
{
	static char buf[8192];
	size_t n = read_small("/etc/resolv.conf", buf, sizeof(buf));
	const char *p = buf, *end = buf + n;
	unsigned asked = 0;

	while (p < end && asked < PX_NS) {
		char key[64], val[64];

		if (word(&p, end, key) && !strcmp(key, "nameserver") && word(&p, end, val)) {
			struct sockaddr_storage ns;
			socklen_t nl;

			if (parse_addr(val, 53, &ns, &nl)) {
				asked++;
				*ttl = RS_TTL_MAX;
				if (ask(k, &ns, nl, host, port, ttl))
					return;
			}
		}
		next_line(&p, end);
	}
	if (!asked) {
		struct sockaddr_storage ns;
		socklen_t nl;

		*ttl = RS_TTL_MAX;
		if (parse_addr("127.0.0.1", 53, &ns, &nl) && ask(k, &ns, nl, host, port, ttl))
			return;
	}
	*ttl = 0; /* no nameserver answered both questions: nothing to keep */
}

static void set_port(struct sockaddr_storage *a, unsigned port)
{
	if (a->ss_family == AF_INET)
		((struct sockaddr_in *)a)->sin_port = htons((uint16_t)port);
	else
		((struct sockaddr_in6 *)a)->sin6_port = htons((uint16_t)port);
}

static bool from_cache(struct px_addrs *k, const char *host, unsigned port, uint64_t now)
{
	for (unsigned i = 0; i < RS_CACHE; i++) {
		struct cached *c = &cache[i];

		if (c->until_ms <= now || strcasecmp(c->host, host))
			continue;
		*k = c->to;
		for (unsigned j = 0; j < k->n; j++)
			set_port(&k->a[j], port);
		return true;
	}
	return false;
}

/* In a free or expired entry, else in the one that expires first. */
static void keep(const struct px_addrs *k, const char *host, uint32_t ttl, uint64_t now)
{
	size_t hl = strlen(host);
	struct cached *c = &cache[0];

	if (!ttl || !k->n || hl >= sizeof(c->host))
		return;
	for (unsigned i = 0; i < RS_CACHE; i++) {
		if (cache[i].until_ms <= now) {
			c = &cache[i];
			break;
		}
		if (cache[i].until_ms < c->until_ms)
			c = &cache[i];
	}
	c->to = *k;
	for (unsigned j = 0; j < c->to.n; j++)
		set_port(&c->to.a[j], 0);
	memcpy(c->host, host, hl + 1);
	c->until_ms = now + (uint64_t)(ttl < RS_TTL_MAX ? ttl : RS_TTL_MAX) * 1000;
}

void resolver_forget(void)
{
	memset(cache, 0, sizeof(cache));
}

void resolver_lookup(struct px_addrs *k, const char *host, unsigned port, bool literal)
{
	uint64_t now;
	uint32_t ttl = 0;

	k->n = 0;
	if (literal) {
		add_addr(k, host, port);
		return;
	}
	if (from_hosts(k, host, port))
		return;
	now = reached_now_ms();
	if (from_cache(k, host, port, now))
		return;
	from_dns(k, host, port, &ttl);
	keep(k, host, ttl, now);
}

/* ---- the host's own addresses ('network public') ------------------------ */

#define RS_OWN 128

static struct own {
	uint8_t family;
	uint8_t a[16];
} own[RS_OWN];
static unsigned n_own;
static bool own_full; /* more than RS_OWN: every connection is refused */

static void own_rta(const struct ifaddrmsg *ifa, const struct rtattr *rta, size_t left)
{
	for (; RTA_OK(rta, left); rta = RTA_NEXT(rta, left)) {
		size_t l = ifa->ifa_family == AF_INET ? 4 : 16;

		if ((rta->rta_type != IFA_ADDRESS && rta->rta_type != IFA_LOCAL) ||
		    RTA_PAYLOAD(rta) < l)
			continue;
		if (n_own == RS_OWN) {
			own_full = true;
			return;
		}
		own[n_own].family = ifa->ifa_family;
		memset(own[n_own].a, 0, 16);
		memcpy(own[n_own].a, RTA_DATA(rta), l);
		n_own++;
	}
}

/* One dump of RTM_GETADDR: every address of every interface, both
 * families.  An address of the host reaches its services bound to any
 * address (0.0.0.0, ::) even when the address itself is public. */
bool resolver_own_read(void)
{
	struct {
		struct nlmsghdr h;
		struct ifaddrmsg m;
	} req = {.h = {.nlmsg_len = sizeof(req),
	               .nlmsg_type = RTM_GETADDR,
	               .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
	               .nlmsg_seq = 1},
	         .m = {.ifa_family = AF_UNSPEC}};
	static uint8_t buf[16384] __attribute__((aligned(4)));
	int s = (int)syscall(SYS_socket, AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	bool done = false;

	n_own = 0;
	own_full = false;
	if (s < 0)
		return false;
	if (send(s, &req, sizeof(req), MSG_NOSIGNAL) != (ssize_t)sizeof(req)) {
		close(s);
		return false;
	}
	while (!done) {
		ssize_t r = recv(s, buf, sizeof(buf), 0);
		size_t left = r > 0 ? (size_t)r : 0;

		if (r <= 0)
			break;
		for (const struct nlmsghdr *h = (const void *)buf; NLMSG_OK(h, left);
		     h = NLMSG_NEXT(h, left)) {
			const struct ifaddrmsg *ifa = NLMSG_DATA(h);

			if (h->nlmsg_type == NLMSG_DONE) {
				done = true;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR)
				break;
			if (h->nlmsg_type != RTM_NEWADDR ||
			    h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifa)) ||
			    (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6))
				continue;
			own_rta(ifa, IFA_RTA(ifa), h->nlmsg_len - NLMSG_LENGTH(sizeof(*ifa)));
		}
		if (!done && left)
			break; /* an error message, or one cut short */
	}
	close(s);
	return done;
}

bool resolver_own(const struct sockaddr *sa)
{
	uint8_t a[16] = {0};
	uint8_t family = (uint8_t)sa->sa_family;

	if (own_full)
		return true;
	if (family == AF_INET) {
		memcpy(a, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
	} else if (family == AF_INET6) {
		static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
		const uint8_t *b =
		    ((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr;

		if (!memcmp(b, mapped, 12)) {
			family = AF_INET;
			memcpy(a, b + 12, 4);
		} else {
			memcpy(a, b, 16);
		}
	} else {
		return true;
	}
	for (unsigned i = 0; i < n_own; i++)
		if (own[i].family == family && !memcmp(own[i].a, a, 16))
			return true;
	return false;
}
