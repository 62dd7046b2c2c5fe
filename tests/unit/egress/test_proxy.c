/* test_proxy.c: the proxy of 'network allow' (stub/egress/proxy.c), with the
 * run's list (stub/egress/egress.c's egress_allowed), the hosts' rules
 * (common/hosts.c) and the header rules (stub/egress/httphead.c), driven from
 * outside as the jail drives it: proxy_run() runs in a child of the test
 * with a listener handed over the socket pair as pid 1 hands it, and the
 * test is the jail's client and the origin server.  The resolver is a
 * fake (resolver.c has its own test), and the whole test runs in a
 * network namespace of its own where only lo is up: nothing it is handed
 * reaches past this machine.  The proxy's stderr (the refusal lines, and
 * the fake resolver's log of what was asked) comes back over a pipe. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "common/hosts.h"
#include "netns.h"
#include "egress/egress.h"

/* ---- fakes ---------------------------------------------------------------- */

unsigned forward_count(void)
{
	return 0;
}

static const struct aj_policy fake_policy = {.name = "tpol", .progname = "jail-tpol"};
const struct aj_policy *const aj_the_policy = &fake_policy;

noreturn void diep(const char *step, const char *what, int err, const char *hint)
{
	fprintf(stderr, "die: %s %s %d %s\n", step, what ? what : "", err, hint ? hint : "");
	_exit(125);
}

noreturn void die(const char *step, int err, const char *hint)
{
	diep(step, NULL, err, hint);
}

noreturn void die_usage(const char *what, const char *arg)
{
	diep(what, arg, 0, NULL);
}

const char *extra_net_option(void)
{
	return NULL;
}

const char *vars_value(unsigned var)
{
	(void)var;
	return NULL;
}

const char *env_get(char *const *envp, const char *name)
{
	(void)envp, (void)name;
	return NULL;
}

void rp_open(const char *key, char kind)
{
	(void)key, (void)kind;
}
void rp_close(void)
{
}
void rp_t(const char *s)
{
	(void)s;
}
void rp_str(const char *key, const char *s)
{
	(void)key, (void)s;
}
void rp_jstr(const char *key, const char *s)
{
	(void)key, (void)s;
}

void refusals_host(const char *kind, const char *target, const char *why)
{
	(void)kind, (void)target, (void)why;
}

uint64_t reached_now_ms(void)
{
	return 0;
}

void reached_conn(const char *target, const struct sockaddr *to, uint64_t up, uint64_t down,
                  uint64_t since_ms)
{
	(void)target, (void)to, (void)up, (void)down, (void)since_ms;
}

/* The parent's one loop, as proc/supervise.c runs it for the proxy alone:
 * no signals, no refusal listener here. */
static noreturn void serve_proxy(int sock)
{
	static struct pollfd pf[256];
	const struct ev_source *src = proxy_start(sock);

	if (!src)
		_exit(3);
	for (;;) {
		unsigned n = src->fill(pf, 256);

		if (poll(pf, n, -1) < 0 && errno != EINTR)
			_exit(4);
		src->serve(pf, n);
	}
}

/* The fake resolver: "loop.test" is this machine, "public.test" an
 * address outside (unreachable here), anything else no name.  Each
 * question is logged on stderr, so a test sees whether the proxy asked. */
void resolver_lookup(struct px_addrs *out, const char *host, unsigned port, bool literal)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};

	fprintf(stderr, "resolve %s %u%s\n", host, port, literal ? " literal" : "");
	out->n = 0;
	if (literal)
		inet_pton(AF_INET, host, &a.sin_addr);
	else if (!strcmp(host, "loop.test"))
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	else if (!strcmp(host, "public.test"))
		inet_pton(AF_INET, "8.8.8.8", &a.sin_addr);
	else
		return;
	memcpy(&out->a[0], &a, sizeof(a));
	out->len[0] = sizeof(a);
	out->n = 1;
}

/* The host's own addresses are resolver.c's ('network public' only, which
 * these cases do not run). */
bool resolver_own_read(void)
{
	return true;
}

bool resolver_own(const struct sockaddr *sa)
{
	(void)sa;
	return false;
}

/* ---- the test's side ------------------------------------------------------ */

static const char *netns_why;

struct px {
	pid_t pid;
	int err;        /* the proxy's stderr */
	int origin;     /* the origin server's listener, on 127.0.0.1 */
	unsigned port;  /* its port */
	unsigned lport; /* the proxy's */
	char log[8192]; /* what the proxy wrote on stderr so far */
	size_t log_n;
};

static int listen_lo(unsigned *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t l = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(s >= 0);
	assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(s, 8), 0);
	assert_int_equal(getsockname(s, (struct sockaddr *)&a, &l), 0);
	*port = ntohs(a.sin_port);
	return s;
}

static const char *const policy_hosts[] = {"loop.test:443", "public.test:443", "*.wild.test:443",
                                           "web.test:80"};

/* A proxy for the policy's hosts above and, listed literally, the origin
 * server's address. */
static int start(void **state)
{
	struct px *p = calloc(1, sizeof(*p));
	int sp[2], ep[2];
	unsigned lport;
	int l;

	if (netns_why) {
		*state = p;
		return 0;
	}
	p->origin = listen_lo(&p->port);
	l = listen_lo(&lport);
	p->lport = lport;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp), 0);
	assert_int_equal(pipe2(ep, O_CLOEXEC), 0);
	p->pid = fork();
	assert_true(p->pid >= 0);
	if (!p->pid) {
		static struct aj_variant v = {
		    .network = AJ_NET_ALLOW, .hosts = policy_hosts, .n_hosts = 4};
		char lit[64];

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(ep[1], 2);
		setvbuf(stderr, NULL, _IONBF, 0);
		snprintf(lit, sizeof(lit), "127.0.0.1:%u", p->port);
		egress_allow_host(lit, "--jail-allow-host");
		egress_hosts(egress_apply(&v), (char *[]){NULL});
		serve_proxy(sp[1]);
	}
	close(sp[1]);
	close(ep[1]);
	assert_true(wire_send(sp[0], WIRE_PROXY, NULL, 0, &l, 1));
	close(l);
	close(sp[0]);
	p->err = ep[0];
	fcntl(p->err, F_SETFL, O_NONBLOCK);
	*state = p;
	return 0;
}

static int stop(void **state)
{
	struct px *p = *state;

	if (p->pid > 0) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, NULL, 0);
		close(p->err);
		close(p->origin);
	}
	free(p);
	return 0;
}

static void skip_without_netns(void)
{
	if (netns_why) {
		print_message("SKIP: %s\n", netns_why);
		skip();
	}
}

static int client(const struct px *p)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
	                        .sin_port = htons((uint16_t)p->lport),
	                        .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(s >= 0);
	assert_int_equal(connect(s, (struct sockaddr *)&a, sizeof(a)), 0);
	return s;
}

static void send_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		assert_true(w > 0);
		s += w;
		n -= (size_t)w;
	}
}

/* Reads until the peer closes, size - 1 bytes, or 3 s of silence. */
static size_t read_all(int fd, char *buf, size_t size)
{
	size_t n = 0;

	while (n + 1 < size) {
		struct pollfd q = {.fd = fd, .events = POLLIN};
		ssize_t r;

		if (poll(&q, 1, 3000) <= 0)
			break;
		r = read(fd, buf + n, size - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	return n;
}

/* Reads exactly n bytes (3 s at most). */
static void read_n(int fd, char *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		struct pollfd q = {.fd = fd, .events = POLLIN};
		ssize_t r;

		assert_true(poll(&q, 1, 3000) > 0);
		r = read(fd, buf + got, n - got);
		assert_true(r > 0);
		got += (size_t)r;
	}
	buf[n] = '\0';
}

/* The origin server's next connection (3 s at most). */
static int origin_accept(const struct px *p)
{
	struct pollfd q = {.fd = p->origin, .events = POLLIN};
	int s;

	assert_int_equal(poll(&q, 1, 3000), 1);
	s = accept4(p->origin, NULL, NULL, SOCK_CLOEXEC);
	assert_true(s >= 0);
	return s;
}

/* Did anything connect to the origin server?  (The proxy has answered
 * the client by then, so a connection it made is already queued.) */
static bool origin_reached(const struct px *p)
{
	struct pollfd q = {.fd = p->origin, .events = POLLIN};

	return poll(&q, 1, 50) == 1;
}

static const char *proxy_log(struct px *p)
{
	ssize_t r;

	while ((r = read(p->err, p->log + p->log_n, sizeof(p->log) - 1 - p->log_n)) > 0)
		p->log_n += (size_t)r;
	p->log[p->log_n] = '\0';
	return p->log;
}

/* One request, the proxy's whole answer. */
static void ask(struct px *p, const char *req, char *resp, size_t size)
{
	int c = client(p);

	send_all(c, req, strlen(req));
	read_all(c, resp, size);
	close(c);
}

/* Macros, so that a failure names the line of the check. */
#define starts_with(s, prefix)                                                                     \
	do {                                                                                       \
		if (strncmp((s), (prefix), strlen(prefix)))                                        \
			fail_msg("\"%.80s\" does not start with \"%s\"", (s), (prefix));           \
	} while (0)
#define contains(s, part)                                                                          \
	do {                                                                                       \
		if (!strstr((s), (part)))                                                          \
			fail_msg("\"%.300s\" does not contain \"%s\"", (s), (part));               \
	} while (0)
#define lacks(s, part)                                                                             \
	do {                                                                                       \
		if (strstr((s), (part)))                                                           \
			fail_msg("\"%.300s\" contains \"%s\"", (s), (part));                       \
	} while (0)

/* ---- CONNECT -------------------------------------------------------------- */

/* A listed literal address: 200, then the bytes both ways, including
 * those the client sent with its request. */
static void connect_relays(void **state)
{
	struct px *p = *state;
	char req[128], buf[256];
	const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	int c, o;

	skip_without_netns();
	snprintf(req, sizeof(req), "CONNECT 127.0.0.1:%u HTTP/1.1\r\nHost: x\r\n\r\nhello",
	         p->port);
	c = client(p);
	send_all(c, req, strlen(req));
	o = origin_accept(p);
	read_n(o, buf, 5);
	assert_string_equal(buf, "hello");
	send_all(o, "world", 5);
	read_n(c, buf, sizeof(ok) - 1 + 5);
	starts_with(buf, ok);
	assert_string_equal(buf + sizeof(ok) - 1, "world");
	/* The tunnel goes on past the first exchange. */
	send_all(c, "again", 5);
	read_n(o, buf, 5);
	assert_string_equal(buf, "again");
	close(o);
	close(c);
	contains(proxy_log(p), " literal\n");
}

/* The pipes the proxy's process holds (some of them the test's own,
 * inherited: the checks count from a first count). */
static unsigned pipes_of(pid_t pid)
{
	char dir[64], path[128], to[64];
	unsigned n = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	for (int fd = 3; fd < 1024; fd++) {
		ssize_t l;

		snprintf(path, sizeof(path), "%s/%d", dir, fd);
		l = readlink(path, to, sizeof(to) - 1);
		if (l > 0 && !strncmp(to, "pipe:", 5))
			n++;
	}
	return n;
}

/* A connection whose bytes do not flow holds no pipe: one is taken when
 * bytes come and given back when they have gone, to a pool the next
 * connections take from, so many connections one after the other hold
 * the pipes of one, and each gets its own bytes only. */
static void connect_pipes_only_while_bytes_flow(void **state)
{
	struct px *p = *state;
	const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	char req[128], buf[256], want[16];
	unsigned base;
	int c, o;

	skip_without_netns();
	base = pipes_of(p->pid);
	snprintf(req, sizeof(req), "CONNECT 127.0.0.1:%u HTTP/1.1\r\nHost: x\r\n\r\n", p->port);
	c = client(p);
	send_all(c, req, strlen(req));
	o = origin_accept(p);
	read_n(c, buf, sizeof(ok) - 1);
	assert_string_equal(buf, ok);
	assert_int_equal(pipes_of(p->pid), base);
	close(o);
	close(c);
	for (int i = 0; i < 20; i++) {
		c = client(p);
		send_all(c, req, strlen(req));
		o = origin_accept(p);
		read_n(c, buf, sizeof(ok) - 1);
		snprintf(want, sizeof(want), "up%02d", i);
		send_all(c, want, 4);
		read_n(o, buf, 4);
		assert_string_equal(buf, want);
		snprintf(want, sizeof(want), "dn%02d", i);
		send_all(o, want, 4);
		read_n(c, buf, 4);
		assert_string_equal(buf, want);
		close(o);
		close(c);
	}
	/* One connection at a time: the pipes of one, both ways. */
	assert_in_range(pipes_of(p->pid), base, base + 4);
}

/* A name not in the list: 403, a line on stderr naming it, and no
 * question to the resolver. */
static void connect_unlisted_403(void **state)
{
	struct px *p = *state;
	char buf[1024];

	skip_without_netns();
	ask(p, "CONNECT evil.test:443 HTTP/1.1\r\n\r\n", buf, sizeof(buf));
	starts_with(buf, "HTTP/1.1 403 Forbidden\r\n");
	contains(buf, "not in the jail's network list");
	contains(proxy_log(p),
	         "jail-tpol: refused a connection to evil.test:443: not in the list (policy "
	         "tpol); --jail-allow-host=evil.test:443 allows it\n");
	lacks(p->log, "resolve evil.test");
	assert_false(origin_reached(p));
}

/* A listed name on another port is another target. */
static void connect_other_port_403(void **state)
{
	struct px *p = *state;
	char buf[1024];

	skip_without_netns();
	ask(p, "CONNECT loop.test:8443 HTTP/1.1\r\n\r\n", buf, sizeof(buf));
	starts_with(buf, "HTTP/1.1 403 Forbidden\r\n");
	lacks(proxy_log(p), "resolve");
}

/* An address is reached only where the list names it literally: the
 * origin's address on another port, and a private one, are refused. */
static void connect_unlisted_literal_403(void **state)
{
	struct px *p = *state;
	char req[128], buf[1024];

	skip_without_netns();
	snprintf(req, sizeof(req), "CONNECT 127.0.0.1:%u HTTP/1.1\r\n\r\n", p->port + 1);
	ask(p, req, buf, sizeof(buf));
	starts_with(buf, "HTTP/1.1 403 Forbidden\r\n");
	ask(p, "CONNECT 10.1.2.3:443 HTTP/1.1\r\n\r\n", buf, sizeof(buf));
	starts_with(buf, "HTTP/1.1 403 Forbidden\r\n");
	ask(p, "CONNECT [::1]:443 HTTP/1.1\r\n\r\n", buf, sizeof(buf));
	starts_with(buf, "HTTP/1.1 403 Forbidden\r\n");
	lacks(proxy_log(p), "resolve");
	assert_false(origin_reached(p));
}

/* A listed name that resolves to this machine: 403, and the line says
 * to list the address itself. */
static void connect_name_to_loopback_403(void **state)
{
	struct px *p = *state;
	char buf[1024];

	skip_without_netns();
	ask(p, "CONNECT loop.test:443 HTTP/1.1\r\n\r\n", buf, sizeof(buf));
	starts_with(buf, "HTTP/1.1 403 Forbidden\r\n");
	contains(buf, "resolves to an address the jail may not reach");
	contains(proxy_log(p), "resolve loop.test 443\n");
	contains(p->log,
	         "refused a connection to loop.test:443: it resolves to a loopback address");
	contains(p->log, "list its address: --jail-allow-host=ADDRESS:443");
}

/* Ports that are not ports, and no port at all where CONNECT needs one. */
static void connect_bad_port_400(void **state)
{
	static const char *const reqs[] = {
	    "CONNECT loop.test:0 HTTP/1.1\r\n\r\n",     "CONNECT loop.test:65536 HTTP/1.1\r\n\r\n",
	    "CONNECT loop.test:https HTTP/1.1\r\n\r\n", "CONNECT loop.test: HTTP/1.1\r\n\r\n",
	    "CONNECT *.wild.test:443 HTTP/1.1\r\n\r\n",
	};
	struct px *p = *state;
	char buf[1024];

	skip_without_netns();
	for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		ask(p, reqs[i], buf, sizeof(buf));
		starts_with(buf, "HTTP/1.1 400 Bad Request\r\n");
		contains(buf, "CONNECT names HOST:PORT");
	}
	lacks(proxy_log(p), "resolve");
}

/* A pattern in the list: a name below it passes the list (and is asked
 * of the resolver), the bare name does not. */
static void connect_pattern(void **state)
{
	struct px *p = *state;
	char buf[1024];

	skip_without_netns();
	ask(p, "CONNECT a.wild.test:443 HTTP/1.1\r\n\r\n", buf, sizeof(buf));
	starts_with(buf, "HTTP/1.1 502 Bad Gateway\r\n");
	contains(buf, "does not resolve");
	contains(proxy_log(p), "resolve a.wild.test 443\n");
	ask(p, "CONNECT wild.test:443 HTTP/1.1\r\n\r\n", buf, sizeof(buf));
	starts_with(buf, "HTTP/1.1 403 Forbidden\r\n");
	lacks(proxy_log(p), "resolve wild.test");
}

/* A public address that does not answer: 502, nothing else tried. */
static void connect_unreachable_502(void **state)
{
	struct px *p = *state;
	char buf[1024];

	skip_without_netns();
	ask(p, "CONNECT public.test:443 HTTP/1.1\r\n\r\n", buf, sizeof(buf));
	starts_with(buf, "HTTP/1.1 502 Bad Gateway\r\n");
	contains(buf, "did not answer");
}

/* ---- plain HTTP ----------------------------------------------------------- */

/* Absolute form to origin form; the proxy's own headers and Connection
 * go, one Connection: close comes; what the client sends past its one
 * request never reaches the host, and the host's answer comes back. */
static void http_one_request(void **state)
{
	struct px *p = *state;
	char req[512], want[256], buf[1024];
	int c, o;

	skip_without_netns();
	snprintf(req, sizeof(req),
	         "GET http://127.0.0.1:%u/a/b?q=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
	         "Proxy-Connection: keep-alive\r\nConnection: keep-alive\r\nAccept: */*\r\n\r\n"
	         "GET http://127.0.0.1:%u/second HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
	         p->port, p->port);
	c = client(p);
	send_all(c, req, strlen(req));
	shutdown(c, SHUT_WR);
	o = origin_accept(p);
	/* The host reads to its end: the proxy passes the client's end on. */
	read_all(o, buf, sizeof(buf));
	snprintf(want, sizeof(want),
	         "GET /a/b?q=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: */*\r\n"
	         "Connection: close\r\n\r\n");
	assert_string_equal(buf, want);
	send_all(o, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", 40);
	close(o);
	read_all(c, buf, sizeof(buf));
	assert_string_equal(buf, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
	close(c);
	assert_false(origin_reached(p));
}

/* A body of a declared length goes, and nothing past it, whether it came
 * with the head or after it. */
static void http_body_bounded(void **state)
{
	struct px *p = *state;
	static const char want[] = "POST / HTTP/1.1\r\nContent-Length: 7\r\n"
	                           "Connection: close\r\n\r\nabc";
	char req[512], buf[1024];
	int c, o;

	skip_without_netns();
	snprintf(req, sizeof(req),
	         "POST http://127.0.0.1:%u HTTP/1.1\r\nContent-Length: 7\r\n\r\nabc", p->port);
	c = client(p);
	send_all(c, req, strlen(req));
	o = origin_accept(p);
	read_n(o, buf, sizeof(want) - 1);
	assert_string_equal(buf, want);
	send_all(c, "defgPOST http://127.0.0.1/x HTTP/1.1\r\n\r\n", 40);
	shutdown(c, SHUT_WR);
	read_all(o, buf, sizeof(buf));
	assert_string_equal(buf, "defg");
	close(o);
	close(c);
}

static void http_refusals(void **state)
{
	struct px *p = *state;
	char buf[1024];

	skip_without_netns();
	/* Not listed (port 80 when none is written). */
	ask(p, "GET http://evil.test/ HTTP/1.1\r\nHost: evil.test\r\n\r\n", buf, sizeof(buf));
	starts_with(buf, "HTTP/1.1 403 Forbidden\r\n");
	contains(proxy_log(p), "refused a connection to evil.test:80: not in the list");
	/* Listed on 80, not on 8080. */
	ask(p, "GET http://web.test:8080/ HTTP/1.1\r\n\r\n", buf, sizeof(buf));
	starts_with(buf, "HTTP/1.1 403 Forbidden\r\n");
	/* Listed: resolved (no such name here). */
	ask(p, "GET http://web.test/ HTTP/1.1\r\n\r\n", buf, sizeof(buf));
	starts_with(buf, "HTTP/1.1 502 Bad Gateway\r\n");
	contains(proxy_log(p), "resolve web.test 80\n");
	lacks(p->log, "resolve evil.test");
	/* Not a proxy request. */
	ask(p, "GET /x HTTP/1.1\r\nHost: web.test\r\n\r\n", buf, sizeof(buf));
	starts_with(buf, "HTTP/1.1 400 Bad Request\r\n");
	ask(p, "GET https://web.test/ HTTP/1.1\r\n\r\n", buf, sizeof(buf));
	starts_with(buf, "HTTP/1.1 400 Bad Request\r\n");
	ask(p, "GARBAGE\r\n\r\n", buf, sizeof(buf));
	starts_with(buf, "HTTP/1.1 400 Bad Request\r\n");
	ask(p, "GET http://web.test:99999/ HTTP/1.1\r\n\r\n", buf, sizeof(buf));
	starts_with(buf, "HTTP/1.1 400 Bad Request\r\n");
	/* A body whose end is in the body. */
	ask(p, "POST http://web.test/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", buf,
	    sizeof(buf));
	starts_with(buf, "HTTP/1.1 411 Length Required\r\n");
	assert_false(origin_reached(p));
}

/* A head that never ends. */
static void head_too_long_431(void **state)
{
	struct px *p = *state;
	char req[8193], buf[1024]; /* the proxy's whole buffer, no end */

	skip_without_netns();
	memset(req, 'a', sizeof(req) - 1);
	memcpy(req, "GET http://web.test/", 20);
	req[sizeof(req) - 1] = '\0';
	ask(p, req, buf, sizeof(buf));
	starts_with(buf, "HTTP/1.1 431 ");
	lacks(proxy_log(p), "resolve");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(connect_relays, start, stop),
	    cmocka_unit_test_setup_teardown(connect_pipes_only_while_bytes_flow, start, stop),
	    cmocka_unit_test_setup_teardown(connect_unlisted_403, start, stop),
	    cmocka_unit_test_setup_teardown(connect_other_port_403, start, stop),
	    cmocka_unit_test_setup_teardown(connect_unlisted_literal_403, start, stop),
	    cmocka_unit_test_setup_teardown(connect_name_to_loopback_403, start, stop),
	    cmocka_unit_test_setup_teardown(connect_bad_port_400, start, stop),
	    cmocka_unit_test_setup_teardown(connect_pattern, start, stop),
	    cmocka_unit_test_setup_teardown(connect_unreachable_502, start, stop),
	    cmocka_unit_test_setup_teardown(http_one_request, start, stop),
	    cmocka_unit_test_setup_teardown(http_body_bounded, start, stop),
	    cmocka_unit_test_setup_teardown(http_refusals, start, stop),
	    cmocka_unit_test_setup_teardown(head_too_long_431, start, stop),
	};

	if (!netns_enter(&netns_why))
		print_message("SKIP: %s\n", netns_why);
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
