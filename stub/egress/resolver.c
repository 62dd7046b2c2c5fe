/* resolver.c: the proxy's own resolver (proxy.c), in the stub's parent.
 *
 * musl's getaddrinfo would bring malloc and stdio into every stub: this
 * reads /etc/hosts, then asks the nameservers of /etc/resolv.conf (A and
 * AAAA, over UDP), each file read into a fixed buffer.  It blocks the
 * proxy while it waits (at most 2 s a nameserver). */
#include <errno.h>
#include <arpa/inet.h>
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
                const char *host, unsigned port)
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
				for (int j = 0; j < got; j++)
					add_raw(k, a[j], i == 1, port);
			}
	}
	close(s);
	return done[0] && done[1];
}

static void from_dns(struct px_addrs *k, const char *host, unsigned port)
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
				if (ask(k, &ns, nl, host, port))
					return;
			}
		}
		next_line(&p, end);
	}
	if (!asked) {
		struct sockaddr_storage ns;
		socklen_t nl;

		if (parse_addr("127.0.0.1", 53, &ns, &nl))
			ask(k, &ns, nl, host, port);
	}
}

void resolver_lookup(struct px_addrs *k, const char *host, unsigned port, bool literal)
{
	k->n = 0;
	if (literal)
		add_addr(k, host, port);
	else if (!from_hosts(k, host, port))
		from_dns(k, host, port);
}
