/* upstream.c: a corporate proxy upstream of the jail's egress, in the
 * stub's parent.
 *
 * Behind such a proxy a host reaches nothing directly, so the parent's
 * outbound connections for the jail go through it: upstream_read() takes
 * it from the caller's environment (https_proxy, HTTPS_PROXY, http_proxy,
 * HTTP_PROXY, no_proxy, NO_PROXY: the lower-case spelling first, as curl
 * and Python read them); upstream_for() says whether a target goes
 * through it; the caller connects to upstream_addrs(), sends
 * upstream_send()'s CONNECT and waits for upstream_answer().  Everything
 * dialled for the jail goes through these, so that a relay beside the
 * proxy reaches the same upstream.  The forwards never do: they are the
 * host's own loopback ports.
 *
 * The jail never sees any of it: its own proxy variables stay the stub's
 * (egress.c), and the credentials of the URL are sent to the upstream
 * only, as Proxy-Authorization; no message, log line or --jail-explain
 * prints them, only the upstream's HOST:PORT. */
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "egress/egress.h"

#define UP_AUTH    512 /* "Basic " and base64 of USER:PASS (UP_CRED bytes) */
#define UP_CRED    360
#define UP_NO      32 /* NO_PROXY entries */
#define UP_NO_NAME 256

struct upstream {
	const char *var;          /* the variable it came from */
	char host[AJ_HOST_MAX];   /* a name or an address, no brackets */
	char target[AJ_HOST_MAX]; /* normal HOST:PORT: what messages name */
	unsigned port;
	char auth[UP_AUTH]; /* "" without credentials */
};

static struct upstream up_https, up_http; /* var NULL: none */
static char no_proxy[UP_NO][UP_NO_NAME];
static unsigned n_no;
static bool no_all;

/* The host of a normal HOST:PORT, without brackets, in host; its ':'. */
static const char *host_of(const char *target, char *host)
{
	const char *colon = strrchr(target, ':'), *h = target[0] == '[' ? target + 1 : target;
	size_t hl = (size_t)(colon - h) - (target[0] == '[');

	memcpy(host, h, hl);
	host[hl] = '\0';
	return colon;
}

static int unhex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* s (n bytes, %XX decoded, as a URL's user and password are written) at
 * out + at; the new end, or SIZE_MAX when it does not fit or is badly
 * escaped. */
static size_t decode(const char *s, size_t n, char *out, size_t at, size_t size)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (c == '%') {
			int h = i + 2 < n ? unhex(s[i + 1]) : -1,
			    l = i + 2 < n ? unhex(s[i + 2]) : -1;

			if (h < 0 || l < 0)
				return SIZE_MAX;
			c = (char)(h << 4 | l);
			i += 2;
		}
		if (at + 1 >= size)
			return SIZE_MAX;
		out[at++] = c;
	}
	return at;
}

static void base64(const unsigned char *in, size_t n, char *out)
{
	static const char tab[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;

	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)in[i] << 16 | (i + 1 < n ? (unsigned)in[i + 1] << 8 : 0) |
		             (i + 2 < n ? in[i + 2] : 0);

		out[o++] = tab[v >> 18 & 63];
		out[o++] = tab[v >> 12 & 63];
		out[o++] = i + 1 < n ? tab[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? tab[v & 63] : '=';
	}
	out[o] = '\0';
}

/* The URL of var: http://[USER[:PASS]@]HOST[:PORT][/], or HOST[:PORT]
 * (an http proxy, as curl takes it).  A bad one ends the run naming the
 * variable only: its value may hold a password. */
static void parse(struct upstream *u, const char *var, const char *url)
{
	char hp[AJ_HOST_MAX + 8], cred[UP_CRED];
	const char *p = url, *at, *end, *why = NULL;
	size_t n, c = 0, pos;

	if (strstr(p, "://")) {
		if (strncasecmp(p, "http://", 7))
			why = "only an http:// proxy is supported (not https:// nor socks)";
		p = strstr(p, "://") + 3;
	}
	end = p + strcspn(p, "/?#");
	if (!why && *end && strcmp(end, "/"))
		why = "nothing but '/' may follow its HOST:PORT";
	at = memrchr(p, '@', (size_t)(end - p));
	if (!why && at) {
		const char *colon = memchr(p, ':', (size_t)(at - p));

		/* USER alone is USER with an empty password, as curl sends it */
		c = decode(p, (size_t)((colon ? colon : at) - p), cred, 0, sizeof(cred));
		if (c != SIZE_MAX && c + 1 < sizeof(cred)) {
			cred[c++] = ':';
			c = colon
			        ? decode(colon + 1, (size_t)(at - colon - 1), cred, c, sizeof(cred))
			        : c;
		} else {
			c = SIZE_MAX;
		}
		if (c == SIZE_MAX)
			why = "its user or password is too long or badly %-escaped";
		p = at + 1;
	}
	n = (size_t)(end - p);
	if (!why && (!n || n >= sizeof(hp) - 8))
		why = "a proxy URL names a host";
	if (!why) {
		/* ':80' when none is written, the port of http:// */
		memcpy(hp, p, n);
		hp[n] = '\0';
		if (hp[0] == '[' ? !strstr(hp, "]:") : !strchr(hp, ':'))
			memcpy(hp + n, ":80", 4);
		why = hosts_normal(hp, false, u->target, sizeof(u->target), &pos);
	}
	if (why)
		diep("read the upstream proxy of", var, 0, why);
	u->var = var;
	u->port = 0;
	for (const char *d = host_of(u->target, u->host) + 1; *d; d++)
		u->port = u->port * 10 + (unsigned)(*d - '0');
	u->auth[0] = '\0';
	if (at) {
		memcpy(u->auth, "Basic ", 6);
		base64((const unsigned char *)cred, c, u->auth + 6);
	}
	explicit_bzero(cred, sizeof(cred));
}

static const char *first(char *const *envp, const char *lower, const char *upper, const char **var)
{
	const char *v = env_get(envp, lower);

	*var = lower;
	if (!v || !*v) {
		v = env_get(envp, upper);
		*var = upper;
	}
	return v && *v ? v : NULL;
}

void upstream_read(char *const *envp)
{
	const char *var, *v;

	up_https.var = up_http.var = NULL;
	if ((v = first(envp, "https_proxy", "HTTPS_PROXY", &var)))
		parse(&up_https, var, v);
	if ((v = first(envp, "http_proxy", "HTTP_PROXY", &var)))
		parse(&up_http, var, v);
	n_no = 0;
	no_all = false;
	for (v = first(envp, "no_proxy", "NO_PROXY", &var); v && *v;) {
		size_t l = strcspn(v, ", \t");

		no_all |= l == 1 && *v == '*';
		if (l && l < UP_NO_NAME && n_no < UP_NO) {
			/* ".example.org" and "*.example.org" as "example.org" */
			size_t skip = *v == '.' ? 1 : (l > 2 && v[0] == '*' && v[1] == '.') ? 2 : 0;

			for (size_t i = skip; i < l; i++)
				no_proxy[n_no][i - skip] =
				    (char)(v[i] >= 'A' && v[i] <= 'Z' ? v[i] | 0x20 : v[i]);
			no_proxy[n_no][l - skip] = '\0';
			n_no++;
		}
		v += l;
		v += strspn(v, ", \t");
	}
}

/* Does the NO_PROXY entry e name host (no port, no brackets)? A name
 * matches itself and every name under it; an address itself; A/BITS the
 * addresses in it (a literal target only: a name's address is the
 * upstream's to find). */
static bool no_match(const char *e, const char *host)
{
	const char *slash = strchr(e, '/');
	unsigned char want[16], got[16];
	size_t hl = strlen(host), el = strlen(e);

	if (slash) {
		char net[64];
		size_t nl = (size_t)(slash - e);
		unsigned bits = 0;
		int fam;

		if (nl >= sizeof(net))
			return false;
		memcpy(net, e, nl);
		net[nl] = '\0';
		fam = strchr(net, ':') ? AF_INET6 : AF_INET;
		for (const char *d = slash + 1; *d; d++)
			if (*d < '0' || *d > '9' || (bits = bits * 10 + (unsigned)(*d - '0')) > 128)
				return false;
		if (!slash[1] || bits > (fam == AF_INET ? 32u : 128u) ||
		    inet_pton(fam, net, want) != 1 || inet_pton(fam, host, got) != 1)
			return false;
		for (unsigned i = 0; i < bits; i++)
			if ((want[i / 8] ^ got[i / 8]) & (0x80 >> (i % 8)))
				return false;
		return true;
	}
	if (e[0] == '[' && el > 2 && e[el - 1] == ']') {
		char a[64];

		if (el - 2 >= sizeof(a))
			return false;
		memcpy(a, e + 1, el - 2);
		a[el - 2] = '\0';
		return inet_pton(AF_INET6, a, want) == 1 && inet_pton(AF_INET6, host, got) == 1 &&
		       !memcmp(want, got, 16);
	}
	if (strchr(e, ':') && inet_pton(AF_INET6, e, want) == 1)
		return inet_pton(AF_INET6, host, got) == 1 && !memcmp(want, got, 16);
	return hl >= el && !strcmp(host + hl - el, e) && (hl == el || host[hl - el - 1] == '.');
}

const struct upstream *upstream_for(const char *target, bool plain)
{
	const struct upstream *u = plain ? &up_http : &up_https;
	char host[AJ_HOST_MAX];

	if (!u->var || no_all)
		return NULL;
	host_of(target, host);
	for (unsigned i = 0; i < n_no; i++)
		if (no_match(no_proxy[i], host))
			return NULL;
	return u;
}

void upstream_addrs(const struct upstream *u, struct px_addrs *out)
{
	struct in6_addr a6;
	struct in_addr a4;

	resolver_lookup(out, u->host, u->port,
	                inet_pton(AF_INET6, u->host, &a6) == 1 ||
	                    inet_pton(AF_INET, u->host, &a4) == 1);
}

const char *upstream_name(const struct upstream *u)
{
	return u->target;
}

bool upstream_send(int fd, const struct upstream *u, const char *target)
{
	char req[2 * AJ_HOST_MAX + UP_AUTH + 96];
	size_t n = 0;
	const char *part[] = {"CONNECT ",
	                      target,
	                      " HTTP/1.1\r\nHost: ",
	                      target,
	                      "\r\n",
	                      u->auth[0] ? "Proxy-Authorization: " : "",
	                      u->auth,
	                      u->auth[0] ? "\r\n" : "",
	                      "\r\n"};

	for (unsigned i = 0; i < sizeof(part) / sizeof(part[0]); i++)
		n = out_str_put(req, n, part[i]);
	ssize_t w = send(fd, req, n, MSG_NOSIGNAL | MSG_DONTWAIT);

	explicit_bzero(req, sizeof(req));
	return w == (ssize_t)n;
}

/* Why the upstream failed, naming it and never its credentials. */
static const char *failed(const struct upstream *u, const char *what, const char *code)
{
	static char msg[AJ_HOST_MAX + 96];
	size_t n = 0;

	n = out_str_put(msg, n, "the upstream proxy ");
	n = out_str_put(msg, n, u->target);
	n = out_str_put(msg, n, " ");
	n = out_str_put(msg, n, what);
	out_str_put(msg, n, code);
	return msg;
}

const char *upstream_unreachable(const struct upstream *u)
{
	return failed(u, "did not answer", "");
}

const char *upstream_answer(int fd, const struct upstream *u, char *buf, size_t size, size_t *got,
                            bool *denied)
{
	/* Peeked, then only the head taken: what follows it is the host's
	 * (an ssh server speaks first) and stays for the relay. */
	ssize_t r = recv(fd, buf + *got, size - *got - 1, MSG_PEEK | MSG_DONTWAIT);
	size_t from = *got > 3 ? *got - 3 : 0, take;
	char *end = NULL, code[4] = "";

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return "";
	if (r <= 0)
		return failed(u, "closed the connection before it answered", "");
	for (size_t i = from; !end && i + 4 <= *got + (size_t)r; i++)
		if (!memcmp(buf + i, "\r\n\r\n", 4))
			end = buf + i + 4;
	take = end ? (size_t)(end - buf) - *got : (size_t)r;
	if (recv(fd, buf + *got, take, MSG_DONTWAIT) != (ssize_t)take)
		return failed(u, "closed the connection before it answered", "");
	*got += take;
	if (!end)
		return *got + 1 >= size ? failed(u, "answered with too long a head", "") : "";
	if (*got < 12 || memcmp(buf, "HTTP/1.", 7) || buf[8] != ' ')
		return failed(u, "answered something else than HTTP", "");
	memcpy(code, buf + 9, 3);
	*denied = code[0] == '4';
	return code[0] == '2' ? NULL : failed(u, "refused the connection: ", code);
}

/* Inside --jail-explain's "network" object. */
void upstream_explain(void)
{
	if (!up_https.var && !up_http.var)
		return;
	rp_t("\n\t\tthen through the upstream proxy ");
	rp_open("upstream", '{');
	if (up_https.var) {
		rp_str("https", up_https.target);
		rp_t(" (");
		rp_str("https_from", up_https.var);
		rp_t(") for CONNECT");
	}
	if (up_http.var) {
		rp_t(up_https.var ? ", " : "");
		rp_str("http", up_http.target);
		rp_t(" (");
		rp_str("http_from", up_http.var);
		rp_t(") for plain http://");
	}
	rp_open("no_proxy", '[');
	for (unsigned i = 0; i < n_no; i++) {
		rp_t(i ? ", " : "; directly: ");
		rp_str(NULL, no_proxy[i]);
	}
	rp_close();
	rp_close();
}
