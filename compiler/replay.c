/* replay.c: a variant (command group x mode) built from the changes of
 * its blocks, replayed in order, and completed. */
#include "replay.h"
#include "bounds.h"
#include "automaton.h"
#include "bpf.h"
#include "environment.h"
#include "mounts.h"
#include "namespaces.h"
#include "network.h"
#include "path.h"
#include "patterns.h"
#include "syscalls.h"
#include "sysnames.h"
#include "toggles.h"

#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

void replay_start(struct variant *v, const char *mode, const char *command)
{
	memset(v, 0, sizeof(*v));
	v->mode = mode;
	v->command = command;
	v->hostname = "jail";
	v->network = AJ_NET_NONE;
	v->landlock = AJ_LANDLOCK_ON;
	v->sys_default = M_ACT_ALLOW;
	v->scan_depth = 32;
	v->scan_bound = AJ_SCAN_BOUND_DENY;
}

bool replay_block(struct variant *v, const change_list *block)
{
	bool ok = true;
	for (size_t i = 0; i < block->n; i++) {
		const struct change *c = &block->v[i];
		switch (c->kind) {
		case CH_MOUNT:
			mounts_put(v, &c->mount);
			break;
		case CH_PATTERN:
			ok = patterns_apply(v, &c->pattern) && ok;
			break;
		case CH_PRUNE_NONE:
			patterns_prune_none(v);
			break;
		case CH_SCAN_DEPTH:
			v->scan_depth = c->scan.depth;
			v->scan_bound = c->scan.bound;
			break;
		case CH_ENV_KEEP:
			environment_list_add(&v->env_keep, c->env.pattern, &c->env.loc);
			break;
		case CH_ENV_DROP:
			environment_list_add(&v->env_drop, c->env.pattern, &c->env.loc);
			break;
		case CH_ENV_SET:
			environment_set_put(v, &c->env_set);
			break;
		case CH_RLIMIT:
			bounds_rlimit_put(v, &c->rlimit);
			break;
		case CH_MEMORY:
			v->memory = c->limit.value;
			v->memory_loc = c->limit.stmt;
			break;
		case CH_PROCESSES:
			v->processes = (uint32_t)c->limit.value;
			v->processes_loc = c->limit.stmt;
			break;
		case CH_HOSTNAME:
			v->hostname = c->hostname;
			break;
		case CH_NETWORK:
			v->network = c->network.level; /* the order of enum aj_network */
			v->hosts = c->network.hosts;
			v->n_hosts = c->network.n_hosts;
			v->n_followed = c->network.n_followed;
			v->follow = c->network.follow;
			v->network_loc = c->loc;
			if (c->network.fixed)
				v->flags |= AJ_VARIANT_NET_FIXED;
			network_forwards_keep_block(v, block);
			publishes_keep_block(v, block);
			keys_keep_block(v, block);
			break;
		case CH_FORWARD:
			network_forward_put(v, c, block);
			break;
		case CH_PUBLISH:
			publish_put(v, c, block);
			break;
		case CH_KEY:
			keys_put(v, c, block);
			break;
		case CH_LANDLOCK:
			v->landlock = c->landlock.level;
			v->landlock_min_abi = c->landlock.min_abi;
			break;
		case CH_SCALAR:
			switch (c->scalar.which) {
#define M_SCALAR_SET(key, type, ...)                                                               \
	case M_SCALAR_##key:                                                                       \
		v->key = (type)c->scalar.value;                                                    \
		break;
				M_SCALARS(M_SCALAR_SET)
			case M_SCALAR_COUNT:
				break;
			}
			break;
		case CH_TOGGLE:
			if (c->toggle.on)
				v->features |= AJ_TOGGLE_BIT(c->toggle.toggle);
			else
				v->features &= ~AJ_TOGGLE_BIT(c->toggle.toggle);
			if (c->toggle.fixed)
				v->toggles_fixed |= AJ_TOGGLE_BIT(c->toggle.toggle);
			break;
		case CH_SYSCALLS_DEFAULT:
			v->sys_default = c->action;
			break;
		case CH_RULES:
			ok = syscalls_rules_apply(v, c) && ok;
			break;
		case CH_FALLBACK:
			if (c->number)
				v->flags |= AJ_VARIANT_FALLBACK;
			else
				v->flags &= ~AJ_VARIANT_FALLBACK;
			break;
		case CH_NAMESPACES:
			v->ns_allow = c->ns.allow;
			v->userns = c->ns.max;
			break;
		}
	}
	return ok;
}

/* The mounts of the toggles (toggles.c) that a run may have on: those
 * on, and those off that no mode block turned off (a run's --jail-gpu
 * turns one on, --jail-no-gpu off: the stub skips what carries a toggle
 * that is off, aj_mount.toggle).  A toggle that is on takes the path from
 * a mount of the policy's own; one that is off leaves it be.  The
 * variables of a toggle the run may switch are the emitter's (spans
 * tagged with it, emit.c); those of one the mode keeps off are dropped
 * here. */
static void add_toggles(struct variant *v)
{
	static const char *const var_names[AJ_VAR_COUNT] = AJ_VAR_NAMES;
	size_t n;
	const struct toggle_mount *tm = toggles_mounts(&n);
	for (size_t i = 0; i < n; i++) {
		if (!toggles_switchable(v, tm[i].toggle))
			continue;
		struct m_mount m = {
		    .op = tm[i].op, .flags = tm[i].flags, .toggle = 1 + tm[i].toggle};
		if (tm[i].path) {
			m.path.head = m.path.text = ast_strdup(tm[i].path);
		} else {
			m.path.head = ast_strdup("");
			m.path.var = tm[i].var;
			m.path.text = ast_printf("$%s", var_names[tm[i].var]);
		}
		m.path.tail = ast_strdup("");
		bool taken = false;
		for (size_t k = 0; k < v->mounts.n; k++)
			taken |= strcmp(v->mounts.v[k].path.text, m.path.text) == 0;
		if (!taken || (v->features & AJ_TOGGLE_BIT(tm[i].toggle)))
			mounts_put(v, &m);
	}
	const struct toggle_env *te = toggles_envs(&n);
	for (size_t i = 0; i < n; i++)
		if (!toggles_switchable(v, te[i].toggle) && te[i].drop_when_off)
			environment_list_add(&v->env_drop, te[i].name, NULL);
}

bool replay_finish(struct variant *v)
{
	/* The target may ask which mode it runs in; a nested stub does not
	 * trust it (stub/variant/mode.c). */
	struct m_env_set e = {.name = M_MODE_ENV};
	path_parse(v->mode, NULL, false, &e.value);
	environment_set_put(v, &e);
	if (!automaton_check_pruned(v) || !automaton_build(v))
		return false;
	add_toggles(v);
	mounts_sort(v);
	if (v->landlock != AJ_LANDLOCK_OFF)
		mounts_landlock(v);
	network_rules(v);
	namespaces_rules(v);
	return network_forwards_check(v) && publishes_check(v) && keys_check(v) && bpf_build(v);
}
