/* net.c: the network section of --jail-explain (explain.c): the level and
 * what it means here, whether the namespace is private, the option that
 * chose it, and the egress's hosts and forwards (egress/).  Its own file
 * so that what the network side adds is said beside the other network
 * facts, not at the end of explain.c. */
#include "explain/explain.h"

/* What a level means, after its name. */
static const char *const net_meaning[AJ_NET_COUNT] = {
    [AJ_NET_NONE] = "a private network namespace without interfaces",
    [AJ_NET_BLOCKED] = "the host's network namespace: only Unix sockets, no TCP, the host's "
                       "abstract sockets scoped away; its network tables stay readable",
    [AJ_NET_LOOPBACK] = "a private network namespace, lo only",
    [AJ_NET_ALLOW] = "a private namespace, lo only; the hosts below through the stub's proxy",
    [AJ_NET_PUBLIC] = "a private namespace, lo only; any name by the proxy, to public addresses",
    [AJ_NET_HOST] = "the host's network",
};

void net_explain(const struct run *r)
{
	const struct aj_variant *v = r->v;

	rp_field("network");
	rp_open("network", '{');
	if (run_in_fallback(r) && v->network != AJ_NET_HOST) {
		rp_str("level", v->network < AJ_NET_COUNT ? aj_network_names[v->network] : "?");
		rp_t(" (");
		rp_str("meaning",
		       "the fallback: no network namespace; TCP refused by Landlock (ABI "
		       "4), every socket family but AF_UNIX by seccomp, the container's "
		       "abstract sockets scoped away (ABI 6); its named sockets and network "
		       "tables stay reachable; no proxy runs, so no host is reachable");
		rp_t(")");
	} else if (v->network == AJ_NET_BLOCKED && !landlock_net_blocked(v)) {
		rp_str("level", "blocked");
		rp_t(", ");
		rp_str("meaning",
		       "here in a private network namespace without interfaces (Landlock "
		       "on and its ABI 6 are needed to scope the host's abstract sockets)");
	} else if (v->network < AJ_NET_COUNT) {
		rp_str("level", aj_network_names[v->network]);
		rp_t(" (");
		rp_str("meaning",
		       v->network == AJ_NET_NONE && forward_count()
		           ? "a private network namespace, lo with the forwarded ports only"
		           : net_meaning[v->network]);
		rp_t(")");
	} else {
		rp_t("?");
	}
	rp_jstr("namespace", landlock_net_private(v) && !run_in_fallback(r) ? "private" : "host");
	if (extra_net_option()) {
		rp_t(" (");
		rp_str("option", extra_net_option());
		rp_t(")");
	} else {
		rp_jstr("option", NULL);
	}
	if (AJ_NET_PROXIED(v->network)) {
		egress_explain();
		secret_explain();
	} else
		rp_jstr("hosts", NULL);
	forward_explain();
	rp_close();
	rp_t("\n");
}
