/* keys.c: 'secret NAME "HOST[:PORT]"…;', a key of the caller's that the
 * jail uses and never holds: the stub binds it as --jail-secret does
 * (stub/egress/secret.c, docs/keys.md).  The compiler refuses a key whose
 * host the variant's proxy would not let through: the value is added by
 * that proxy, so a host it cannot reach is a key that cannot work. */
#include "network.h"
#include "changes.h"
#include "args.h"
#include "diag.h"
#include "common/hosts.h"
#include "common/keys.h"

#include <string.h>

static const char key_usage[] = "secret NAME \"HOST[:PORT]\"…; or secret NAME follow [\"HOST\"];";

/* Where byte at of a one-line string atom is, for the caret. */
static struct loc inside(const struct atom *a, size_t at)
{
	struct loc l = a->loc;
	if (l.line == l.end_line && a->kind == ATOM_STRING) {
		l.col += 1 + (int)at;
		l.end_col = l.col;
	}
	return l;
}

/* A quoted host of the statement, normalised into norm (AJ_HOST_MAX):
 * a name, not a pattern: the jail is shown a certificate for one name,
 * and a key goes to the hosts written. */
static bool host_of(const struct atom *a, char *norm)
{
	const char *w = args_word_of(a), *why;
	size_t at;

	if (!args_quoted(a, "hosts", key_usage))
		return false;
	why = hosts_normal(w, false, norm, AJ_HOST_MAX, &at);
	if (why) {
		struct loc l = inside(a, at);
		diag_error_at(&l, "bad host \"%s\": %s", w, why);
		return false;
	}
	return true;
}

bool keys_lower(struct lowering *lw, const struct stmt *s)
{
	if (!args_want(s, 2, 1 + KEYS_HOSTS, key_usage))
		return false;
	const struct atom *a = s->args;
	const char *name = args_word_of(a);
	if (a->kind != ATOM_WORD || !name || !keys_name_ok(name, strlen(name))) {
		diag_error_at(&a->loc,
		              "a key is named by the variable that holds it (letters, digits, "
		              "'_'; not a digit first; under %d bytes): %s",
		              KEYS_NAME_MAX, key_usage);
		return false;
	}
	int n_keys = 0;
	for (size_t i = 0; i < lw->out->n; i++) {
		const struct change *o = &lw->out->v[i];
		if (o->kind != CH_KEY)
			continue;
		if (!strcmp(o->key.name, name)) {
			diag_error_at(&a->loc,
			              "the key %s is bound twice; list its hosts in one "
			              "'secret'",
			              name);
			diag_note_at(&o->loc, "first bound here");
			return false;
		}
		n_keys++;
	}
	if (n_keys == KEYS_MAX) {
		diag_error_at(&a->loc, "at most %d keys in a block", KEYS_MAX);
		return false;
	}
	struct change c = {.kind = CH_KEY, .loc = a->loc};
	c.key.name = ast_strdup(name);
	c.key.hosts = ast_alloc((size_t)KEYS_HOSTS * sizeof(char *));
	c.key.host_locs = ast_alloc((size_t)KEYS_HOSTS * sizeof(struct loc));
	a = a->next;
	if (a->kind == ATOM_WORD && args_word_of(a) && !strcmp(args_word_of(a), "follow")) {
		/* The hosts are the variant's followed ones, known once its
		 * network is (keys_check). */
		c.key.follows = true;
		c.key.host_locs[0] = a->loc;
		a = a->next;
		if (a && a->next) {
			diag_error_at(
			    &a->next->loc,
			    "a key follows one host at most: secret NAME follow [\"HOST\"];");
			return false;
		}
		if (a) {
			char norm[AJ_HOST_MAX];
			if (!host_of(a, norm))
				return false;
			c.key.follow_host = ast_strdup(norm);
			c.key.host_locs[0] = a->loc;
		}
		VEC_PUSH(*lw->out, c);
		return true;
	}
	for (; a; a = a->next) {
		char norm[AJ_HOST_MAX];
		if (!host_of(a, norm))
			return false;
		for (int i = 0; i < c.key.n_hosts; i++)
			if (!strcmp(c.key.hosts[i], norm)) {
				diag_error_at(&a->loc, "host \"%s\" is listed twice", norm);
				diag_note_at(&c.key.host_locs[i], "first listed here");
				return false;
			}
		c.key.host_locs[c.key.n_hosts] = a->loc;
		c.key.hosts[c.key.n_hosts++] = ast_strdup(norm);
	}
	VEC_PUSH(*lw->out, c);
	return true;
}

void keys_put(struct variant *v, const struct change *c, const void *block)
{
	struct m_key k = c->key;
	k.loc = c->loc;
	k.block = block;
	for (size_t i = 0; i < v->keys.n; i++)
		if (!strcmp(v->keys.v[i].name, k.name)) {
			v->keys.v[i] = k;
			return;
		}
	VEC_PUSH(v->keys, k);
}

/* A 'network' statement keeps its own block's keys only: a mode that
 * fixes the network (lockdown) binds what it says itself. */
void keys_keep_block(struct variant *v, const void *block)
{
	size_t k = 0;
	for (size_t i = 0; i < v->keys.n; i++)
		if (v->keys.v[i].block == block)
			v->keys.v[k++] = v->keys.v[i];
	v->keys.n = k;
}

/* Through the proxy as the stub's egress_allowed() decides: a host of
 * the list ('*.NAME' patterns included), not one a followed tool's
 * registry replaces at run time. */
static bool reachable(const struct variant *v, const char *host)
{
	if (v->network == AJ_NET_PUBLIC)
		return true;
	for (int i = v->n_followed; v->network == AJ_NET_ALLOW && i < v->n_hosts; i++)
		if (hosts_match(v->hosts[i], host))
			return true;
	return false;
}

/* A key that follows: the variant follows a tool, and HOST, when
 * written, is one of the hosts its setting may replace.  The proxy lists
 * them, or the host that replaces them: the key is always reachable. */
static bool follow_check(const struct variant *v, const struct m_key *k, const char *in)
{
	if (v->network != AJ_NET_ALLOW || !v->n_followed) {
		diag_error_at(&k->host_locs[0],
		              "the key %s follows the API host of a followed tool, and mode "
		              "'%s'%s follows none: 'network allow follow TOOL \"HOST\"' first, "
		              "or bind the key to its hosts",
		              k->name, v->mode, in);
		if (v->network_loc.src)
			diag_note_at(&v->network_loc, "the network is set here");
		return false;
	}
	if (!k->follow_host)
		return true;
	for (int i = 0; i < v->n_followed; i++)
		if (!strcmp(v->hosts[i], k->follow_host))
			return true;
	diag_error_at(&k->host_locs[0],
	              "the key %s follows %s, which is not a host the followed tool's "
	              "setting replaces (mode '%s'%s): name one of the hosts after 'follow'",
	              k->name, k->follow_host, v->mode, in);
	if (v->network_loc.src)
		diag_note_at(&v->network_loc, "the network is set here");
	return false;
}

bool keys_check(const struct variant *v)
{
	static const char *const names[AJ_NET_COUNT] = {AJ_NETWORKS(AJ_NAME_ITEM)};
	const char *in = v->command[0] ? ast_printf(", command group '%s'", v->command) : "";
	if (v->keys.n > KEYS_MAX) {
		diag_error_at(&v->keys.v[KEYS_MAX].loc,
		              "at most %d keys in a variant (mode '%s'%s)", KEYS_MAX, v->mode, in);
		return false;
	}
	for (size_t i = 0; i < v->keys.n; i++) {
		const struct m_key *k = &v->keys.v[i];
		if (k->follows && !follow_check(v, k, in))
			return false;
		for (int h = 0; h < k->n_hosts; h++) {
			if (reachable(v, k->hosts[h]))
				continue;
			if (v->network == AJ_NET_ALLOW)
				diag_error_at(
				    &k->host_locs[h],
				    "the key %s is bound to %s, which the jail cannot reach "
				    "(mode '%s'%s): its value is added by the jail's proxy, "
				    "and 'network allow' does not list the host",
				    k->name, k->hosts[h], v->mode, in);
			else
				diag_error_at(
				    &k->host_locs[h],
				    "the key %s is bound to %s, which the jail cannot reach "
				    "(mode '%s'%s): its value is added by the jail's proxy, "
				    "which 'network %s' does not have; use 'network allow' "
				    "with the host, or 'network public'",
				    k->name, k->hosts[h], v->mode, in, names[v->network]);
			if (v->network_loc.src)
				diag_note_at(&v->network_loc, "the network is set here");
			return false;
		}
	}
	return true;
}

/* Why the stricter mode s binds more than the weaker w (a key w does not
 * bind, or to a host w does not add it on), or NULL: a key is a use the
 * jail gets, which a stricter mode must not widen. */
const char *keys_wider(const struct variant *s, const struct variant *w)
{
	for (size_t i = 0; i < s->keys.n; i++) {
		const struct m_key *k = &s->keys.v[i], *o = NULL;
		for (size_t j = 0; j < w->keys.n && !o; j++)
			if (!strcmp(w->keys.v[j].name, k->name))
				o = &w->keys.v[j];
		if (!o)
			return ast_printf("it binds the key %s, which mode '%s' does not", k->name,
			                  w->mode);
		if (k->follows != o->follows || (k->follows && k->follow_host != o->follow_host &&
		                                 (!k->follow_host || !o->follow_host ||
		                                  strcmp(k->follow_host, o->follow_host))))
			return ast_printf("it binds the key %s otherwise than mode '%s' does",
			                  k->name, w->mode);
		for (int h = 0; h < k->n_hosts; h++) {
			int g = 0;
			while (g < o->n_hosts && strcmp(o->hosts[g], k->hosts[h]))
				g++;
			if (g == o->n_hosts)
				return ast_printf(
				    "it binds the key %s to %s, which mode '%s' does not", k->name,
				    k->hosts[h], w->mode);
		}
	}
	return NULL;
}

/* The variant's initialiser line for its keys, "" for none.  Names and
 * normal hosts hold no byte a C literal would have to escape. */
const char *keys_init(const struct variant *v, keys_array_fn *array, void *o)
{
	char *b = "";
	if (!v->keys.n)
		return "";
	for (size_t i = 0; i < v->keys.n; i++) {
		const struct m_key *k = &v->keys.v[i];
		char *hb = "";
		int n = 0;
		/* A key that follows is emitted with the followed hosts; the stub
		 * moves it with them (stub/egress/secret.c). */
		for (int h = 0; k->follows && h < v->n_followed; h++)
			if (!k->follow_host || !strcmp(k->follow_host, v->hosts[h])) {
				hb = ast_printf("%s\t\"%s\",\n", hb, v->hosts[h]);
				n++;
			}
		for (int h = 0; !k->follows && h < k->n_hosts; h++, n++)
			hb = ast_printf("%s\t\"%s\",\n", hb, k->hosts[h]);
		const char *hosts = array(o, "char *const", hb, (size_t)n);
		b = ast_printf("%s\t{.name = \"%s\", .hosts = %s, .n_hosts = %d, .follows = %d},\n",
		               b, k->name, hosts, n, k->follows);
	}
	return ast_printf("\t\t.keys = %s, .n_keys = %zu,\n",
	                  array(o, "struct aj_key", b, v->keys.n), v->keys.n);
}
