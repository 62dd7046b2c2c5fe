/* explain.c: --jail-explain, the chosen variant in readable form, resolved
 * for this host and this project.  Nothing is built and nothing runs. */
#include <string.h>
#include <sys/stat.h>

#include "sys.h"

static const char *const op_names[AJ_MOUNT_OP_COUNT] = {AJ_MOUNT_OPS(AJ_NAME_ITEM)};
static const char *const net_names[AJ_NET_COUNT] = {AJ_NETWORKS(AJ_NAME_ITEM)};
static const char *const toggle_names[AJ_TOGGLE_COUNT] = {AJ_TOGGLES(AJ_NAME_ITEM)};

/* What a level means, after its name. */
static const char *const net_meaning[AJ_NET_COUNT] = {
    [AJ_NET_NONE] = "a private network namespace without interfaces",
    [AJ_NET_BLOCKED] = "the host's network namespace: only Unix sockets, no TCP, the host's "
                       "abstract sockets scoped away; its network tables stay readable",
    [AJ_NET_LOOPBACK] = "a private network namespace, lo only",
    [AJ_NET_ALLOW] =
        "a private network namespace, lo only; the hosts below through the stub's proxy",
    [AJ_NET_HOST] = "the host's network",
};

static const char *const ll_rights[] = {
    "execute",   "write_file", "read_file", "read_dir",  "remove_dir", "remove_file",
    "make_char", "make_dir",   "make_reg",  "make_sock", "make_fifo",  "make_block",
    "make_sym",  "refer",      "truncate",  "ioctl_dev",
};

static const char *const rlimit_names[] = {
    "cpu",     "fsize", "data",  "stack",      "core",     "rss",  "nproc",  "nofile",
    "memlock", "as",    "locks", "sigpending", "msgqueue", "nice", "rtprio", "rttime",
};

static void field(const char *name)
{
	size_t n = strlen(name) + 1;

	out_s(name);
	out_c(':');
	do
		out_c(' ');
	while (++n < 11);
}

static void line(const char *name, const char *value)
{
	field(name);
	out_s(value);
	out_c('\n');
}

static void limit(uint64_t v)
{
	if (v == UINT64_MAX)
		out_s("unlimited");
	else
		out_u(v);
}

static void print_why(const struct run *r)
{
	out_s(r->why);
	if (r->why_arg) {
		out_c(' ');
		out_s(r->why_arg);
	}
}

static void print_mode(const struct run *r)
{
	field("mode");
	out_s(r->pol->modes[r->mode]);
	out_s(" (");
	print_why(r);
	out_s(")\n");
	if (r->outer) {
		field("inside");
		out_s("a jail in mode ");
		out_s(r->outer);
		out_s(": no weaker mode than ");
		out_s(r->pol->modes[r->floor]);
		out_s(" here\n");
	}
}

/* Which toggle brought a mount in: the GPU's nodes and /sys, the
 * variables only the Docker and display toggles use. */
static void print_mount(const struct plan_entry *e);

static const char docker_warning[] =
    "    WARNING: the Docker socket is host-root-equivalent: whatever runs in the jail\n"
    "    can start a privileged container that owns this host\n";

/* For each toggle: on or off, who decided (the policy, or the mode when
 * the same command group's normal variant differs), and what it brings. */
static void print_toggles(const struct run *r)
{
	static const char *const off[AJ_TOGGLE_COUNT] = {
	    [AJ_TOGGLE_GPU] = "no GPU device nodes, no GPU /sys",
	    [AJ_TOGGLE_DOCKER] = "no Docker socket",
	    [AJ_TOGGLE_DISPLAY] = "no X11 or Wayland socket, no X authority file",
	};
	const struct aj_variant *v = r->v;
	const struct aj_variant *normal = &r->pol->variants[r->group * r->pol->n_modes];

	for (unsigned t = 0; t < AJ_TOGGLE_COUNT; t++) {
		unsigned bit = AJ_TOGGLE_BIT(t);
		bool on = v->features & bit;

		field(toggle_names[t]);
		out_s(on ? "on, by " : "off, by ");
		if (r->mode && ((v->features ^ normal->features) & bit)) {
			out_s("mode ");
			out_s(r->pol->modes[r->mode]);
			out_s(" (");
			print_why(r);
			out_c(')');
		} else {
			out_s("the policy");
		}
		if (!on) {
			out_s(": ");
			out_s(off[t]);
			out_s("; its variables are dropped (env drop)\n");
			continue;
		}
		out_s(":\n");
		for (unsigned i = 0; i < plan_n; i++)
			if (plan[i].m->toggle == t + 1) {
				out_s("  ");
				print_mount(&plan[i]);
			}
		if (t == AJ_TOGGLE_DOCKER)
			out_s(docker_warning);
	}
}

static void print_landlock(const struct aj_variant *v)
{
	int abi = landlock_abi();

	field("landlock");
	if (v->landlock == AJ_LANDLOCK_OFF) {
		out_s("off");
	} else {
		out_s(v->landlock == AJ_LANDLOCK_REQUIRE ? "required" : "on, best effort");
		if (v->landlock_min_abi) {
			out_s(" (policy minimum ABI ");
			out_u(v->landlock_min_abi);
			out_c(')');
		}
		if (abi) {
			out_s("; kernel ABI ");
			out_u((unsigned)abi);
			out_s(": enforced");
			if (abi >= 6)
				out_s(", abstract unix sockets and signals scoped to the jail");
		} else {
			out_s(v->landlock == AJ_LANDLOCK_REQUIRE
			          ? "; absent from this kernel: the jail would not start"
			          : "; absent from this kernel: not enforced");
		}
	}
	out_c('\n');
}

static void print_mount(const struct plan_entry *e)
{
	const struct aj_mount *m = e->m;
	const char *why;
	int fd;

	out_s("  ");
	out_s(m->op < AJ_MOUNT_OP_COUNT && op_names[m->op] ? op_names[m->op] : "?");
	if (m->flags & AJ_MOUNT_CREATE)
		out_c('+');
	if (m->flags & AJ_MOUNT_OPTIONAL)
		out_c('?');
	out_c('\t');
	if (!e->path) {
		out_c('$');
		out_s(var_name(m->path.var));
		out_s("\tskipped: $");
		out_s(var_name(m->path.var));
		out_s(": ");
		out_s(var_why(m->path.var));
		out_c('\n');
		return;
	}
	out_s(e->path);
	if (extra_option(m)) {
		out_s("\t(");
		out_s(extra_option(m));
		out_c(')');
	}
	switch (m->op) {
	case AJ_MOUNT_RO:
	case AJ_MOUNT_RW:
		if ((m->flags & AJ_MOUNT_WITH_DEVICES) && !plan_has_devices()) {
			out_s("\tskipped: no GPU device node on this host");
		} else if ((fd = source_open(m, e->path, &why)) >= 0) {
			close(fd);
		} else if (why) {
			/* The same checks pid 1 makes on what it mounts. */
			out_s(m->flags & AJ_MOUNT_OPTIONAL ? "\tskipped: "
			                                   : "\tREFUSED: the jail would not start: ");
			if (m->path.var) {
				out_c('$');
				out_s(var_name(m->path.var));
				out_s(": ");
			}
			out_s(why);
		} else {
			out_s(m->flags & AJ_MOUNT_CREATE ? "\t(created: missing on this host)"
			      : m->flags & AJ_MOUNT_OPTIONAL
			          ? "\tskipped: missing on this host"
			          : "\tMISSING: the jail would not start");
		}
		break;
	case AJ_MOUNT_TMPFS:
		out_s("\tmode ");
		out_o(m->mode);
		if (plan_dirs && !plan_under_mount((unsigned)(e - plan)))
			out_s(", a directory of the root (Landlock confines writes to it)");
		break;
	case AJ_MOUNT_LINK:
		out_s(" -> ");
		out_s(m->target);
		break;
	case AJ_MOUNT_DEV:
		out_s("\t");
		for (unsigned i = 0; dev_nodes[i]; i++) {
			out_s(dev_nodes[i]);
			out_c(' ');
		}
		out_s("pts shm fd stdin stdout stderr");
		break;
	case AJ_MOUNT_DEVICE: {
		unsigned n = device_match("", e->path, false);
		out_s("\t");
		out_u(n);
		out_s(n == 1 ? " node on this host" : " nodes on this host");
		break;
	}
	}
	out_c('\n');
}

static void print_rights(uint64_t a)
{
	if (a == AJ_LL_RIGHTS_ALL) {
		out_s(" all");
		return;
	}
	for (unsigned i = 0; i < sizeof(ll_rights) / sizeof(ll_rights[0]); i++)
		if (a & (1ULL << i)) {
			out_c(' ');
			out_s(ll_rights[i]);
		}
}

static void print_rules(const struct aj_variant *v)
{
	char path[AJ_PATH_MAX];

	if (v->landlock == AJ_LANDLOCK_OFF)
		return;
	out_s("landlock rules:\n");
	for (unsigned i = 0; i < v->n_landlock_rules; i++) {
		const struct aj_landlock_rule *r = &v->landlock_rules[i];

		bool unset = path_join(&r->path, path, sizeof(path)) < 0;

		out_s("  ");
		if (unset) {
			out_c('$');
			out_s(var_name(r->path.var));
		} else {
			out_s(path);
		}
		print_rights(r->access);
		out_s(unset ? "\t(skipped: unset)\n" : "\n");
	}
	/* The mounts' own rules, in the plan's order; a skipped mount has none. */
	for (unsigned i = 0; i < plan_n; i++) {
		const struct plan_entry *e = &plan[i];

		if (!e->m->landlock)
			continue;
		out_s("  ");
		if (!e->path) {
			out_c('$');
			out_s(var_name(e->m->path.var));
		} else {
			out_s(e->path);
		}
		if (e->m->flags & AJ_MOUNT_OPTIONAL)
			out_c('?');
		print_rights(e->m->landlock);
		out_s(!e->path ? "\t(skipped: unset)\n" : "\n");
	}
}

static void print_scan(const struct run *r)
{
	const struct aj_scan *sc = r->v->scan;
	const char *why, *where;
	const struct plan_entry *fenced = fence_plan(r->v, &why, &where);

	out_s("patterns:\n");
	for (unsigned i = 0; i < sc->n_patterns; i++) {
		out_s("  ");
		out_s(sc->patterns[i]);
		out_c('\n');
	}
	field("scan");
	out_s("paths of up to ");
	out_u(sc->depth);
	out_s(sc->bound == AJ_SCAN_BOUND_DENY ? " components; a directory deeper is denied\n"
	                                      : " components; a deeper directory stops the jail\n");
	out_s("masked and denied in ");
	out_s(r->project);
	out_s(":\n");
	if (!scan->n)
		out_s("  (nothing)\n");
	for (unsigned i = 0; i < scan->n; i++) {
		const struct scan_hit *h = &scan->hits[i];
		out_s(!h->kind ? "  guard\t" : h->kind == AJ_PATTERN_DENY ? "  deny\t" : "  mask\t");
		out_s(scan->arena + h->off);
		if (h->isdir)
			out_c('/');
		if (h->why == SCAN_BY_HARDLINK)
			out_s("\t(another name of a matched file)");
		if (h->why == SCAN_BY_PERM)
			out_s("\t(yours but unreadable: its content could not be checked)");
		if (h->why == SCAN_BY_DEPTH)
			out_s("\t(at the depth bound: its content was not checked)");
		if (h->why == SCAN_BY_SOCKET)
			out_s("\t(a Unix socket: no host service without the host's network)");
		if (h->why == SCAN_BY_GUARD)
			out_s(fenced ? "\t(guarded, absent: the fence keeps what appears here unreadable)"
			             : "\t(guarded, absent: NOT covered, see the fence below)");
		out_c('\n');
	}
	out_s("pruned (not walked, not masked inside): ");
	out_u(scan->n_pruned);
	out_s(scan->n_pruned == 1 ? " directory\n" : " directories\n");
	for (unsigned i = 0; i < scan->n_pruned && i < SCAN_PRUNED_SHOWN; i++) {
		if (scan->pruned[i] == UINT32_MAX)
			continue;
		out_s("  prune\t");
		out_s(scan->arena + scan->pruned[i]);
		out_s("/\n");
	}
	if (scan->n_pruned > SCAN_PRUNED_SHOWN)
		out_s("  …\n");
	field("fence");
	if (fenced) {
		out_u(fence_apply(-1, fenced, AJ_LL_RIGHTS_ALL));
		out_s(" Landlock rules in place of the project's one: nothing denied or guarded "
		      "is granted\n");
	} else {
		out_s("none: ");
		out_s(why);
		if (where) {
			out_c(' ');
			out_s(where);
		}
		out_c('\n');
	}
}

static void print_env(const struct run *r)
{
	const struct aj_variant *v = r->v;

	field("env keep");
	for (unsigned k = 0; k < v->n_env_keep; k++)
		for (unsigned i = 0; i < v->env_keep[k].n; i++) {
			out_s(v->env_keep[k].v[i]);
			out_c(' ');
		}
	out_c('\n');
	field("env drop");
	for (unsigned k = 0; k < v->n_env_drop; k++)
		for (unsigned i = 0; i < v->env_drop[k].n; i++) {
			out_s(v->env_drop[k].v[i]);
			out_c(' ');
		}
	out_s(v->n_env_drop ? "(never passed, whatever keeps them)\n" : "none\n");
	field("env set");
	for (unsigned i = 0; i < v->n_env_set; i++) {
		const struct aj_path *p = &v->env_set[i].value;
		out_s(i ? " " : "");
		out_s(v->env_set[i].name);
		out_c('=');
		out_s(p->head ? p->head : "");
		if (p->var) {
			out_c('$');
			out_s(var_name(p->var));
		}
		out_s(p->tail ? p->tail : "");
	}
	out_c('\n');
	out_s("environment passed:\n");
	for (char **e = r->envp; *e; e++) {
		out_s("  ");
		out_s(*e);
		out_c('\n');
	}
}

static void print_limits(const struct aj_variant *v)
{
	out_s("rlimits:");
	if (!v->n_rlimits)
		out_s(" none");
	out_c('\n');
	for (unsigned i = 0; i < v->n_rlimits; i++) {
		const struct aj_rlimit *l = &v->rlimits[i];
		out_s("  ");
		if (l->resource < sizeof(rlimit_names) / sizeof(rlimit_names[0]))
			out_s(rlimit_names[l->resource]);
		else
			out_u(l->resource);
		out_s("\tsoft ");
		limit(l->soft);
		out_s(", hard ");
		limit(l->hard);
		out_c('\n');
	}
}

/* 'limit memory', 'limit processes': the figure, and what holds it here. */
static void print_bounds(void)
{
	static const char *const names[LIMIT_N] = {"memory", "processes"};

	limits_probe();
	out_s("limits:\n");
	for (unsigned i = 0; i < LIMIT_N; i++) {
		const struct limit *l = &limits[i];

		out_s("  ");
		out_s(names[i]);
		out_c('\t');
		if (!l->value) {
			out_s("unbounded\n");
			continue;
		}
		out_u(i == LIMIT_MEMORY ? l->value >> 20 : l->value);
		out_s(i == LIMIT_MEMORY ? " MiB" : " tasks");
		if (l->percent) {
			out_s(" (");
			out_u(l->percent);
			out_s("% of ");
			out_u(l->total >> 20);
			out_s(" MiB)");
		}
		if (l->by_cgroup) {
			out_s(": the jail as a whole, cgroup ");
			out_s(l->v2 ? "v2 " : "v1 ");
			out_s(l->cgroup);
			out_s(" (");
			out_s(l->file);
			out_s(")\n");
			continue;
		}
		if (i == LIMIT_MEMORY)
			out_s(": per process (RLIMIT_DATA): ");
		else if (!limits_nproc_here())
			out_s(": NOT enforced (RLIMIT_NPROC counts per user before Linux 5.14): ");
		else if (limits_host_root())
			out_s(": NOT enforced for root without a pids cgroup (RLIMIT_NPROC "
			      "does not bind the host's root): ");
		else
			out_s(": RLIMIT_NPROC, per user namespace (the jail's tasks): ");
		out_s(l->why);
		out_c('\n');
	}
}

noreturn void explain(const struct run *r)
{
	const struct aj_variant *v = r->v;

	out_fd(1);
	field("policy");
	out_s(r->pol->name);
	out_s(" (");
	out_s(aj_progname);
	out_s(")\n");
	line("identity", r->pol->identity ? r->pol->identity : "none");
	field("command");
	for (char **a = r->argv; a && *a; a++) {
		out_s(a == r->argv ? "" : " ");
		out_s(*a);
	}
	if (v->command && *v->command) {
		out_s(" (command group ");
		out_s(v->command);
		out_c(')');
	}
	out_c('\n');
	print_mode(r);
	line("project", r->project);
	line("hostname", v->hostname);
	field("network");
	if (v->network == AJ_NET_BLOCKED && !net_blocked_here(v))
		out_s("blocked, here in a private network namespace without interfaces (Landlock "
		      "on and its ABI 6 are needed to scope the host's abstract sockets)");
	else if (v->network < AJ_NET_COUNT) {
		out_s(net_names[v->network]);
		out_s(" (");
		out_s(net_meaning[v->network]);
		out_c(')');
	} else {
		out_c('?');
	}
	if (extra_net_option()) {
		out_s(" (");
		out_s(extra_net_option());
		out_c(')');
	}
	if (v->network == AJ_NET_ALLOW)
		proxy_explain();
	out_c('\n');
	print_landlock(v);
	print_toggles(r);
	field("timeout");
	if (r->timeout) {
		out_u(r->timeout);
		out_s(" s\n");
	} else {
		out_s("none\n");
	}
	out_s("mounts, in order:\n");
	for (unsigned i = 0; i < plan_n; i++)
		print_mount(&plan[i]);
	print_scan(r);
	print_rules(v);
	print_env(r);
	print_limits(v);
	print_bounds();
	field("seccomp");
	for (unsigned i = 0; i < v->n_filters; i++) {
		out_s(i ? " + " : "");
		out_u(v->filters[i].n);
	}
	out_s(v->n_filters == 1 ? " BPF instructions in 1 filter\n" : " BPF instructions in ");
	if (v->n_filters != 1) {
		out_u(v->n_filters);
		out_s(" filters, all of them run on every system call\n");
	}
	if (v->seccomp_summary && *v->seccomp_summary) {
		const char *s = v->seccomp_summary;
		out_s("  ");
		for (; *s; s++) {
			out_c(*s);
			if (*s == '\n' && s[1])
				out_s("  ");
		}
		if (s[-1] != '\n')
			out_c('\n');
	}
	out_flush();
	_exit(0);
}
