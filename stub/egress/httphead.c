/* httphead.c: the header lines of a plain-HTTP request through the
 * proxy (proxy.c): which it relays, and the length of the one body it
 * relays after them.  The proxy forwards one request per connection, so
 * the body's end must be known from the head; what the client sends
 * past it is never relayed. */
#include <string.h>

#include "egress/egress.h"

/* A Content-Length's value, between the colon and the line's end:
 * decimal digits only, with blanks around. */
static bool content_length(const char *p, const char *le, uint64_t *out)
{
	uint64_t v = 0;
	bool digit = false;

	while (p < le && (*p == ' ' || *p == '\t'))
		p++;
	for (; p < le && *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
		digit = true;
	}
	while (p < le && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	*out = v;
	return digit && p == le;
}

/* NAME: VALUE with no blank in the name, no CR but the line's last, no
 * NUL.  A host lenient where the proxy is strict ('Transfer-Encoding :',
 * a folded line, a bare CR) would read another body length than the one
 * the proxy relays, and find a second request in it. */
static bool header_sound(const char *l, const char *le)
{
	const char *colon = memchr(l, ':', (size_t)(le - l));

	if (!colon || colon == l)
		return false;
	for (const char *x = l; x < le; x++) {
		if (!*x || (*x == '\r' && x != le - 1))
			return false;
		if (x < colon && (*x == ' ' || *x == '\t'))
			return false;
	}
	return true;
}

static bool ieq(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char x = a[i] >= 'A' && a[i] <= 'Z' ? (char)(a[i] + 32) : a[i];

		if (x != b[i])
			return false;
	}
	return true;
}

enum http_verdict httphead_line(const char *l, const char *le, uint64_t *len, bool *has_len)
{
	size_t ll = (size_t)(le + 1 - l);
	uint64_t v;

	if (!header_sound(l, le))
		return HH_BAD;
	/* Chunked, or any coding: where the body ends is in the body. */
	if (ll > 18 && ieq(l, "transfer-encoding:", 18))
		return HH_BODY_UNBOUNDED;
	if (ll > 15 && ieq(l, "content-length:", 15)) {
		if (!content_length(l + 15, le, &v) || (*has_len && v != *len))
			return HH_BAD;
		*has_len = true;
		*len = v;
		return HH_KEEP;
	}
	/* The proxy's own, and Connection: it sends its own. */
	if ((ll > 6 && ieq(l, "proxy-", 6)) || (ll > 11 && ieq(l, "connection:", 11)) ||
	    (ll > 11 && ieq(l, "keep-alive:", 11)))
		return HH_DROP;
	return HH_KEEP;
}
