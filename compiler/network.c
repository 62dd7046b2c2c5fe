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
		const char *why = hosts_normal(w, true, norm, sizeof(norm), &at);
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

bool network_lower(struct lowering *lw, const struct stmt *s)
{
	static const char *const names[AJ_NET_COUNT] = {AJ_NETWORKS(AJ_NAME_ITEM)};
	char usage[160] = "network ";
	for (int i = 0; i < AJ_NET_COUNT; i++)
		snprintf(usage + strlen(usage), sizeof(usage) - strlen(usage), "%s%s", i ? "|" : "",
		         names[i]);
	snprintf(usage + strlen(usage), sizeof(usage) - strlen(usage), "; (allow: then the hosts)");
	if (!key_once(lw->first, s) || !want_args(s, 1, 2 * AJ_HOSTS_MAX + 2, usage))
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
	struct m_rule r = {.nr = syscall_lookup("socket", NULL),
	                   .name = "socket",
	                   .action = EAFNOSUPPORT,
	                   .n_cmp = 1,
	                   .cmp = {{0, SCMP_CMP_NE, 0, AF_UNIX}},
	                   .text = xstrdup("socket(arg0 != AF_UNIX)")};
	VEC_PUSH(v->rules, r);
}
