/* netbench: the two ends of the egress part of bench/run.sh (issue 14):
 * connection set-ups and a bulk transfer on the host's loopback, made
 * directly or from inside a jail through the stub's proxy.  Static (built
 * with musl-gcc like maxrss), so its own start is the same small cost on
 * both sides and nothing of an interpreter is in the figures.
 *
 *   netbench serve BYTES
 *	Listens on two free ports of 127.0.0.1, prints "SETUP BULK" and
 *	serves until killed: a connection to SETUP is accepted and closed; a
 *	connection to BULK gets BYTES bytes (from a forked child, so that
 *	transfers never wait on each other) and is closed.
 *
 *   netbench connect N PORT [PROXY]
 *	N connection set-ups to 127.0.0.1:PORT, one after the other, each
 *	closed at once.  With PROXY: each one is a connection to the proxy on
 *	127.0.0.1:PROXY, a CONNECT to 127.0.0.1:PORT and its 200 read, which
 *	is what a client behind the proxy waits for before its first byte.
 *
 *   netbench latency N PORT [PROXY]
 *	As connect, each set-up timed on its own (from socket() to the
 *	200, or to connect()'s return): prints "MEDIAN P99 MEAN" in µs, so
 *	that the tail is seen, not only the mean a total gives.
 *
 *   netbench bulk BYTES PORT [PROXY]
 *	Reads from 127.0.0.1:PORT (through the proxy's CONNECT with PROXY)
 *	until EOF.
 *
 * Exit status 0, or 1 with a line on stderr: a refused CONNECT or a short
 * transfer must not pass as a fast one. */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (1 << 20)

static char buf[CHUNK];

static void fail(const char *what)
{
	fprintf(stderr, "netbench: %s: %s\n", what, errno ? strerror(errno) : "unexpected answer");
	exit(1);
}

static struct sockaddr_in lo(unsigned port)
{
	return (struct sockaddr_in){.sin_family = AF_INET,
	                            .sin_port = htons((unsigned short)port),
	                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
}

static int listen_any(unsigned *port)
{
	struct sockaddr_in a = lo(0);
	socklen_t l = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	/* The set-up client makes thousands of connections in a row: a
	 * backlog the accept loop cannot drain would time the queue. */
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 4096) ||
	    getsockname(s, (struct sockaddr *)&a, &l))
		fail("listen on 127.0.0.1");
	*port = ntohs(a.sin_port);
	return s;
}

static void send_all(int c, unsigned long long bytes)
{
	while (bytes) {
		size_t n = bytes < CHUNK ? (size_t)bytes : CHUNK;
		ssize_t w = send(c, buf, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(1); /* the client went away: its own status says why */
		bytes -= (unsigned long long)w;
	}
	_exit(0);
}

static _Noreturn void serve(unsigned long long bytes)
{
	unsigned ps, pb;
	int ls = listen_any(&ps), lb = listen_any(&pb);
	struct sigaction sa = {.sa_handler = SIG_IGN, .sa_flags = SA_NOCLDWAIT};
	struct pollfd p[2] = {{.fd = ls, .events = POLLIN}, {.fd = lb, .events = POLLIN}};

	sigaction(SIGCHLD, &sa, NULL);
	printf("%u %u\n", ps, pb);
	fflush(stdout);
	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			fail("poll");
		}
		if (p[0].revents & POLLIN) {
			int c = accept4(ls, NULL, NULL, SOCK_CLOEXEC);

			if (c >= 0)
				close(c);
		}
		if (p[1].revents & POLLIN) {
			int c = accept4(lb, NULL, NULL, SOCK_CLOEXEC);

			if (c < 0)
				continue;
			if (fork() == 0) {
				/* killed with the server, not left sending */
				prctl(PR_SET_PDEATHSIG, SIGKILL);
				send_all(c, bytes);
			}
			close(c);
		}
	}
}

/* A connection to 127.0.0.1:port, through the proxy when there is one;
 * *extra: bytes of the tunnel that came with the proxy's 200. */
static int open_to(unsigned port, unsigned proxy, size_t *extra)
{
	struct sockaddr_in a = lo(proxy ? proxy : port);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char req[128];
	size_t n = 0;
	int len;

	*extra = 0;
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)))
		fail(proxy ? "connect to the proxy" : "connect");
	if (!proxy)
		return s;
	len = snprintf(req, sizeof(req),
	               "CONNECT 127.0.0.1:%u HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n", port, port);
	if (send(s, req, (size_t)len, MSG_NOSIGNAL) != len)
		fail("send the CONNECT");
	for (;;) {
		ssize_t r = recv(s, buf + n, 4096 - n, 0);
		char *e;

		if (r <= 0) {
			errno = r < 0 ? errno : 0;
			fail("read the proxy's answer");
		}
		n += (size_t)r;
		e = memmem(buf, n, "\r\n\r\n", 4);
		if (e) {
			errno = 0;
			if (n < 12 || memcmp(buf, "HTTP/1.1 200", 12))
				fail("the proxy refused the CONNECT");
			*extra = n - (size_t)(e + 4 - buf);
			return s;
		}
		if (n == 4096) {
			errno = 0;
			fail("the proxy's answer is too long");
		}
	}
}

static int connects(unsigned long n, unsigned port, unsigned proxy)
{
	size_t extra;

	for (unsigned long i = 0; i < n; i++)
		close(open_to(port, proxy, &extra));
	return 0;
}

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int latency(unsigned long n, unsigned port, unsigned proxy)
{
	double *t = calloc(n ? n : 1, sizeof(*t)), sum = 0;
	size_t extra;

	if (!t || !n)
		fail("latency: N");
	for (unsigned long i = 0; i < n; i++) {
		double t0 = now_us();
		int s = open_to(port, proxy, &extra);

		t[i] = now_us() - t0;
		sum += t[i];
		close(s);
	}
	qsort(t, n, sizeof(*t), cmp_d);
	printf("%.1f %.1f %.1f\n", t[n / 2], t[n * 99 / 100 < n ? n * 99 / 100 : n - 1], sum / n);
	return 0;
}

static int bulk(unsigned long long want, unsigned port, unsigned proxy)
{
	size_t extra;
	int s = open_to(port, proxy, &extra);
	unsigned long long got = extra;

	for (;;) {
		ssize_t r = recv(s, buf, CHUNK, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			fail("read the transfer");
		if (!r)
			break;
		got += (unsigned long long)r;
	}
	if (got != want) {
		fprintf(stderr, "netbench: received %llu bytes of %llu\n", got, want);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned port, proxy;

	if (argc == 3 && !strcmp(argv[1], "serve"))
		serve(strtoull(argv[2], NULL, 10));
	if ((argc == 4 || argc == 5) && (!strcmp(argv[1], "connect") || !strcmp(argv[1], "bulk") ||
	                                 !strcmp(argv[1], "latency"))) {
		port = (unsigned)strtoul(argv[3], NULL, 10);
		proxy = argc == 5 ? (unsigned)strtoul(argv[4], NULL, 10) : 0;
		if (!strcmp(argv[1], "latency"))
			return latency(strtoul(argv[2], NULL, 10), port, proxy);
		if (!strcmp(argv[1], "connect"))
			return connects(strtoul(argv[2], NULL, 10), port, proxy);
		return bulk(strtoull(argv[2], NULL, 10), port, proxy);
	}
	fprintf(stderr,
	        "usage: netbench serve BYTES | connect N PORT [PROXY] | latency N PORT [PROXY] | "
	        "bulk BYTES PORT [PROXY]\n");
	return 2;
}
