/* network.c: the 'network' setting: its level and, for 'network allow',
 * the hosts the proxy lets through; the filter rule 'network blocked'
 * adds. */
#include "network.h"
#include "changes.h"
#include "args.h"
#include "diag.h"
#include "common/hosts.h"
#include "sysnames.h"

#include <errno.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

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
 * normal spelling (common/hosts.c), those after 'follow TOOL' first: the
 * ones the tool's configured registry replaces at run time. */
static bool lower_allow(struct change *c, const struct atom *a)
{
	const char *const *follows = aj_follow_names;
	const char *fixed[AJ_HOSTS_MAX], *followed[AJ_HOSTS_MAX];
	const struct atom *where[AJ_HOSTS_MAX * 2];
	int n_fixed = 0, n_followed = 0;
	const struct atom *follow_at = NULL;

	for (; a; a = a->next) {
		const char *w = args_word_of(a);
		if (a->kind == ATOM_WORD && w && !strcmp(w, "follow")) {
			if (follow_at) {
				diag_error_at(&a->loc,
				              "'follow' is given once in a 'network allow'");
				return false;
			}
			if (!a->next) {
				diag_error_at(&a->loc, "'follow' names a tool: %s", follows[1]);
				return false;
			}
			int f = args_choose(a->next, "tool to follow", follows + 1,
			                    AJ_FOLLOW_COUNT - 1);
			if (f < 0)
				return false;
			c->network.follow = f + 1;
			follow_at = a;
			a = a->next;
			continue;
		}
		if (!args_quoted(a, "hosts", "network allow"))
			return false;
		char norm[AJ_HOST_MAX];
		size_t at;
		const char *why = hosts_normal(w, true, norm, sizeof(norm), &at);
		if (why) {
			struct loc l = inside(a, at, 1);
			diag_error_at(&l, "bad host \"%s\": %s", w, why);
			return false;
		}
		if (n_fixed + n_followed == AJ_HOSTS_MAX) {
			diag_error_at(&a->loc, "at most %d hosts in a 'network allow'",
			              AJ_HOSTS_MAX);
			return false;
		}
		for (int i = 0; i < n_fixed + n_followed; i++) {
			const char *other = i < n_fixed ? fixed[i] : followed[i - n_fixed];
			if (!strcmp(other, norm)) {
				diag_error_at(&a->loc, "host \"%s\" is listed twice", norm);
				diag_note_at(&where[i]->loc, "first listed here");
				return false;
			}
		}
		where[n_fixed + n_followed] = a;
		if (follow_at)
			followed[n_followed++] = ast_strdup(norm);
		else
			fixed[n_fixed++] = ast_strdup(norm);
	}
	if (follow_at && !n_followed) {
		diag_error_at(&follow_at->next->loc,
		              "'follow %s' needs the tool's default hosts after it, which its "
		              "configured registry replaces",
		              follows[c->network.follow]);
		return false;
	}
	c->network.n_hosts = n_fixed + n_followed;
	c->network.n_followed = n_followed;
	c->network.hosts = ast_alloc((size_t)c->network.n_hosts * sizeof(char *));
	for (int i = 0; i < n_followed; i++)
		c->network.hosts[i] = followed[i];
	for (int i = 0; i < n_fixed; i++)
		c->network.hosts[n_followed + i] = fixed[i];
	return true;
}

bool network_lower(struct lowering *lw, const struct stmt *s)
{
	const char *const *names = aj_network_names;
	char usage[160] = "network ";
	for (int i = 0; i < AJ_NET_COUNT; i++)
		snprintf(usage + strlen(usage), sizeof(usage) - strlen(usage), "%s%s", i ? "|" : "",
		         names[i]);
	snprintf(usage + strlen(usage), sizeof(usage) - strlen(usage), "; (allow: then the hosts)");
	if (!args_key_once(lw->first, s) || !args_want(s, 1, 2 * AJ_HOSTS_MAX + 2, usage))
		return false;
	int n = args_choose(s->args, "network", names, AJ_NET_COUNT);
	if (n < 0)
		return false;
	struct change c = {.kind = CH_NETWORK, .loc = s->loc};
	c.network.level = n;
	c.network.fixed = lw->kind == BLOCK_MODE;
	if (n == AJ_NET_ALLOW && !s->args->next) {
		diag_error_at(&s->args->loc, "'network allow' needs the hosts it allows: %s",
		              "network allow \"HOST[:PORT]\"…;");
		return false;
	}
	if (n != AJ_NET_ALLOW && s->args->next) {
		diag_error_at(&s->args->next->loc, "only 'network allow' takes hosts");
		return false;
	}
	if (n == AJ_NET_ALLOW && !lower_allow(&c, s->args->next))
		return false;
	VEC_PUSH(*lw->out, c);
	return true;
}

/* 'network blocked' keeps the host's network namespace: no socket family
 * but AF_UNIX may be created, so no IP (TCP, UDP, ICMP, raw), no netlink
 * (the host's routes, addresses, connections through sock_diag), no
 * packet, vsock or any family a later kernel adds.  The comparison is on
 * the whole 64-bit argument: a value whose low 32 bits say AF_UNIX but
 * whose high bits are set is refused too, never the other way round. */
void network_rules(struct variant *v)
{
	if (v->network != AJ_NET_BLOCKED)
		return;
	struct m_rule r = {.nr = sysnames_syscall_lookup("socket", NULL),
	                   .name = "socket",
	                   .action = EAFNOSUPPORT,
	                   .n_cmp = 1,
	                   .cmp = {{0, SCMP_CMP_NE, 0, AF_UNIX}},
	                   .text = ast_strdup("socket(arg0 != AF_UNIX)")};
	VEC_PUSH(v->rules, r);
}

/* Where bytes at.. of a word or string atom are, for the caret. */
static struct loc within(const struct atom *a, size_t at, size_t len)
{
	struct loc l = a->loc;
	if (l.line == l.end_line) {
		l.col += (a->kind == ATOM_STRING) + (int)at;
		l.end_col = l.col + (int)(len ? len : 1) - 1;
	}
	return l;
}

static const char forward_usage[] = "forward PORT|127.0.0.1:PORT|[::1]:PORT…;";

/* One forward: 11434, 127.0.0.1:11434, [::1]:11434, bare or quoted.  The
 * host is the host's loopback only: anything else would make the stub's
 * parent a relay into the host's network, which 'network allow' and its
 * proxy are for. */
static bool forward_atom(const struct atom *a, uint16_t *port, bool *v6)
{
	const char *t = args_word_of(a), *num;
	unsigned long n = 0;

	*v6 = false;
	if (a->kind == ATOM_NUMBER) {
		if (a->num < 1 || a->num > 65535) {
			diag_error_at(&a->loc, "a forwarded port is a number from 1 to 65535");
			return false;
		}
		*port = (uint16_t)a->num;
		return true;
	}
	if (!t) {
		diag_error_at(&a->loc, "expected a port, found %s; expected: %s",
		              ast_atom_kind_name(a->kind), forward_usage);
		return false;
	}
	if (t[0] == '[') {
		const char *e = strchr(t, ']');
		if (!e || e - t != 4 || strncmp(t + 1, "::1", 3)) {
			struct loc l = within(a, 1, e ? (size_t)(e - t - 1) : strlen(t + 1));
			diag_error_at(
			    &l, "a forward reaches the host's loopback only: 127.0.0.1 or [::1]");
			return false;
		}
		*v6 = true;
		num = e + 1;
	} else if ((num = strchr(t, ':'))) {
		if (strchr(num + 1, ':')) {
			struct loc l = within(a, 0, strlen(t));
			diag_error_at(&l,
			              "an IPv6 host is written in brackets: forward [::1]:PORT;");
			return false;
		}
		if (num - t != 9 || strncmp(t, "127.0.0.1", 9)) {
			struct loc l = within(a, 0, (size_t)(num - t));
			diag_error_at(
			    &l, "a forward reaches the host's loopback only: 127.0.0.1 or [::1]");
			return false;
		}
	} else if (*t && strspn(t, "0123456789") == strlen(t)) {
		num = NULL; /* a quoted port alone */
	} else {
		struct loc l = within(a, 0, strlen(t));
		diag_error_at(&l, "'%s' has no port; expected: %s", t, forward_usage);
		return false;
	}
	if (num && *num != ':') {
		struct loc l = within(a, (size_t)(num - t), 1);
		diag_error_at(&l, "expected ':' and a port after the host");
		return false;
	}
	num = num ? num + 1 : t;
	if (!*num) {
		struct loc l = within(a, (size_t)(num - t - 1), 1);
		diag_error_at(&l, "'%s' has no port; expected: %s", t, forward_usage);
		return false;
	}
	for (const char *d = num; *d; d++) {
		if (*d < '0' || *d > '9' || n > 65535) {
			n = 0;
			break;
		}
		n = n * 10 + (unsigned long)(*d - '0');
	}
	if (n < 1 || n > 65535) {
		struct loc l = within(a, (size_t)(num - t), strlen(num));
		diag_error_at(&l, "a forwarded port is a number from 1 to 65535");
		return false;
	}
	*port = (uint16_t)n;
	return true;
}

bool network_forward_lower(struct lowering *lw, const struct stmt *s)
{
	if (!args_want(s, 1, AJ_FORWARDS_MAX, forward_usage))
		return false;
	for (const struct atom *a = s->args; a; a = a->next) {
		struct change c = {.kind = CH_FORWARD, .loc = a->loc};
		int n = 0;
		if (!forward_atom(a, &c.forward.port, &c.forward.v6))
			return false;
		for (size_t i = 0; i < lw->out->n; i++) {
			const struct change *o = &lw->out->v[i];
			if (o->kind != CH_FORWARD)
				continue;
			if (o->forward.port == c.forward.port) {
				diag_error_at(&a->loc, "port %u is forwarded twice",
				              c.forward.port);
				diag_note_at(&o->loc, "first forwarded here");
				return false;
			}
			n++;
		}
		if (n == AJ_FORWARDS_MAX) {
			diag_error_at(&a->loc, "at most %d forwards in a block", AJ_FORWARDS_MAX);
			return false;
		}
		VEC_PUSH(*lw->out, c);
	}
	return true;
}

void network_forward_put(struct variant *v, const struct change *c, const void *block)
{
	struct m_forward f = {c->forward.port, c->forward.v6, c->loc, block};
	for (size_t i = 0; i < v->forwards.n; i++)
		if (v->forwards.v[i].port == f.port) {
			v->forwards.v[i] = f;
			return;
		}
	VEC_PUSH(v->forwards, f);
}

void network_forwards_keep_block(struct variant *v, const void *block)
{
	size_t k = 0;
	for (size_t i = 0; i < v->forwards.n; i++)
		if (v->forwards.v[i].block == block)
			v->forwards.v[k++] = v->forwards.v[i];
	v->forwards.n = k;
}

bool network_forwards_check(const struct variant *v)
{
	const char *const *names = aj_network_names;
	const char *in = v->command[0] ? ast_printf(", command group '%s'", v->command) : "";
	if (!v->forwards.n)
		return true;
	if (v->network == AJ_NET_HOST || v->network == AJ_NET_BLOCKED) {
		diag_error_at(
		    &v->forwards.v[0].loc,
		    "a forward needs the jail's own network namespace, which 'network %s' "
		    "does not make (mode '%s'%s); use 'network none' or 'network allow'",
		    names[v->network], v->mode, in);
		if (v->network_loc.src)
			diag_note_at(&v->network_loc, "the network is set here");
		return false;
	}
	if (v->forwards.n > AJ_FORWARDS_MAX) {
		diag_error_at(&v->forwards.v[AJ_FORWARDS_MAX].loc,
		              "at most %d forwards in a variant (mode '%s'%s)", AJ_FORWARDS_MAX,
		              v->mode, in);
		return false;
	}
	return true;
}
