/* request.c: the requests a jail sends to a bound host, read as a host
 * would read them, so that the key's value goes only where a placeholder
 * stood in a head the host will take as one request.
 *
 * Strict where hosts are lenient: a head that two parsers could split
 * differently (both Content-Length and Transfer-Encoding, a folded or
 * blank-named line, a bare CR or LF, a coding other than chunked) is
 * refused whole, as is a head over KEYS_HEAD_MAX.  Bodies pass as they
 * are; only their framing is followed, to find where the next head
 * starts. */
#include <string.h>

#include "keys/keys.h"

#define CHUNK_LINE_MAX 1024
#define TRAILERS_MAX   64

void keys_req_init(struct keys_req *q, const struct keys_bind *binds, unsigned n,
                   const char *target)
{
	memset(q, 0, offsetof(struct keys_req, head));
	q->out_n = 0, q->out_full = q->held = false;
	for (unsigned i = 0; i < n; i++)
		for (unsigned h = 0; h < binds[i].n_hosts; h++)
			if (!strcmp(binds[i].hosts[h], target) && q->n_binds < KEYS_MAX) {
				q->binds[q->n_binds++] = &binds[i];
				break;
			}
	q->state = KR_HEAD;
}

static bool ieq(const char *a, size_t n, const char *lower)
{
	if (strlen(lower) != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		char x = a[i] >= 'A' && a[i] <= 'Z' ? (char)(a[i] + 32) : a[i];

		if (x != lower[i])
			return false;
	}
	return true;
}

static bool tchar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

bool keys_placeholder_in(const char *b, size_t n, char *name, size_t name_max)
{
	static const char pre[] = "aijail-secret-";

	for (const char *p = b; p + sizeof(pre) - 1 <= b + n; p++) {
		const char *s, *e;

		p = memmem(p, (size_t)(b + n - p), pre, sizeof(pre) - 1);
		if (!p)
			return false;
		s = p + sizeof(pre) - 1;
		for (e = s; e < b + n && (tchar(*e) && *e != '-'); e++)
			;
		if (e == s || e >= b + n || *e != '-' || (size_t)(e - s) >= name_max)
			continue;
		if ((size_t)(b + n - e - 1) < KEYS_PH_RAND)
			continue;
		memcpy(name, s, (size_t)(e - s));
		name[e - s] = '\0';
		return true;
	}
	return false;
}

/* A head, built whole before any of it is sent (keys_req.out), or a
 * Basic value's decoded text. */
struct obuf {
	size_t *n;
	bool *full;
	char *d;
	size_t max;
};

static void put(struct obuf *o, const char *s, size_t n)
{
	if (*o->full || n > o->max - *o->n) {
		*o->full = true;
		return;
	}
	memcpy(o->d + *o->n, s, n);
	*o->n += n;
}

/* s[0..n) with every bound placeholder replaced by its value. */
static void put_replaced(struct obuf *o, const struct keys_req *q, const char *s, size_t n)
{
	while (n) {
		const char *best = NULL;
		const struct keys_bind *bb = NULL;

		for (unsigned i = 0; i < q->n_binds; i++) {
			const char *f = memmem(s, n, q->binds[i]->placeholder,
			                       strlen(q->binds[i]->placeholder));

			if (f && (!best || f < best))
				best = f, bb = q->binds[i];
		}
		if (!best) {
			put(o, s, n);
			return;
		}
		put(o, s, (size_t)(best - s));
		put(o, bb->value, strlen(bb->value));
		n -= (size_t)(best - s) + strlen(bb->placeholder);
		s = best + strlen(bb->placeholder);
	}
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int b64_val(char c)
{
	const char *p = c ? strchr(b64, c) : NULL;

	return p ? (int)(p - b64) : -1;
}

/* Standard base64 with padding; false: not that. */
static bool b64_decode(const char *s, size_t n, char *out, size_t max, size_t *len)
{
	size_t o = 0;

	if (n % 4)
		return false;
	for (size_t i = 0; i < n; i += 4) {
		int v[4];
		unsigned pad = 0;

		for (unsigned j = 0; j < 4; j++) {
			if (s[i + j] == '=' && i + 4 == n && j >= 2) {
				v[j] = 0, pad++;
				continue;
			}
			if (pad || (v[j] = b64_val(s[i + j])) < 0)
				return false;
		}
		if (o + 3 > max)
			return false;
		uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 |
		             (uint32_t)v[3];
		out[o++] = (char)(w >> 16);
		if (pad < 2)
			out[o++] = (char)(w >> 8);
		if (pad < 1)
			out[o++] = (char)w;
	}
	*len = o;
	return true;
}

static void b64_put(struct obuf *o, const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n; i += 3) {
		uint32_t w = (uint32_t)s[i] << 16 | (i + 1 < n ? (uint32_t)s[i + 1] << 8 : 0) |
		             (i + 2 < n ? s[i + 2] : 0);
		char q[4] = {b64[w >> 18 & 63], b64[w >> 12 & 63],
		             i + 1 < n ? b64[w >> 6 & 63] : '=', i + 2 < n ? b64[w & 63] : '='};

		put(o, q, 4);
	}
}

/* Authorization: Basic base64(user:PLACEHOLDER): decoded, replaced,
 * encoded again; false: not such a value (it is then replaced as text). */
static bool put_basic(struct obuf *o, const struct keys_req *q, const char *v, size_t n)
{
	static char dec[KEYS_HEAD_MAX], rd[KEYS_HEAD_MAX + 4 * KEYS_VALUE_MAX];
	static size_t rn;
	static bool rfull;
	struct obuf rep = {&rn, &rfull, rd, sizeof(rd)};
	size_t dl;

	if (n < 6 || !ieq(v, 6, "basic "))
		return false;
	if (!b64_decode(v + 6, n - 6, dec, sizeof(dec), &dl))
		return false;
	rn = 0, rfull = false;
	put_replaced(&rep, q, dec, dl);
	if (rfull || (rn == dl && !memcmp(rd, dec, dl)))
		return false;
	put(o, v, 6);
	b64_put(o, (const unsigned char *)rd, rn);
	return true;
}

static bool content_length(const char *p, const char *e, uint64_t *out)
{
	uint64_t v = 0;

	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	if (p == e)
		return false;
	for (; p < e; p++) {
		if (*p < '0' || *p > '9' || v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*out = v;
	return true;
}

/* No NUL, no CR or LF, no other control but tab. */
static bool clean(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 32 ? s[i] != '\t' : s[i] == 127)
			return false;
	return true;
}

/* The head q->head[0..end), its blank line included. */
static const char *head(struct keys_req *q, size_t end, keys_out_fn out, void *ctx)
{
	struct obuf o = {&q->out_n, &q->out_full, q->out, sizeof(q->out)};
	const char *h = q->head, *le, *sp1, *sp2;
	bool has_len = false, chunked = false, has_te = false;
	uint64_t len = 0;

	q->out_n = 0, q->out_full = false;
	le = memmem(h, end, "\r\n", 2);
	sp1 = memchr(h, ' ', (size_t)(le - h));
	sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(le - sp1 - 1)) : NULL;
	if (!sp2 || sp1 == h || !clean(h, (size_t)(le - h)) ||
	    ((size_t)(le - sp2 - 1) != 8 || memcmp(sp2 + 1, "HTTP/1.", 7) ||
	     (sp2[8] != '0' && sp2[8] != '1')))
		return "not an HTTP/1 request line";
	for (const char *c = h; c < sp1; c++)
		if (!tchar(*c))
			return "not an HTTP/1 request line";
	put_replaced(&o, q, h, (size_t)(le + 2 - h));
	for (const char *l = le + 2; l < h + end - 2; l = le + 2) {
		const char *colon, *v, *ve;

		le = memmem(l, (size_t)(h + end - l), "\r\n", 2);
		colon = memchr(l, ':', (size_t)(le - l));
		if (!colon || colon == l || !clean(l, (size_t)(le - l)))
			return "a malformed header line (folded, a bare CR or LF, a blank name)";
		for (const char *c = l; c < colon; c++)
			if (!tchar(*c))
				return "a malformed header name";
		v = colon + 1;
		ve = le;
		while (v < ve && (*v == ' ' || *v == '\t'))
			v++;
		while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
			ve--;
		if (ieq(l, (size_t)(colon - l), "content-length")) {
			uint64_t x;

			if (!content_length(v, ve, &x) || (has_len && x != len))
				return "a bad or a second, different Content-Length";
			has_len = true, len = x;
		} else if (ieq(l, (size_t)(colon - l), "transfer-encoding")) {
			if (has_te || !ieq(v, (size_t)(ve - v), "chunked"))
				return "a Transfer-Encoding other than one 'chunked'";
			has_te = chunked = true;
		}
		put(&o, l, (size_t)(v - l));
		if (!(ieq(l, (size_t)(colon - l), "authorization") &&
		      put_basic(&o, q, v, (size_t)(ve - v))))
			put_replaced(&o, q, v, (size_t)(ve - v));
		put(&o, "\r\n", 2);
	}
	if (has_len && has_te)
		return "both Content-Length and Transfer-Encoding (request smuggling)";
	put(&o, "\r\n", 2);
	if (q->out_full)
		return "the rewritten head is too long";
	if (chunked) {
		q->held = true;
		q->state = KR_CHUNK_SIZE;
		return NULL;
	}
	if (!out(ctx, q->out, q->out_n))
		return "the host is gone";
	if (len)
		q->state = KR_BODY, q->left = len;
	return NULL;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if ((c | 32) >= 'a' && (c | 32) <= 'f')
		return (c | 32) - 'a' + 10;
	return -1;
}

/* HEX[;ext] */
static const char *chunk_size(struct keys_req *q, const char *l, size_t n)
{
	uint64_t v = 0;
	size_t i = 0;

	for (; i < n && hexval(l[i]) >= 0; i++) {
		if (i >= 15)
			return "a chunk size too large";
		v = v * 16 + (uint64_t)hexval(l[i]);
	}
	if (!i || (i < n && l[i] != ';' && l[i] != ' ' && l[i] != '\t') || !clean(l, n))
		return "bad chunking (a malformed chunk size)";
	q->left = v;
	q->state = v ? KR_CHUNK_DATA : KR_TRAILER;
	return NULL;
}

const char *keys_req_feed(struct keys_req *q, const char *in, size_t n, keys_out_fn out, void *ctx)
{
	while (n) {
		size_t take;
		const char *why;

		switch (q->state) {
		case KR_BODY:
		case KR_CHUNK_DATA:
			take = n < q->left ? n : (size_t)q->left;
			if (!out(ctx, in, take))
				return "the host is gone";
			in += take, n -= take, q->left -= take;
			if (!q->left)
				q->state = q->state == KR_BODY ? KR_HEAD : KR_CHUNK_END;
			continue;
		case KR_CHUNK_END:
			q->head[q->n++] = *in++, n--;
			if (q->n < 2)
				continue;
			q->n = 0;
			if (memcmp(q->head, "\r\n", 2))
				return "bad chunking (no CRLF after a chunk's data)";
			if (!out(ctx, "\r\n", 2))
				return "the host is gone";
			q->state = KR_CHUNK_SIZE;
			continue;
		case KR_HEAD:
		case KR_CHUNK_SIZE:
		case KR_TRAILER: {
			size_t max = q->state == KR_HEAD ? sizeof(q->head) : CHUNK_LINE_MAX;
			/* The end may straddle two reads: look from 3 bytes back. */
			size_t from = q->n > 3 ? q->n - 3 : 0, end = 0;
			const char *mark = q->state == KR_HEAD ? "\r\n\r\n" : "\r\n";
			size_t ml = strlen(mark);

			take = n < max - q->n ? n : max - q->n;
			memcpy(q->head + q->n, in, take);
			for (size_t i = from; !end && i + ml <= q->n + take; i++)
				if (!memcmp(q->head + i, mark, ml))
					end = i + ml;
			if (!end) {
				q->n += take, in += take, n -= take;
				if (q->n == max)
					return q->state == KR_HEAD
					           ? "the request's head is over 16384 bytes"
					           : "bad chunking (a line too long)";
				continue;
			}
			in += end - q->n, n -= end - q->n;
			q->n = 0;
			if (q->state == KR_HEAD) {
				if ((why = head(q, end, out, ctx)))
					return why;
				continue;
			}
			if (q->state == KR_CHUNK_SIZE) {
				if ((why = chunk_size(q, q->head, end - 2)))
					return why;
				if (q->held && !out(ctx, q->out, q->out_n))
					return "the host is gone";
				q->held = false;
			} else if (end == 2) {
				q->state = KR_HEAD, q->trailer_lines = 0;
			} else if (++q->trailer_lines > TRAILERS_MAX ||
			           !memchr(q->head, ':', end) || !clean(q->head, end - 2)) {
				return "bad chunking (a malformed trailer)";
			}
			if (!out(ctx, q->head, end))
				return "the host is gone";
			continue;
		}
		}
	}
	return NULL;
}
