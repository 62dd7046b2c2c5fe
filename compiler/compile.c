/* compile.c: a policy compiled into its variants.
 *
 * Each block (the body of every policy of the 'extends' chain and of every
 * used policy, each command block, each mode block) is lowered once into
 * its changes (settings.c).  A variant (command group x mode) then replays,
 * in order: the bodies of the chain, root first; the command group's
 * block; the blocks of the variant's mode, again root first (and the used
 * policy's).  Later changes replace earlier ones (a mount by its path, a
 * setting by its key); within one block, the same thing said twice is an
 * error.  The first variant that cannot be built ends the compilation, so
 * that what two blocks contradict is said once. */
#include "compile.h"
#include "bounds.h"
#include "diag.h"
#include "network.h"
#include "patterns.h"
#include "settings.h"
#include "structure.h"
#include "replay.h"

#include <stdlib.h>
#include <string.h>

/* One mode block of a policy, lowered. */
struct mode_block {
	int mode;
	change_list changes;
};

/* The blocks of one policy, lowered: its body and its mode blocks. */
struct lowered_policy {
	const struct policy *policy;
	change_list body;
	VEC(struct mode_block) modes;
	bool modes_lowered;
};

/* Every block of the compiled policy, lowered. */
struct lowered {
	VEC(struct lowered_policy *) policies; /* the chain's, then the used ones */
	VEC(change_list) overlays;             /* [group]: a command block's changes */
};

static struct lowered_policy *find(const struct lowered *l, const struct policy *p)
{
	for (size_t i = 0; i < l->policies.n; i++)
		if (l->policies.v[i]->policy == p)
			return l->policies.v[i];
	return NULL;
}

/* p's body, unless it is lowered already (a used policy of the chain, one
 * used by two command groups). */
static bool lower_body(struct lowered *l, const struct policy *p)
{
	if (find(l, p))
		return true;
	struct lowered_policy *lp = ast_alloc(sizeof(*lp));
	memset(lp, 0, sizeof(*lp));
	lp->policy = p;
	VEC_PUSH(l->policies, lp);
	return settings_block_lower(p->stmt->body, BLOCK_POLICY, &lp->body);
}

/* The mode blocks of p for mode m (a used policy may hold blocks of modes
 * the compiled one does not have: they never apply). */
static bool lower_modes(struct lowered_policy *lp, const struct compiled *c, size_t m)
{
	bool ok = true;
	for (const struct stmt *s = lp->policy->stmt->body; s; s = s->next) {
		if (strcmp(s->key, "mode") != 0 || !s->has_block || !s->args || !s->args->text ||
		    strcmp(s->args->text, c->modes.v[m]) != 0)
			continue;
		struct mode_block mb = {.mode = (int)m};
		ok = settings_block_lower(s->body, BLOCK_MODE, &mb.changes) && ok;
		VEC_PUSH(lp->modes, mb);
	}
	return ok;
}

/* Every block, once, in the order their variants are built (so that the
 * diagnostics come in that order): the bodies of the chain, then its mode
 * blocks mode by mode, then each command group's blocks. */
static bool lower_blocks(struct lowered *l, const struct compiled *c, const chain_t *chain)
{
	bool ok = true;
	for (size_t i = 0; i < chain->n; i++)
		ok = lower_body(l, chain->v[i]) && ok;
	for (size_t m = 0; m < c->modes.n; m++)
		for (size_t i = 0; i < chain->n; i++)
			ok = lower_modes(find(l, chain->v[i]), c, m) && ok;
	for (size_t i = 0; i < chain->n; i++)
		find(l, chain->v[i])->modes_lowered = true;
	VEC_PUSH(l->overlays, ((change_list){0}));
	for (size_t g = 1; g < c->groups.n; g++) {
		const struct command_group *cg = &c->groups.v[g];
		change_list overlay = {0};
		if (cg->from) {
			ok = lower_body(l, cg->from) && ok;
			struct lowered_policy *lp = find(l, cg->from);
			for (size_t m = 0; m < c->modes.n && !lp->modes_lowered; m++)
				ok = lower_modes(lp, c, m) && ok;
			lp->modes_lowered = true;
		} else {
			ok = settings_block_lower(cg->overlay, BLOCK_COMMAND, &overlay) && ok;
		}
		VEC_PUSH(l->overlays, overlay);
	}
	return ok;
}

static bool apply_modes(struct variant *v, const struct lowered_policy *lp, size_t m)
{
	bool ok = true;
	for (size_t i = 0; i < lp->modes.n; i++)
		if (lp->modes.v[i].mode == (int)m)
			ok = replay_block(v, &lp->modes.v[i].changes) && ok;
	return ok;
}

/* Variant (g, m): the chain's bodies, the command group's block, the mode
 * blocks of the chain and of the used policy. */
static bool compose(const struct lowered *l, const struct compiled *c, const chain_t *chain,
                    size_t g, size_t m, struct variant *v)
{
	bool ok = true;
	const struct command_group *cg = &c->groups.v[g];
	replay_start(v, c->modes.v[m], cg->name);
	for (size_t i = 0; i < chain->n; i++)
		ok = replay_block(v, &find(l, chain->v[i])->body) && ok;
	if (cg->from)
		ok = replay_block(v, &find(l, cg->from)->body) && ok;
	else
		ok = replay_block(v, &l->overlays.v[g]) && ok;
	for (size_t i = 0; i < chain->n; i++)
		ok = apply_modes(v, find(l, chain->v[i]), m) && ok;
	if (cg->from)
		ok = apply_modes(v, find(l, cg->from), m) && ok;
	return ok;
}

/* Is bound a above bound b?  0 is none, above every number. */
static bool bound_above(uint64_t a, uint64_t b)
{
	return a != b && (a == 0 || (b != 0 && a > b));
}

/* Why mode s's limits are looser than mode w's, or NULL; *where is the
 * statement that set s's. */
static const char *limits_looser(const struct variant *s, const struct variant *w,
                                 const struct loc **where)
{
	*where = &s->processes_loc;
	if (bound_above(s->processes, w->processes))
		return ast_printf("it allows %s processes, mode '%s' allows %u",
		                  s->processes ? ast_printf("%u", s->processes) : "unlimited",
		                  w->mode, w->processes);
	*where = &s->memory_loc;
	/* Bytes against a share of memory: which is less depends on the host
	 * the stub runs on, so they are not compared.  Nothing is lost for a
	 * nested jail: its cgroup sits below its parent's, and an rlimit is
	 * never raised inside a user namespace. */
	if (s->memory && w->memory && (s->memory ^ w->memory) & AJ_MEMORY_PERCENT)
		return NULL;
	if (bound_above(s->memory, w->memory))
		return ast_printf("its memory limit is %s, mode '%s' has %s",
		                  bounds_memory_text(s->memory), w->mode,
		                  bounds_memory_text(w->memory));
	return NULL;
}

/* A mode's strength is its place: normal first, then the others as they
 * are first declared (stub/variant/mode.c keeps a nested jail at or above the
 * mode of its own).  So each mode must be at least as strict as the one
 * before it, in every command group: no toggle on that the weaker mode has
 * off, no wider network, no directory pruned that the weaker mode walks,
 * no higher bound on memory or processes. */
static bool check_mode_order(const struct compiled *c)
{
	size_t nm = c->modes.n;
	bool ok = true;
	for (size_t m = 1; m < nm; m++) {
		for (size_t g = 0; g < c->groups.n; g++) {
			const struct variant *w = &c->variants.v[g * nm + m - 1];
			const struct variant *s = &c->variants.v[g * nm + m];
			const char *in =
			    c->groups.v[g].name[0]
			        ? ast_printf(" in command group '%s'", c->groups.v[g].name)
			        : "";
			int more = s->features & ~w->features;
			const char *why = NULL;
			for (int t = 0; t < AJ_TOGGLE_COUNT && !why; t++)
				if (more & AJ_TOGGLE_BIT(t))
					why = ast_printf("it turns %s on", aj_toggle_names[t]);
			if (!why && s->network > w->network)
				why = ast_printf("its network is %s, mode '%s' has %s",
				                 aj_network_names[s->network], w->mode,
				                 aj_network_names[w->network]);
			for (int k = 0; !why && s->network == AJ_NET_ALLOW &&
			                w->network == AJ_NET_ALLOW && k < s->n_hosts;
			     k++) {
				int j = 0;
				while (j < w->n_hosts && strcmp(w->hosts[j], s->hosts[k]))
					j++;
				if (j == w->n_hosts)
					why = ast_printf(
					    "it allows host \"%s\", which mode '%s' does not",
					    s->hosts[k], w->mode);
			}
			/* A port the weaker mode forwards, or reaches with the
			 * host's network, and no other. */
			for (size_t k = 0; k < s->forwards.n && !why && w->network != AJ_NET_HOST;
			     k++) {
				size_t j = 0;
				while (j < w->forwards.n &&
				       w->forwards.v[j].port != s->forwards.v[k].port)
					j++;
				if (j == w->forwards.n)
					why = ast_printf(
					    "it forwards port %u, which mode '%s' does not",
					    s->forwards.v[k].port, w->mode);
			}
			if (!why)
				why = keys_wider(s, w);
			for (size_t k = 0; k < s->patterns.n && !why; k++)
				if (s->patterns.v[k].kind == AJ_PATTERN_PRUNE &&
				    !patterns_in(w, &s->patterns.v[k]))
					why = ast_printf("it prunes \"%s\", which mode '%s' walks",
					                 s->patterns.v[k].text, w->mode);
			const struct loc *where = NULL;
			if (!why)
				why = limits_looser(s, w, &where);
			if (!why)
				continue;
			diag_error_at(
			    &c->mode_locs.v[m],
			    "mode '%s' must be at least as strict as mode '%s', declared before "
			    "it%s: %s",
			    s->mode, w->mode, in, why);
			if (where && where->src)
				diag_note_at(where, "the limit of mode '%s' is set here", s->mode);
			ok = false;
			break;
		}
	}
	return ok;
}

bool compile_policy(const struct program *prog, const struct policy *pol, struct compiled *out)
{
	memset(out, 0, sizeof(*out));
	out->policy = pol;
	chain_t chain = {0};
	for (const struct policy *p = pol; p; p = p->parent)
		VEC_PUSH(chain, p);
	for (size_t i = 0; i < chain.n / 2; i++) {
		const struct policy *t = chain.v[i];
		chain.v[i] = chain.v[chain.n - 1 - i];
		chain.v[chain.n - 1 - i] = t;
	}
	if (!structure_collect(out, prog, &chain))
		return false;
	int before = diag_error_count();
	struct lowered l = {0};
	bool lowered_ok = lower_blocks(&l, out, &chain);
	/* After an error in a block the variants are still composed, for
	 * what the other blocks contradict, but not completed. */
	for (size_t g = 0; g < out->groups.n; g++) {
		for (size_t m = 0; m < out->modes.n; m++) {
			struct variant v;
			if (!compose(&l, out, &chain, g, m, &v) ||
			    (lowered_ok && !replay_finish(&v)))
				return false;
			VEC_PUSH(out->variants, v);
		}
	}
	return lowered_ok && check_mode_order(out) && diag_error_count() == before;
}
