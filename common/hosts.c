/* hosts.c: the hosts of 'network allow': their one spelling, how a
 * request's host matches them, which addresses a name may not lead to,
 * and the host of a registry's URL.
 *
 * The compiler builds this same file (common/: built twice) to check a
 * policy's list, so that a policy, --jail-allow-host and a tool's
 * configuration are read by one grammar.  No allocation, no locale: plain
 * bytes, bounded by the caller's buffer. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "aj_table.h"
#include "common/hosts.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Labels of 1 to 63 letters, digits and '-' (not at either end), 253 in
 * all; the last one not all digits, so that no resolver reads a name as
 * an address (1.2.3, 0x7f.1, 2130706433). */
static const char *check_name(const char *s, size_t n, size_t *at)
{
	size_t label = 0;
	bool letter = false;

	if (!n)
		return "a host name is needed";
	if (n > 253)
		return *at = 253, "a host name is at most 253 characters";
	for (size_t i = 0; i <= n; i++) {
		char c = i < n ? s[i] : '.';

		if (c == '.') {
			if (!label)
				return *at = i, "a host name has no empty label";
			if (s[i - 1] == '-')
				return *at = i - 1, "a label of a host name does not end with '-'";
			if (i < n)
				letter = false;
			label = 0;
			continue;
		}
		if (!is_digit(c) && !(c >= 'a' && c <= 'z') && c != '-')
			return *at = i, "a host name is letters, digits, '-' and '.'";
		if (c == '-' && !label)
			return *at = i, "a label of a host name does not start with '-'";
		if (++label > 63)
			return *at = i, "a label of a host name is at most 63 characters";
		if (!is_digit(c))
			letter = true;
	}
	if (!letter)
		return *at = 0, "not an IPv4 address, nor a name (its last label is all digits)";
	return NULL;
}

/* RFC 5952's text of an IPv6 address (musl's inet_ntop would bring
 * printf into the stub): lower-case hex groups, the longest run of two or
 * more zero groups as "::".  out holds 40 bytes. */
static void v6_text(const uint8_t *b, char *out)
{
	static const char hex[] = "0123456789abcdef";
	int best = -1, best_n = 1;

	for (int i = 0; i < 8;) {
		int n = 0;

		while (i + n < 8 && !b[2 * (i + n)] && !b[2 * (i + n) + 1])
			n++;
		if (n > best_n)
			best = i, best_n = n;
		i += n ? n : 1;
	}
	for (int i = 0; i < 8; i++) {
		unsigned g = (unsigned)b[2 * i] << 8 | b[2 * i + 1];
		bool lead = true;

		if (i == best) {
			*out++ = ':';
			if (!i)
				*out++ = ':';
			i += best_n - 1;
			continue;
		}
		for (int sh = 12; sh >= 0; sh -= 4) {
			unsigned d = g >> sh & 0xf;

			if (d || !lead || !sh) {
				*out++ = hex[d];
				lead = false;
			}
		}
		if (i < 7)
			*out++ = ':';
	}
	*out = '\0';
}

const char *hosts_normal(const char *in, bool pattern, char *out, size_t size, size_t *at)
{
	char host[AJ_HOST_MAX];
	const char *h = in, *end, *colon;
	size_t hn, start = 0;
	unsigned long port = 443;
	bool v6 = false, wild = false;

	*at = 0;
	if (in[0] == '[') {
		end = strchr(in, ']');
		if (!end)
			return "an IPv6 address ends with ']'";
		h = in + 1;
		hn = (size_t)(end - h);
		colon = end[1] == ':' ? end + 1 : NULL;
		if (end[1] && !colon)
			return *at = (size_t)(end + 1 - in), "only ':PORT' may follow ']'";
		v6 = true;
	} else {
		colon = strrchr(in, ':');
		end = colon ? colon : in + strlen(in);
		hn = (size_t)(end - in);
	}
	if (colon) {
		const char *p = colon + 1;

		port = 0;
		if (!*p)
			return *at = (size_t)(p - in), "a port is needed after ':'";
		for (; *p; p++) {
			if (!is_digit(*p) || port > 65535)
				return *at = (size_t)(p - in), "a port is a number from 1 to 65535";
			port = port * 10 + (unsigned long)(*p - '0');
		}
		if (!port || port > 65535)
			return *at = (size_t)(colon + 1 - in), "a port is a number from 1 to 65535";
	}
	if (hn >= sizeof(host) - 8)
		return "the host is too long";
	for (size_t i = 0; i < hn; i++)
		host[i] = lower(h[i]);
	host[hn] = '\0';
	if (v6) {
		struct in6_addr a;

		if (inet_pton(AF_INET6, host, &a) != 1)
			return *at = 1, "not an IPv6 address";
		v6_text(a.s6_addr, host);
	} else if (hn > 1 && host[0] == '*' && host[1] == '.') {
		if (!pattern)
			return "a host to reach has no '*'";
		wild = true;
		start = 2;
	} else if (strchr(host, '*')) {
		return *at = (size_t)(strchr(host, '*') - host),
		       pattern
		           ? "'*' is allowed only as a whole first label, as in \"*.example.org\""
		           : "a host to reach has no '*'";
	}
	if (!v6) {
		struct in_addr a;

		if (wild || inet_pton(AF_INET, host, &a) != 1) {
			const char *why = check_name(host + start, hn - start, at);

			if (why) {
				*at += start;
				return why;
			}
			if (wild && !strchr(host + start, '.'))
				return *at = 2,
				       "'*.' covers the names below a domain: name one, as in "
				       "\"*.example.org\"";
		}
	}
	{
		char num[8];
		size_t l = strlen(host), pl = 0;

		for (unsigned long d = 10000; d; d /= 10)
			if (port >= d || pl || d == 1)
				num[pl++] = (char)('0' + port / d % 10);
		num[pl] = '\0';

		if (l + pl + 4 > size || l + pl + 4 > AJ_HOST_MAX)
			return "the host is too long";
		if (v6) {
			out[0] = '[';
			memcpy(out + 1, host, l);
			out[l + 1] = ']';
			l += 2;
		} else {
			memcpy(out, host, l);
		}
		out[l] = ':';
		memcpy(out + l + 1, num, pl + 1);
	}
	return NULL;
}

/* Both normal ("NAME:PORT"); target has no '*'. */
bool hosts_match(const char *pattern, const char *target)
{
	const char *pc = strrchr(pattern, ':'), *tc = strrchr(target, ':');
	size_t pl, tl;

	if (!pc || !tc || strcmp(pc, tc))
		return false;
	pl = (size_t)(pc - pattern);
	tl = (size_t)(tc - target);
	if (pl > 2 && pattern[0] == '*' && pattern[1] == '.')
		return tl > pl - 1 && !memcmp(target + tl - (pl - 1), pattern + 1, pl - 1);
	return pl == tl && !memcmp(pattern, target, pl);
}

bool hosts_literal(const char *target)
{
	char host[AJ_HOST_MAX];
	const char *c = strrchr(target, ':');
	size_t n = c ? (size_t)(c - target) : strlen(target);
	unsigned char a[16];

	if (n >= sizeof(host))
		return false;
	if (target[0] == '[')
		return true;
	memcpy(host, target, n);
	host[n] = '\0';
	return inet_pton(AF_INET, host, a) == 1;
}

static bool in4(uint32_t a, uint32_t net, unsigned bits)
{
	return (a ^ net) >> (32 - bits) == 0;
}

/* An address a name in the list may not lead to: the host's own, its
 * local networks', and the cloud's metadata service.  NULL for a public
 * one. */
const char *hosts_addr_refused(const struct sockaddr *sa)
{
	uint32_t a;

	if (sa->sa_family == AF_INET6) {
		const uint8_t *b =
		    ((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr;
		static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
		static const uint8_t zero[16];

		if (!memcmp(b, mapped, 12)) {
			a = (uint32_t)b[12] << 24 | (uint32_t)b[13] << 16 | (uint32_t)b[14] << 8 |
			    b[15];
			goto v4;
		}
		if (!memcmp(b, zero, 15) && b[15] <= 1)
			return b[15] ? "a loopback address" : "the unspecified address";
		if ((b[0] & 0xfe) == 0xfc)
			return "a unique-local (private) address";
		if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
			return "a link-local address";
		if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0)
			return "a site-local (private) address";
		if (b[0] == 0xff)
			return "a multicast address";
		/* NAT64 and 6to4 carry an IPv4 address that may be private. */
		if (b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b)
			return "a NAT64 address";
		if (b[0] == 0x20 && b[1] == 0x02)
			return "a 6to4 address";
		return NULL;
	}
	if (sa->sa_family != AF_INET)
		return "not an IP address";
	a = ntohl(((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr);
v4:
	if (a == 0xa9fea9feu)
		return "the cloud metadata address";
	if (in4(a, 0x7f000000u, 8))
		return "a loopback address";
	if (in4(a, 0x00000000u, 8))
		return "the unspecified address";
	if (in4(a, 0x0a000000u, 8) || in4(a, 0xac100000u, 12) || in4(a, 0xc0a80000u, 16))
		return "a private address";
	if (in4(a, 0x64400000u, 10))
		return "a shared (carrier-grade NAT) address";
	if (in4(a, 0xa9fe0000u, 16))
		return "a link-local address";
	if (in4(a, 0xc0000000u, 24))
		return "an IETF protocol address";
	if (in4(a, 0xc6120000u, 15))
		return "a benchmarking address";
	if (in4(a, 0xe0000000u, 4) || in4(a, 0xf0000000u, 4))
		return "a multicast or reserved address";
	return NULL;
}

/* "SCHEME://[USER@]HOST[:PORT][/…]" (a "sparse+" or "registry+" prefix
 * allowed, as cargo writes them) to "HOST:PORT"; http and https only.
 * Returns false for anything else. */
bool hosts_url_host(const char *url, size_t n, char *out, size_t size)
{
	char host[AJ_HOST_MAX];
	const char *p = url, *end = url + n, *auth, *stop;
	size_t at, hl;
	bool tls;

	for (const char *q = p; q + 1 < end; q++)
		if (*q == '+' && q < end - 8 && !memcmp(q + 1, "http", 4)) {
			p = q + 1;
			break;
		}
	if ((size_t)(end - p) > 8 && !memcmp(p, "https://", 8))
		tls = true, auth = p + 8;
	else if ((size_t)(end - p) > 7 && !memcmp(p, "http://", 7))
		tls = false, auth = p + 7;
	else
		return false;
	stop = auth;
	while (stop < end && *stop != '/' && *stop != '?' && *stop != '#')
		stop++;
	for (const char *q = stop; q > auth; q--)
		if (q[-1] == '@') {
			auth = q;
			break;
		}
	hl = (size_t)(stop - auth);
	if (!hl || hl + 5 >= sizeof(host))
		return false;
	memcpy(host, auth, hl);
	host[hl] = '\0';
	/* The scheme's port when none is written. */
	if (!strrchr(host, ':') || (host[0] == '[' && host[hl - 1] == ']'))
		memcpy(host + hl, tls ? ":443" : ":80", tls ? 5 : 4);
	return !hosts_normal(host, false, out, size, &at);
}

/* ---- DNS messages: the parent's own resolver (proxy.c) ------------------ */

size_t hosts_dns_query(const char *name, uint16_t type, uint16_t id, uint8_t *out, size_t size)
{
	size_t n = 12, nl = strlen(name);

	if (!nl || nl > 253 || 12 + nl + 2 + 4 > size)
		return 0;
	memset(out, 0, 12);
	out[0] = (uint8_t)(id >> 8);
	out[1] = (uint8_t)id;
	out[2] = 0x01; /* recursion desired */
	out[5] = 1;    /* one question */
	for (const char *p = name; *p;) {
		const char *dot = strchrnul(p, '.');
		size_t l = (size_t)(dot - p);

		if (!l || l > 63)
			return 0;
		out[n++] = (uint8_t)l;
		memcpy(out + n, p, l);
		n += l;
		p = *dot ? dot + 1 : dot;
	}
	out[n++] = 0;
	out[n++] = (uint8_t)(type >> 8);
	out[n++] = (uint8_t)type;
	out[n++] = 0;
	out[n++] = 1; /* class IN */
	return n;
}

/* Past one (possibly compressed) name at m[i]; 0 when it runs out. */
static size_t skip_name(const uint8_t *m, size_t n, size_t i)
{
	while (i < n) {
		if (!m[i])
			return i + 1;
		if ((m[i] & 0xc0) == 0xc0)
			return i + 2 <= n ? i + 2 : 0;
		if (m[i] & 0xc0)
			return 0;
		i += 1 + (size_t)m[i];
	}
	return 0;
}

int hosts_dns_answers(const uint8_t *m, size_t n, const uint8_t *q, size_t qn, uint8_t (*addr)[16],
                      int max)
{
	unsigned an;
	size_t i;
	int got = 0;
	uint16_t type;

	/* Our id, a response, the question we asked (the same bytes). */
	if (n < qn || qn < 17 || m[0] != q[0] || m[1] != q[1] || !(m[2] & 0x80) ||
	    memcmp(m + 4, q + 4, 2) || memcmp(m + 12, q + 12, qn - 12))
		return -1;
	if ((m[3] & 0x0f) == 3)
		return 0; /* no such name */
	if (m[3] & 0x0f)
		return -1;
	type = (uint16_t)(q[qn - 4] << 8 | q[qn - 3]);
	an = (unsigned)m[6] << 8 | m[7];
	i = qn;
	while (an-- && got < max) {
		unsigned rt, rc, rl;

		i = skip_name(m, n, i);
		if (!i || i + 10 > n)
			break;
		rt = (unsigned)m[i] << 8 | m[i + 1];
		rc = (unsigned)m[i + 2] << 8 | m[i + 3];
		rl = (unsigned)m[i + 8] << 8 | m[i + 9];
		i += 10;
		if (i + rl > n)
			break;
		if (rt == type && rc == 1 && rl == (type == 1 ? 4u : 16u)) {
			memset(addr[got], 0, 16);
			memcpy(addr[got++], m + i, rl);
		}
		i += rl;
	}
	return got;
}

uint32_t hosts_dns_ttl(const uint8_t *m, size_t n, size_t qn)
{
	unsigned an = n >= 12 ? (unsigned)m[6] << 8 | m[7] : 0;
	size_t i = qn;
	uint32_t least = UINT32_MAX;

	if (!an)
		return 0;
	while (an--) {
		uint32_t ttl;

		i = skip_name(m, n, i);
		if (!i || i + 10 > n)
			return 0; /* cut short: nothing to keep it by */
		ttl = (uint32_t)m[i + 4] << 24 | (uint32_t)m[i + 5] << 16 |
		      (uint32_t)m[i + 6] << 8 | m[i + 7];
		if (ttl > INT32_MAX)
			ttl = 0; /* RFC 2181: the top bit set reads as zero */
		if (ttl < least)
			least = ttl;
		i += 10 + ((size_t)m[i + 8] << 8 | m[i + 9]);
		if (i > n)
			return 0;
	}
	return least;
}
