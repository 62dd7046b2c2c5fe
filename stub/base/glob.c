/* glob.c: the glob matcher of the environment allowlist and of device
 * names.  Mask, deny and prune patterns never come here: the compiler
 * lowers them (stub/scan/match.c).
 *
 *   *      any run of characters except '/'
 *   **     as a whole path segment ("**" + "/", "/" + "**" at the end, or
 *          alone): any number of segments, including none; elsewhere it is '*'
 *   ?      one character except '/'
 *   [...]  one character of a set: ranges "a-z", negation "!" or "^", a ']'
 *          first is literal; never '/'
 *   \c     the character c
 *
 * Names come from the filesystem and are untrusted; patterns come from the
 * compiled policy.  A single '*' backtracks to its last position only (the
 * usual linear scheme); "**" tries each segment boundary, so the cost is
 * bounded by the number of "**" in a pattern, not by the input. */
#include <string.h>

#include "base/base.h"

/* Returns 1 on a match, 0 on a miss, -1 when the set is unterminated (the
 * caller then treats '[' as an ordinary character). */
static int match_set(const char **pp, unsigned char c)
{
	const char *p = *pp + 1;
	const char *first;
	int neg = 0, hit = 0;

	if (*p == '!' || *p == '^') {
		neg = 1;
		p++;
	}
	first = p;
	for (;;) {
		unsigned char lo, hi;

		if (!*p)
			return -1;
		if (*p == ']' && p != first)
			break;
		if (*p == '\\' && p[1])
			p++;
		lo = (unsigned char)*p++;
		hi = lo;
		if (*p == '-' && p[1] && p[1] != ']') {
			p++;
			if (*p == '\\' && p[1])
				p++;
			hi = (unsigned char)*p++;
		}
		if (lo <= c && c <= hi)
			hit = 1;
	}
	*pp = p + 1;
	return hit != neg;
}

static bool is_globstar(const char *pat, const char *p)
{
	return p[0] == '*' && p[1] == '*' && (p == pat || p[-1] == '/') &&
	       (p[2] == '/' || p[2] == '\0');
}

static bool match_from(const char *pat, const char *p, const char *s)
{
	const char *star_p = NULL, *star_s = NULL;

	for (;;) {
		if (is_globstar(pat, p)) {
			if (!p[2])
				return true;
			for (p += 3;;) {
				if (match_from(pat, p, s))
					return true;
				s = strchr(s, '/');
				if (!s)
					break;
				s++;
			}
			goto backtrack;
		}
		if (*p == '*') {
			while (*p == '*')
				p++;
			star_p = p;
			star_s = s;
			continue;
		}
		if (!*s) {
			if (!*p)
				return true;
			goto backtrack;
		}
		switch (*p) {
		case '\0':
			goto backtrack;
		case '?':
			if (*s == '/')
				goto backtrack;
			p++;
			s++;
			continue;
		case '[': {
			const char *q = p;
			int r = match_set(&q, (unsigned char)*s);
			if (r == 0 || (r > 0 && *s == '/'))
				goto backtrack;
			if (r > 0) {
				p = q;
				s++;
				continue;
			}
			break; /* unterminated: a literal '[' */
		}
		case '\\':
			if (p[1])
				p++;
			break;
		}
		if (*p != *s)
			goto backtrack;
		p++;
		s++;
		continue;
	backtrack:
		if (!star_p || !*star_s || *star_s == '/')
			return false;
		p = star_p;
		s = ++star_s;
	}
}

bool glob_match(const char *pattern, const char *s)
{
	return match_from(pattern, pattern, s);
}
