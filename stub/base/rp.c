/* rp.c: the one writer --jail-explain (and the refusal log) prints
 * through.  Each fact is written once, with its JSON key: the text form
 * prints the value and the prose around it (rp_t), the JSON form the key,
 * the value and the nesting (rp_open, rp_close).  Nothing is allocated: two
 * bits per open level say whether a comma is due and which bracket closes
 * it.  In base/ because every room that explains itself writes through it.
 *
 * Strings are escaped as RFC 8259 has it; a byte that does not begin a
 * well-formed UTF-8 sequence (an overlong form, a surrogate, past U+10FFFF,
 * a truncated one) is written \u00XX, so that any path becomes valid JSON
 * and each such byte stays visible (docs/explain.md). */
#include <string.h>

#include "base/base.h"

bool rp_json;
static uint32_t more;  /* bit d: level d has a member already */
static uint32_t array; /* bit d: level d is an array */
static unsigned depth;

static void key(const char *k)
{
	if (more & (1u << depth))
		out_c(',');
	more |= 1u << depth;
	if (k) {
		out_c('"');
		out_s(k);
		out_s("\":");
	}
}

void rp_open(const char *k, char kind)
{
	if (!rp_json)
		return;
	key(k);
	out_c(kind);
	depth++;
	more &= ~(1u << depth);
	array = kind == '[' ? array | 1u << depth : array & ~(1u << depth);
}

/* A new document at the top level: a log's next line. */
void rp_reset(void)
{
	more = array = 0;
	depth = 0;
}

void rp_close(void)
{
	if (!rp_json || !depth)
		return;
	out_c(array & (1u << depth) ? ']' : '}');
	depth--;
}

/* The length of the well-formed UTF-8 sequence at s (at most n bytes), or
 * 0: the ranges of RFC 3629's table. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

static void escaped(const char *str, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;

	out_c('"');
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t l;

		if (c == '"' || c == '\\') {
			out_c('\\');
			out_c((char)c);
		} else if (c == '\n') {
			out_s("\\n");
		} else if (c == '\t') {
			out_s("\\t");
		} else if (c >= 0x20 && c < 0x7f) {
			out_c((char)c);
		} else if (c >= 0x80 && (l = utf8_len(s + i, n - i))) {
			while (l--)
				out_c((char)s[i++]);
			continue;
		} else {
			out_s("\\u00");
			out_c(hex[c >> 4]);
			out_c(hex[c & 15]);
		}
		i++;
	}
	out_c('"');
}

void rp_strn(const char *k, const char *s, size_t n)
{
	if (!rp_json) {
		if (s)
			while (n--)
				out_c(*s++);
		return;
	}
	key(k);
	if (s)
		escaped(s, n);
	else
		out_s("null");
}

void rp_str(const char *k, const char *s)
{
	rp_strn(k, s, s ? strlen(s) : 0);
}

void rp_jstr(const char *k, const char *s)
{
	if (rp_json)
		rp_str(k, s);
}

void rp_u(const char *k, unsigned long long v)
{
	if (rp_json)
		key(k);
	out_u(v);
}

void rp_ju(const char *k, unsigned long long v)
{
	if (rp_json)
		rp_u(k, v);
}

void rp_bool(const char *k, bool b)
{
	if (!rp_json)
		return;
	key(k);
	out_s(b ? "true" : "false");
}

void rp_t(const char *s)
{
	if (!rp_json)
		out_s(s);
}

/* "name:" and the padding of a line of the text form. */
void rp_field(const char *name)
{
	size_t n = strlen(name) + 1;

	if (rp_json)
		return;
	out_s(name);
	out_c(':');
	do
		out_c(' ');
	while (++n < 11);
}
