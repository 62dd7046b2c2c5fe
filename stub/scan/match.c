/* match.c: one name against one step of the compiled matcher (struct
 * aj_step in include/aj_table.h).
 *
 * The compiler chose the cheapest form for each step and wrote globs as
 * token programs: nothing here reads glob syntax.  Names come from the
 * filesystem and are untrusted; every form is linear in the name except
 * the token program, which backtracks to its last star only (the usual
 * wildcard scheme, correct because every other token is one byte wide), so
 * its cost is bounded by name length times program length. */
#include <string.h>

#include "scan/scan.h"

static bool tokens_match(const uint8_t *p, const uint8_t *s, const uint8_t *end,
                         const uint8_t *sets)
{
	const uint8_t *star_p = NULL, *star_s = NULL;

	for (;;) {
		bool ok;

		if (*p == AJ_TOK_STAR) {
			star_p = ++p;
			star_s = s;
			continue;
		}
		if (s == end) {
			if (!*p)
				return true;
			goto back;
		}
		switch (*p) {
		case 0:
			goto back;
		case AJ_TOK_ONE:
			ok = true;
			p++;
			break;
		case AJ_TOK_SET:
			ok = sets[(p[1] - 1) * 32 + (*s >> 3)] & (1u << (*s & 7));
			p += 2;
			break;
		case AJ_TOK_LIT:
			ok = p[1] == *s;
			p += 2;
			break;
		default:
			ok = *p == *s;
			p++;
		}
		if (ok) {
			s++;
			continue;
		}
	back:
		if (!star_p || star_s == end)
			return false;
		p = star_p;
		s = ++star_s;
	}
}

bool match_step(const struct aj_scan *sc, const struct aj_step *st, const char *name, size_t len)
{
	const uint8_t *n = (const uint8_t *)name;

	if (len < st->min || len > st->max || (st->first && n[0] != st->first))
		return false;
	switch (st->op) {
	case AJ_NAME_EXACT:
	case AJ_NAME_PREFIX:
		return !memcmp(n, st->a, st->la);
	case AJ_NAME_SUFFIX:
		return !memcmp(n + len - st->lb, st->b, st->lb);
	case AJ_NAME_AFFIX:
		return !memcmp(n, st->a, st->la) && !memcmp(n + len - st->lb, st->b, st->lb);
	case AJ_NAME_ANY:
		return true;
	case AJ_NAME_GLOB:
		return tokens_match((const uint8_t *)st->a, n, n + len, sc->sets);
	}
	return false; /* AJ_NAME_GLOBSTAR names no entry of its own */
}

static char fold(char c)
{
	return (char)(c >= 'A' && c <= 'Z' ? c + 'a' - 'A' : c);
}

/* A nocase step sees the name lowered; the lowering is done once per name,
 * and only for a name that passes such a step's quick filter. */
static bool try_step(const struct aj_scan *sc, const struct aj_step *st, const char *name,
                     size_t len, char *low)
{
	if (st->flags & AJ_NAME_NOCASE) {
		if (len < st->min || len > st->max ||
		    (st->first && fold(name[0]) != (char)st->first))
			return false;
		if (!low[0])
			for (size_t i = 0; i <= len; i++)
				low[i] = fold(name[i]);
		name = low;
	}
	return match_step(sc, st, name, len);
}

uint8_t match_classify(const struct aj_scan *sc, const char *name, size_t len, bool isdir,
                       uint64_t state, uint64_t *inside)
{
	char low[256];
	uint64_t next = 0;
	uint8_t kind = 0;

	low[0] = '\0';
	if (len >= sizeof(low))
		return 0; /* longer than any name the kernel allows */
	for (unsigned i = 0; i < sc->n_floating; i++) {
		const struct aj_step *st = &sc->floating[i];

		if (st->kind <= kind || ((st->flags & AJ_NAME_DIR) && !isdir))
			continue;
		if (try_step(sc, st, name, len, low))
			kind = st->kind;
	}
	for (; state; state &= state - 1) {
		const struct aj_step *st = &sc->steps[__builtin_ctzll(state)];

		if (st->op == AJ_NAME_GLOBSTAR) {
			next |= st->next;
			continue;
		}
		if (st->kind ? st->kind <= kind || ((st->flags & AJ_NAME_DIR) && !isdir) : !isdir)
			continue;
		if (!try_step(sc, st, name, len, low))
			continue;
		if (st->kind)
			kind = st->kind;
		else
			next |= st->next;
	}
	*inside = isdir ? next : 0;
	return kind;
}
