/* settings.c: the keys a block may hold, where each is allowed and which
 * handler lowers it into changes; the settings that take one value and
 * have no concern of their own, and the numbers of M_SCALARS (variant.h).
 *
 * A block is lowered once, whatever the number of variants that replay it
 * (replay.c); within one block, the same thing said twice is an error. */
#include "settings.h"
#include "args.h"
#include "bounds.h"
#include "diag.h"
#include "environment.h"
#include "mounts.h"
#include "namespaces.h"
#include "network.h"
#include "patterns.h"
#include "syscalls.h"
#include "toggles.h"

#include <stdlib.h>
#include <string.h>

#define IN_POLICY  (1u << BLOCK_POLICY)
#define IN_MODE    (1u << BLOCK_MODE)
#define IN_COMMAND (1u << BLOCK_COMMAND)
#define IN_BLOCKS  (IN_POLICY | IN_MODE | IN_COMMAND)

static lower_fn lower_hostname, lower_landlock, lower_scalar, lower_fallback;

/* A key, as the table holds it.  lower NULL: a structure key. */
struct setting {
	const char *name;
	lower_fn *lower;
	unsigned where; /* IN_* */
	int arg;        /* handed to the handler (struct lowering.arg) */
};

/* In the order suggestions prefer.  A mount op is a key when mounts.c
 * says a policy writes it, with the suffixes it says. */
/* clang-format off */
#define MOUNT_SETTING(id, name, ...)  {name, mounts_lower, IN_BLOCKS, id},
#define TOGGLE_SETTING(id, name, ...) {name, toggles_lower, IN_BLOCKS, id},
#define SCALAR_SETTING(key, ...)       {#key, lower_scalar, IN_BLOCKS, M_SCALAR_##key},
static const struct setting settings[] = {
	{"hostname", lower_hostname, IN_BLOCKS, 0},
	{"network", network_lower, IN_BLOCKS, 0},
	{"forward", network_forward_lower, IN_BLOCKS, 0},
	{"publish", publish_lower, IN_BLOCKS, 0},
	{"secret", keys_lower, IN_BLOCKS, 0},
	{"landlock", lower_landlock, IN_BLOCKS, 0},
	AJ_MOUNT_OPS(MOUNT_SETTING)
	{"mask", patterns_lower, IN_BLOCKS, AJ_PATTERN_MASK},
	{"deny", patterns_lower, IN_BLOCKS, AJ_PATTERN_DENY},
	{"scan", patterns_scan_lower, IN_BLOCKS, 0},
	{"env", environment_lower, IN_BLOCKS, 0},
	{"rlimit", bounds_rlimit_lower, IN_BLOCKS, 0},
	{"limit", bounds_limit_lower, IN_BLOCKS, 0},
	M_SCALARS(SCALAR_SETTING)
	{"syscalls", syscalls_lower, IN_BLOCKS, 0},
	{"namespaces", namespaces_lower, IN_BLOCKS, 0},
	{"fallback", lower_fallback, IN_BLOCKS, 0},
	AJ_TOGGLES(TOGGLE_SETTING)
	{"exec", NULL, IN_POLICY, 0},
	{"mode", NULL, IN_POLICY, 0},
	{"command", NULL, IN_POLICY, 0},
	{"default", NULL, IN_POLICY, 0},
};
/* clang-format on */

static bool is_key(const struct setting *k)
{
	return k->lower != mounts_lower || mounts_written(k->arg);
}

/* The key's row, and the flags its suffix gives; NULL for none. */
static const struct setting *setting_find(const char *key, int *flags)
{
	*flags = 0;
	size_t len = strlen(key);
	for (size_t i = 0; i < N(settings); i++) {
		const struct setting *k = &settings[i];
		if (!is_key(k) || strncmp(key, k->name, strlen(k->name)) != 0)
			continue;
		if (len == strlen(k->name))
			return k;
		if (k->lower == mounts_lower && len == strlen(k->name) + 1 &&
		    strchr(mounts_suffixes(k->arg), key[len - 1])) {
			*flags = mounts_suffix_flag(key[len - 1]);
			return k;
		}
	}
	return NULL;
}

/* Every key's name, settings first: what a suggestion is chosen from.
 * Made once and kept outside the arena, like the table it lists. */
static const char *const *setting_names(size_t *n, size_t *n_settings)
{
	static const char *names[N(settings) * 3];
	static char suffixed[N(settings) * 2][16];
	static size_t count, settings_count, n_suffixed;
	if (!count) {
		for (int structure = 0; structure < 2; structure++) {
			for (size_t i = 0; i < N(settings); i++) {
				const struct setting *k = &settings[i];
				if (!is_key(k) || (k->lower == NULL) != structure)
					continue;
				names[count++] = k->name;
				if (k->lower != mounts_lower)
					continue;
				for (const char *c = mounts_suffixes(k->arg); *c; c++) {
					char *name = suffixed[n_suffixed++];
					snprintf(name, sizeof(suffixed[0]), "%s%c", k->name, *c);
					names[count++] = name;
				}
			}
			if (!structure)
				settings_count = count;
		}
	}
	*n = count;
	*n_settings = settings_count;
	return names;
}

static void unknown_key(const struct stmt *s, const struct setting *k, enum block_kind kind)
{
	if (k) {
		diag_error_at(&s->loc,
		              "'%s' is only allowed directly in a policy, not inside a %s block",
		              s->key, kind == BLOCK_MODE ? "mode" : "command");
		return;
	}
	size_t n, n_settings;
	const char *const *all = setting_names(&n, &n_settings);
	const char *hint = diag_suggest(s->key, all, n);
	if (hint)
		diag_error_at(&s->loc, "unknown key '%s'; did you mean '%s'?", s->key, hint);
	else
		diag_error_at(&s->loc, "unknown key '%s'", s->key);
}

bool settings_block_lower(const struct stmt *list, enum block_kind kind, change_list *out)
{
	struct lowering lw = {.kind = kind, .first = list, .out = out};
	size_t n_names;
	lw.keys = setting_names(&n_names, &lw.n_keys);
	bool ok = true;
	for (const struct stmt *s = list; s; s = s->next) {
		int flags;
		const struct setting *k = setting_find(s->key, &flags);
		if (k && k->lower && s->has_block) {
			diag_error_at(&s->end, "'%s' takes no block", s->key);
			ok = false;
		} else if (k && k->lower) {
			lw.arg = k->arg;
			lw.flags = flags;
			ok = k->lower(&lw, s) && ok;
		} else if (!k || !(k->where & (1u << kind))) {
			unknown_key(s, k, kind);
			ok = false;
		}
	}
	return ok;
}

/* ---- the settings that take one value: the last one given holds --------- */

static bool lower_hostname(struct lowering *lw, const struct stmt *s)
{
	if (!args_key_once(lw->first, s) || !args_want(s, 1, 1, "hostname NAME;"))
		return false;
	const char *h = args_word_of(s->args);
	bool ok = h && h[0] && strlen(h) <= 64;
	for (const char *p = h; ok && *p; p++)
		ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		     (*p >= '0' && *p <= '9') || *p == '-' || *p == '.';
	if (!ok) {
		diag_error_at(&s->args->loc, "a hostname is 1 to 64 letters, digits, '-' or '.'");
		return false;
	}
	VEC_PUSH(*lw->out, ((struct change){.kind = CH_HOSTNAME, .loc = s->loc, .hostname = h}));
	return true;
}

static bool lower_landlock(struct lowering *lw, const struct stmt *s)
{
	static const char *const levels[] = {"off", "on", "require"};
	if (!args_key_once(lw->first, s) || !args_want(s, 1, 2, "landlock on|off|require [ABI];"))
		return false;
	int n = args_choose(s->args, "landlock level", levels, 3);
	if (n < 0)
		return false;
	struct change c = {.kind = CH_LANDLOCK, .loc = s->loc};
	c.landlock.level = n == 0 ? AJ_LANDLOCK_OFF : n == 1 ? AJ_LANDLOCK_ON : AJ_LANDLOCK_REQUIRE;
	c.landlock.min_abi = n == 2 ? 1 : 0;
	const struct atom *abi = s->args->next;
	if (abi) {
		if (n != 2 || abi->kind != ATOM_NUMBER || abi->num < 1 || abi->num > 255) {
			diag_error_at(&abi->loc,
			              "only 'landlock require' takes an ABI version (1 to 255)");
			return false;
		}
		c.landlock.min_abi = (int)abi->num;
	}
	VEC_PUSH(*lw->out, c);
	return true;
}

/* A row of M_SCALARS: lw->arg is its enum m_scalar. */
static bool lower_scalar(struct lowering *lw, const struct stmt *s)
{
#define SCALAR_ROW(key, type, max, arg, what) {#key " " arg ";", max, what},
	static const struct {
		const char *usage;
		uint64_t max;
		const char *what;
	} rows[] = {M_SCALARS(SCALAR_ROW)};
	if (!args_key_once(lw->first, s) || !args_want(s, 1, 1, rows[lw->arg].usage))
		return false;
	if (s->args->kind != ATOM_NUMBER || s->args->num > rows[lw->arg].max) {
		diag_error_at(&s->args->loc, "expected %s", rows[lw->arg].what);
		return false;
	}
	struct change c = {.kind = CH_SCALAR, .loc = s->loc};
	c.scalar.which = (enum m_scalar)lw->arg;
	c.scalar.value = s->args->num;
	VEC_PUSH(*lw->out, c);
	return true;
}

/* 'fallback landlock;': where no user namespace can be had, run with
 * Landlock and the other layers alone (stub/fallback.c); 'fallback none;'
 * fails closed, the default. */
static bool lower_fallback(struct lowering *lw, const struct stmt *s)
{
	static const char *const kinds[] = {"none", "landlock"};
	if (!args_key_once(lw->first, s) || !args_want(s, 1, 1, "fallback none|landlock;"))
		return false;
	int n = args_choose(s->args, "fallback", kinds, 2);
	if (n < 0)
		return false;
	VEC_PUSH(*lw->out,
	         ((struct change){.kind = CH_FALLBACK, .loc = s->loc, .number = (uint64_t)n}));
	return true;
}
