/* publish.c: 'publish [ADDR:][HOSTPORT:]PORT…;': a port of the jail's own
 * loopback that the stub's parent listens for on the host (ADDR:HOSTPORT,
 * 127.0.0.1:PORT unless named) and relays into the jail
 * (stub/egress/forward.c). */
#include "network.h"
#include "changes.h"
#include "args.h"
#include "diag.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

static const char publish_usage[] = "publish [ADDRESS:][HOSTPORT:]PORT…;";

static unsigned port_of(const char *s, size_t n)
{
	unsigned long p = 0;

	if (!n || n > 5)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		p = p * 10 + (unsigned long)(s[i] - '0');
	}
	return p <= 65535 ? (unsigned)p : 0;
}

static bool publish_atom(const struct atom *a, struct change *c)
{
	const char *t = args_word_of(a), *part[3];
	size_t len[3];
	unsigned n = 0, hp, jp;
	char addr[INET_ADDRSTRLEN];
	struct in_addr in = {.s_addr = htonl(INADDR_LOOPBACK)};

	if (a->kind == ATOM_NUMBER) {
		if (a->num < 1 || a->num > 65535) {
			diag_error_at(&a->loc, "a published port is a number from 1 to 65535");
			return false;
		}
		c->publish.addr = in.s_addr;
		c->publish.host_port = c->publish.port = (uint16_t)a->num;
		return true;
	}
	if (!t) {
		diag_error_at(&a->loc, "expected a port, found %s; expected: %s",
		              ast_atom_kind_name(a->kind), publish_usage);
		return false;
	}
	for (const char *p = t;; p++) {
		const char *e = strchrnul(p, ':');

		if (n == 3) {
			diag_error_at(&a->loc, "'%s': expected: %s", t, publish_usage);
			return false;
		}
		part[n] = p, len[n++] = (size_t)(e - p);
		if (!*e)
			break;
		p = e;
	}
	if (n == 3) {
		if (len[0] >= sizeof(addr) || (memcpy(addr, part[0], len[0]), addr[len[0]] = 0,
		                               inet_pton(AF_INET, addr, &in) != 1)) {
			diag_error_at(&a->loc, "'%s': the host's address is an IPv4 address", t);
			return false;
		}
	}
	jp = port_of(part[n - 1], len[n - 1]);
	hp = n > 1 ? port_of(part[n - 2], len[n - 2]) : jp;
	if (!jp || !hp) {
		diag_error_at(&a->loc, "'%s': a published port is a number from 1 to 65535", t);
		return false;
	}
	c->publish.addr = in.s_addr;
	c->publish.host_port = (uint16_t)hp;
	c->publish.port = (uint16_t)jp;
	return true;
}

bool publish_lower(struct lowering *lw, const struct stmt *s)
{
	if (!args_want(s, 1, AJ_PUBLISH_MAX, publish_usage))
		return false;
	for (const struct atom *a = s->args; a; a = a->next) {
		struct change c = {.kind = CH_PUBLISH, .loc = a->loc};
		int n = 0;

		if (!publish_atom(a, &c))
			return false;
		for (size_t i = 0; i < lw->out->n; i++) {
			const struct change *o = &lw->out->v[i];

			if (o->kind != CH_PUBLISH)
				continue;
			if (o->publish.host_port == c.publish.host_port &&
			    o->publish.addr == c.publish.addr) {
				diag_error_at(&a->loc, "host port %u is published twice",
				              c.publish.host_port);
				diag_note_at(&o->loc, "first published here");
				return false;
			}
			n++;
		}
		if (n == AJ_PUBLISH_MAX) {
			diag_error_at(&a->loc, "at most %d published ports in a block",
			              AJ_PUBLISH_MAX);
			return false;
		}
		VEC_PUSH(*lw->out, c);
	}
	return true;
}

void publish_put(struct variant *v, const struct change *c, const void *block)
{
	struct m_publish p = {c->publish.addr, c->publish.host_port, c->publish.port, c->loc,
	                      block};

	for (size_t i = 0; i < v->publishes.n; i++)
		if (v->publishes.v[i].host_port == p.host_port &&
		    v->publishes.v[i].addr == p.addr) {
			v->publishes.v[i] = p;
			return;
		}
	VEC_PUSH(v->publishes, p);
}

void publishes_keep_block(struct variant *v, const void *block)
{
	size_t k = 0;

	for (size_t i = 0; i < v->publishes.n; i++)
		if (v->publishes.v[i].block == block)
			v->publishes.v[k++] = v->publishes.v[i];
	v->publishes.n = k;
}

bool publishes_check(const struct variant *v)
{
	const char *const *names = aj_network_names;
	const char *in = v->command[0] ? ast_printf(", command group '%s'", v->command) : "";

	if (!v->publishes.n)
		return true;
	if (v->network == AJ_NET_HOST || v->network == AJ_NET_BLOCKED) {
		diag_error_at(
		    &v->publishes.v[0].loc,
		    "a published port needs the jail's own network namespace, which 'network "
		    "%s' does not make (mode '%s'%s); use 'network none' or 'network allow'",
		    names[v->network], v->mode, in);
		if (v->network_loc.src)
			diag_note_at(&v->network_loc, "the network is set here");
		return false;
	}
	if (v->publishes.n > AJ_PUBLISH_MAX) {
		diag_error_at(&v->publishes.v[AJ_PUBLISH_MAX].loc,
		              "at most %d published ports in a variant (mode '%s'%s)",
		              AJ_PUBLISH_MAX, v->mode, in);
		return false;
	}
	return true;
}
