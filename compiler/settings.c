/* settings.c: the keys a block may hold, where each is allowed and which
 * handler lowers it into changes; the settings that take one value.
 *
 * A block is lowered once, whatever the number of variants that replay it
 * (replay.c); within one block, the same thing said twice is an error. */
#include "settings.h"
#include "args.h"
#include "bounds.h"
#include "diag.h"
#include "environment.h"
#include "hosts.h"
#include "mounts.h"
#include "patterns.h"
#include "syscalls.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define IN_POLICY  (1u << BLOCK_POLICY)
#define IN_MODE    (1u << BLOCK_MODE)
#define IN_COMMAND (1u << BLOCK_COMMAND)
#define IN_BLOCKS  (IN_POLICY | IN_MODE | IN_COMMAND)

static lower_fn lower_hostname, lower_network, lower_landlock, lower_timeout, lower_toggle,
    lower_namespaces, lower_fallback;

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
#define TOGGLE_SETTING(id, name, ...) {name, lower_toggle, IN_BLOCKS, id},
static const struct setting settings[] = {
	{"hostname", lower_hostname, IN_BLOCKS, 0},
	{"network", lower_network, IN_BLOCKS, 0},
	{"landlock", lower_landlock, IN_BLOCKS, 0},
	AJ_MOUNT_OPS(MOUNT_SETTING)
	{"mask", patterns_lower, IN_BLOCKS, AJ_PATTERN_MASK},
	{"deny", patterns_lower, IN_BLOCKS, AJ_PATTERN_DENY},
	{"scan", scan_setting_lower, IN_BLOCKS, 0},
	{"env", env_lower, IN_BLOCKS, 0},
	{"rlimit", rlimit_lower, IN_BLOCKS, 0},
	{"limit", limit_lower, IN_BLOCKS, 0},
	{"timeout", lower_timeout, IN_BLOCKS, 0},
	{"syscalls", syscalls_lower, IN_BLOCKS, 0},
	{"namespaces", lower_namespaces, IN_BLOCKS, 0},
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
	return k->lower != mounts_lower || mount_written(k->arg);
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
		    strchr(mount_suffixes(k->arg), key[len - 1])) {
			*flags = mount_suffix_flag(key[len - 1]);
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
				for (const char *c = mount_suffixes(k->arg); *c; c++) {
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
		error_at(&s->loc,
		         "'%s' is only allowed directly in a policy, not inside a %s block", s->key,
		         kind == BLOCK_MODE ? "mode" : "command");
		return;
	}
	size_t n, n_settings;
	const char *const *all = setting_names(&n, &n_settings);
	const char *hint = suggest(s->key, all, n);
	if (hint)
		error_at(&s->loc, "unknown key '%s'; did you mean '%s'?", s->key, hint);
	else
		error_at(&s->loc, "unknown key '%s'", s->key);
}

bool block_lower(const struct stmt *list, enum block_kind kind, change_list *out)
{
	struct lowering lw = {.kind = kind, .first = list, .out = out};
	size_t n_names;
	lw.keys = setting_names(&n_names, &lw.n_keys);
	bool ok = true;
	for (const struct stmt *s = list; s; s = s->next) {
		int flags;
		const struct setting *k = setting_find(s->key, &flags);
		if (k && k->lower && s->has_block) {
			error_at(&s->end, "'%s' takes no block", s->key);
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

static bool same_key(const struct stmt *a, const struct stmt *b)
{
	return strcmp(a->key, b->key) == 0;
}

static bool set_once(struct lowering *lw, const struct stmt *s)
{
	return first_in_block(lw->first, s, same_key, &s->loc,
	                      xprintf("'%s' is already set in this block", s->key));
}

static bool lower_hostname(struct lowering *lw, const struct stmt *s)
{
	if (!set_once(lw, s) || !want_args(s, 1, 1, "hostname NAME;"))
		return false;
	const char *h = word_of(s->args);
	bool ok = h && h[0] && strlen(h) <= 64;
	for (const char *p = h; ok && *p; p++)
		ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		     (*p >= '0' && *p <= '9') || *p == '-' || *p == '.';
	if (!ok) {
		error_at(&s->args->loc, "a hostname is 1 to 64 letters, digits, '-' or '.'");
		return false;
	}
	VEC_PUSH(*lw->out, ((struct change){.kind = CH_HOSTNAME, .loc = s->loc, .hostname = h}));
	return true;
}

/* Where byte at of a one-line string atom is, for the caret. */
static struct loc inside(const struct atom *a, size_t at, size_t len)
{
	struct loc l = a->loc;
	if (l.line == l.end_line && a->kind == ATOM_STRING) {
		l.col += 1 + (int)at;
		l.end_col = l.col + (int)(len ? len : 1) - 1;
	}
	return l;
}

/* 'network allow [HOST…] [follow TOOL HOST…];': the hosts in their
 * normal spelling (stub/hosts.c), those after 'follow TOOL' first: the
 * ones the tool's configured registry replaces at run time. */
static bool lower_allow(struct change *c, const struct atom *a)
{
	static const char *const follows[AJ_FOLLOW_COUNT] = {AJ_FOLLOWS(AJ_NAME_ITEM)};
	const char *fixed[AJ_HOSTS_MAX], *followed[AJ_HOSTS_MAX];
	const struct atom *where[AJ_HOSTS_MAX * 2];
	int n_fixed = 0, n_followed = 0;
	const struct atom *follow_at = NULL;

	for (; a; a = a->next) {
		const char *w = word_of(a);
		if (a->kind == ATOM_WORD && w && !strcmp(w, "follow")) {
			if (follow_at) {
				error_at(&a->loc, "'follow' is given once in a 'network allow'");
				return false;
			}
			if (!a->next) {
				error_at(&a->loc, "'follow' names a tool: %s", follows[1]);
				return false;
			}
			int f = choose(a->next, "tool to follow", follows + 1, AJ_FOLLOW_COUNT - 1);
			if (f < 0)
				return false;
			c->network.follow = f + 1;
			follow_at = a;
			a = a->next;
			continue;
		}
		if (!quoted(a, "hosts", "network allow"))
			return false;
		char norm[AJ_HOST_MAX];
		size_t at;
		const char *why = host_normal(w, true, norm, sizeof(norm), &at);
		if (why) {
			struct loc l = inside(a, at, 1);
			error_at(&l, "bad host \"%s\": %s", w, why);
			return false;
		}
		if (n_fixed + n_followed == AJ_HOSTS_MAX) {
			error_at(&a->loc, "at most %d hosts in a 'network allow'", AJ_HOSTS_MAX);
			return false;
		}
		for (int i = 0; i < n_fixed + n_followed; i++) {
			const char *other = i < n_fixed ? fixed[i] : followed[i - n_fixed];
			if (!strcmp(other, norm)) {
				error_at(&a->loc, "host \"%s\" is listed twice", norm);
				note_at(&where[i]->loc, "first listed here");
				return false;
			}
		}
		where[n_fixed + n_followed] = a;
		if (follow_at)
			followed[n_followed++] = xstrdup(norm);
		else
			fixed[n_fixed++] = xstrdup(norm);
	}
	if (follow_at && !n_followed) {
		error_at(&follow_at->next->loc,
		         "'follow %s' needs the tool's default hosts after it, which its "
		         "configured registry replaces",
		         follows[c->network.follow]);
		return false;
	}
	c->network.n_hosts = n_fixed + n_followed;
	c->network.n_followed = n_followed;
	c->network.hosts = xalloc((size_t)c->network.n_hosts * sizeof(char *));
	for (int i = 0; i < n_followed; i++)
		c->network.hosts[i] = followed[i];
	for (int i = 0; i < n_fixed; i++)
		c->network.hosts[n_followed + i] = fixed[i];
	return true;
}

static bool lower_network(struct lowering *lw, const struct stmt *s)
{
	static const char *const names[AJ_NET_COUNT] = {AJ_NETWORKS(AJ_NAME_ITEM)};
	char usage[160] = "network ";
	for (int i = 0; i < AJ_NET_COUNT; i++)
		snprintf(usage + strlen(usage), sizeof(usage) - strlen(usage), "%s%s", i ? "|" : "",
		         names[i]);
	snprintf(usage + strlen(usage), sizeof(usage) - strlen(usage), "; (allow: then the hosts)");
	if (!set_once(lw, s) || !want_args(s, 1, 2 * AJ_HOSTS_MAX + 2, usage))
		return false;
	int n = choose(s->args, "network", names, AJ_NET_COUNT);
	if (n < 0)
		return false;
	struct change c = {.kind = CH_NETWORK, .loc = s->loc};
	c.network.level = n;
	c.network.fixed = lw->kind == BLOCK_MODE;
	if (n == AJ_NET_ALLOW && !s->args->next) {
		error_at(&s->args->loc, "'network allow' needs the hosts it allows: %s",
		         "network allow \"HOST[:PORT]\"…;");
		return false;
	}
	if (n != AJ_NET_ALLOW && s->args->next) {
		error_at(&s->args->next->loc, "only 'network allow' takes hosts");
		return false;
	}
	if (n == AJ_NET_ALLOW && !lower_allow(&c, s->args->next))
		return false;
	VEC_PUSH(*lw->out, c);
	return true;
}

static bool lower_landlock(struct lowering *lw, const struct stmt *s)
{
	static const char *const levels[] = {"off", "on", "require"};
	if (!set_once(lw, s) || !want_args(s, 1, 2, "landlock on|off|require [ABI];"))
		return false;
	int n = choose(s->args, "landlock level", levels, 3);
	if (n < 0)
		return false;
	struct change c = {.kind = CH_LANDLOCK, .loc = s->loc};
	c.landlock.level = n == 0 ? AJ_LANDLOCK_OFF : n == 1 ? AJ_LANDLOCK_ON : AJ_LANDLOCK_REQUIRE;
	c.landlock.min_abi = n == 2 ? 1 : 0;
	const struct atom *abi = s->args->next;
	if (abi) {
		if (n != 2 || abi->kind != ATOM_NUMBER || abi->num < 1 || abi->num > 255) {
			error_at(&abi->loc,
			         "only 'landlock require' takes an ABI version (1 to 255)");
			return false;
		}
		c.landlock.min_abi = (int)abi->num;
	}
	VEC_PUSH(*lw->out, c);
	return true;
}

static bool lower_timeout(struct lowering *lw, const struct stmt *s)
{
	if (!set_once(lw, s) || !want_args(s, 1, 1, "timeout SECONDS;"))
		return false;
	if (s->args->kind != ATOM_NUMBER || s->args->num > INT32_MAX) {
		error_at(&s->args->loc, "expected a number of seconds");
		return false;
	}
	VEC_PUSH(*lw->out,
	         ((struct change){.kind = CH_TIMEOUT, .loc = s->loc, .number = s->args->num}));
	return true;
}

static bool lower_toggle(struct lowering *lw, const struct stmt *s)
{
	static const char *const onoff[] = {"off", "on"};
	if (!set_once(lw, s) || !want_args(s, 1, 1, xprintf("%s on|off;", s->key)))
		return false;
	int on = choose(s->args, xprintf("%s setting", s->key), onoff, 2);
	if (on < 0)
		return false;
	struct change c = {.kind = CH_TOGGLE, .loc = s->loc};
	c.toggle.toggle = lw->arg;
	c.toggle.on = on;
	c.toggle.fixed = lw->kind == BLOCK_MODE;
	VEC_PUSH(*lw->out, c);
	return true;
}

/* 'namespaces none;' or 'namespaces KIND… max N;': the kinds the jail's
 * processes may make, and how many user namespaces, at any depth, below
 * the jail's (replay.c turns the rest into filter rules). */
static bool lower_namespaces(struct lowering *lw, const struct stmt *s)
{
#define NS_NAME(flag, name) name,
#define NS_FLAG(flag, name) flag,
	static const char *const names[] = {NS_KINDS(NS_NAME)};
	static const unsigned long flags[] = {NS_KINDS(NS_FLAG)};
	struct change c = {.kind = CH_NAMESPACES, .loc = s->loc};
	const struct atom *a = s->args;

	if (!set_once(lw, s) || !want_args(s, 1, 12, "namespaces none; or namespaces KIND… max COUNT;"))
		return false;
	if (!a->next && word_of(a) && !strcmp(word_of(a), "none")) {
		VEC_PUSH(*lw->out, c);
		return true;
	}
	for (; a; a = a->next) {
		if (word_of(a) && !strcmp(word_of(a), "max")) {
			const struct atom *n = a->next;
			if (!n || n->kind != ATOM_NUMBER || n->num < 1 || n->num > 64 || n->next) {
				error_at(&(n ? n : a)->loc,
				         "'max' ends the statement with the number of user namespaces "
				         "the jail may hold below its own (1 to 64)");
				return false;
			}
			c.ns.max = (int)n->num;
			break;
		}
		int k = choose(a, "namespace kind", names, N(names));
		if (k < 0)
			return false;
		c.ns.allow |= flags[k];
	}
	if (!(c.ns.allow & CLONE_NEWUSER)) {
		/* Without a user namespace of their own the jail's processes
		 * hold no capability that makes any other kind. */
		error_at(&s->args->loc, "namespaces other than 'user' need 'user' too "
		                        "(a process of the jail has no capability to make them)");
		return false;
	}
	if (!c.ns.max) {
		error_at(&s->loc, "'namespaces user' needs 'max COUNT' (1 to 64): the user "
		                  "namespaces the jail may hold below its own, at any depth");
		return false;
	}
	VEC_PUSH(*lw->out, c);
	return true;
}

/* 'fallback landlock;': where no user namespace can be had, run with
 * Landlock and the other layers alone (stub/fallback.c); 'fallback none;'
 * fails closed, the default. */
static bool lower_fallback(struct lowering *lw, const struct stmt *s)
{
	static const char *const kinds[] = {"none", "landlock"};
	if (!set_once(lw, s) || !want_args(s, 1, 1, "fallback none|landlock;"))
		return false;
	int n = choose(s->args, "fallback", kinds, 2);
	if (n < 0)
		return false;
	VEC_PUSH(*lw->out, ((struct change){.kind = CH_FALLBACK, .loc = s->loc, .number = (uint64_t)n}));
	return true;
}
