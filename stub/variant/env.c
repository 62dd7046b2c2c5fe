/* env.c: the target's environment.  It starts empty; host variables whose
 * name matches a keep pattern and no drop pattern are copied (the first of
 * duplicates only, as getenv(3) would see it; a toggle's patterns count as
 * the run has it, aj_env_span.toggle), then the policy's fixed assignments
 * replace or add theirs.  Nothing is allocated: kept entries point at the host's
 * strings, assignments are written into the caller's buffer. */
#include <errno.h>
#include <string.h>

#include "variant/variant.h"

static size_t name_len(const char *entry)
{
	const char *eq = strchr(entry, '=');

	return eq ? (size_t)(eq - entry) : 0;
}

static bool same_name(const char *entry, const char *name, size_t n)
{
	return !strncmp(entry, name, n) && entry[n] == '=';
}

bool env_span_counts(const struct aj_env_span *s, const struct aj_variant *v, bool drop)
{
	return !s->toggle || !(v->features & AJ_TOGGLE_BIT(s->toggle - 1)) == drop;
}

/* Does a pattern of the list (its spans, shared between variants) match? */
static bool listed(const struct aj_env_span *spans, unsigned n, const char *name,
                   const struct aj_variant *v, bool drop)
{
	for (unsigned r = 0; r < n; r++)
		for (unsigned i = 0; env_span_counts(&spans[r], v, drop) && i < spans[r].n; i++)
			if (glob_match(spans[r].v[i], name))
				return true;
	return false;
}

static bool kept(const char *entry, size_t n, const struct aj_variant *v)
{
	char name[256];

	if (n >= sizeof(name))
		return false; /* no policy names a variable that long */
	memcpy(name, entry, n);
	name[n] = '\0';
	return !listed(v->env_drop, v->n_env_drop, name, v, true) &&
	       listed(v->env_keep, v->n_env_keep, name, v, false);
}

static bool set_by_policy(const char *entry, const struct aj_variant *v)
{
	for (unsigned i = 0; i < v->n_env_set; i++)
		if (same_name(entry, v->env_set[i].name, strlen(v->env_set[i].name)))
			return true;
	return false;
}

static bool seen(char **envp, size_t count, const char *entry, size_t n)
{
	for (size_t i = 0; i < count; i++)
		if (same_name(envp[i], entry, n))
			return true;
	return false;
}

/* Returns the number of variables, or -1 with errno E2BIG when envp (max
 * slots, the terminating NULL included) or buf is too small. */
int env_build(char *const *host, const struct aj_variant *v, char **envp, size_t max, char *buf,
              size_t bufsz)
{
	size_t count = 0, used = 0;

	if (!max)
		goto full;
	for (; host && *host; host++) {
		size_t n = name_len(*host);

		if (!n || !kept(*host, n, v) || set_by_policy(*host, v) ||
		    seen(envp, count, *host, n))
			continue;
		if (count + 1 >= max)
			goto full;
		envp[count++] = *host;
	}
	for (unsigned i = 0; i < v->n_env_set; i++) {
		const struct aj_env_set *s = &v->env_set[i];
		size_t n = strlen(s->name);
		int l;

		if (used + n + 1 >= bufsz)
			goto full;
		memcpy(buf + used, s->name, n);
		buf[used + n] = '=';
		l = vars_path_join(&s->value, buf + used + n + 1, bufsz - used - n - 1);
		if (l == AJ_PATH_UNRESOLVED)
			continue; /* an unknown value is left unset, never made up */
		if (l < 0 || count + 1 >= max)
			goto full;
		envp[count++] = buf + used;
		used += n + 1 + (size_t)l + 1;
	}
	envp[count] = NULL;
	return (int)count;
full:
	errno = E2BIG;
	return -1;
}

const char *env_get(char *const *envp, const char *name)
{
	size_t n = strlen(name);

	for (; *envp; envp++)
		if (same_name(*envp, name, n))
			return *envp + n + 1;
	return NULL;
}
