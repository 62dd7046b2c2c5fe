/* explain.c: --jail-explain, the chosen variant resolved for this host and
 * this project, as text or (=json) as one JSON object whose keys
 * docs/explain.md lists.  Nothing is built and nothing runs.  Each section
 * finds its facts once and writes each through report.c with its key: the
 * text's prose around a value is rp_t, a fact the text words differently
 * is rp_j*.  Exit 0 when the jail can be built here, else 125 with the
 * reasons (the last section). */
#include <sched.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "explain/explain.h"

static const char *const toggle_off[AJ_TOGGLE_COUNT] = {AJ_TOGGLES(AJ_TOGGLE_OFF_ITEM)};
static const char *const toggle_warn[AJ_TOGGLE_COUNT] = {AJ_TOGGLES(AJ_TOGGLE_WARN_ITEM)};

/* What would stop the jail here: each one a reason in the last section. */
#define BLOCKERS_MAX 8
static struct {
	const char *layer, *path, *why;
} blockers[BLOCKERS_MAX];
static unsigned n_blockers;

static void blocked(const char *layer, const char *path, const char *why)
{
	if (n_blockers < BLOCKERS_MAX)
		blockers[n_blockers] = (typeof(blockers[0])){layer, path, why};
	n_blockers++;
}

static void line(const char *key, const char *name, const char *value)
{
	rp_field(name);
	rp_str(key, value);
	rp_t("\n");
}

static void print_why(const struct run *r)
{
	rp_str("why", r->why);
	if (r->why_arg)
		rp_t(" ");
	rp_str("by", r->why_arg);
}

static void print_mode(const struct run *r)
{
	rp_field("mode");
	rp_open("mode", '{');
	rp_str("name", r->pol->modes[r->mode]);
	rp_t(" (");
	print_why(r);
	rp_t(")\n");
	rp_jstr("floor", r->pol->modes[r->floor]);
	if (r->outer) {
		rp_field("inside");
		rp_t("a jail in mode ");
		rp_str("inside", r->outer);
		rp_t(": no weaker mode than ");
		rp_t(r->pol->modes[r->floor]);
		rp_t(" here\n");
	} else {
		rp_jstr("inside", NULL);
	}
	rp_close();
}

static void print_mount(const struct plan_entry *e, bool tally);

/* For each toggle: on or off, who decided (the run's option; else the
 * mode, when its block set it, aj_variant.toggles_fixed; else the policy),
 * and what it brings (the mounts that carry it: aj_mount.toggle; in JSON
 * their indexes in "mounts"). */
static void print_toggles(const struct run *r)
{
	const struct aj_variant *v = r->v;
	unsigned pn;
	struct plan_entry *pl = plan_entries(&pn);

	rp_open("toggles", '{');
	for (unsigned t = 0; t < AJ_TOGGLE_COUNT; t++) {
		unsigned bit = AJ_TOGGLE_BIT(t);
		bool on = v->features & bit;
		const char *opt = extra_toggle_option(t);
		bool by_mode = !opt && (v->toggles_fixed & bit);

		rp_field(aj_toggle_names[t]);
		rp_open(aj_toggle_names[t], '{');
		rp_bool("on", on);
		rp_t(on ? "on, by " : "off, by ");
		rp_jstr("by", opt ? "option" : by_mode ? "mode" : "policy");
		rp_jstr("option", opt);
		if (opt) {
			rp_t(opt);
		} else if (by_mode && !rp_json) {
			out_s("mode ");
			out_s(r->pol->modes[r->mode]);
			out_s(" (");
			print_why(r);
			out_c(')');
		} else {
			rp_t("the policy");
		}
		rp_bool("env_dropped", !on);
		if (!on) {
			rp_t(": ");
			rp_str("off", toggle_off[t]);
			rp_t("; its variables are dropped (env drop)\n");
		} else {
			rp_jstr("off", NULL);
			rp_t(":\n");
		}
		rp_open("mounts", '[');
		for (unsigned i = 0; on && i < pn; i++)
			if (pl[i].m->toggle == t + 1) {
				rp_ju(NULL, i);
				if (!rp_json) {
					out_s("  ");
					print_mount(&pl[i], false);
				}
			}
		rp_close();
		if (on && toggle_warn[t]) {
			rp_t("    WARNING: ");
			rp_str("warning", toggle_warn[t]);
			rp_t("\n");
		} else {
			rp_jstr("warning", NULL);
		}
		rp_close();
	}
	rp_close();
}

static void print_landlock(const struct aj_variant *v)
{
	static const char *const levels[] = {"off", "best-effort", "required"};
	int abi = landlock_abi();
	bool older = abi && abi < v->landlock_min_abi;
	bool fails = v->landlock == AJ_LANDLOCK_REQUIRE && (!abi || older);
	bool on = v->landlock != AJ_LANDLOCK_OFF && abi && !fails;

	rp_field("landlock");
	rp_open("landlock", '{');
	rp_jstr("level", levels[v->landlock % 3]);
	rp_ju("min_abi", v->landlock_min_abi);
	rp_ju("kernel_abi", (unsigned)abi);
	/* The newest ABI landlock.c's table knows is the most it uses. */
	rp_ju("applied_abi", on ? (abi > AJ_LL_ABI_KNOWN ? AJ_LL_ABI_KNOWN : (unsigned)abi) : 0);
	rp_bool("enforced", on);
	rp_bool("scoped", on && abi >= 6);
	if (v->landlock == AJ_LANDLOCK_OFF) {
		rp_t("off");
	} else {
		rp_t(v->landlock == AJ_LANDLOCK_REQUIRE ? "required" : "on, best effort");
		if (v->landlock_min_abi) {
			rp_t(" (policy minimum ABI ");
			if (!rp_json)
				out_u(v->landlock_min_abi);
			rp_t(")");
		}
		if (!rp_json && abi) {
			out_s("; kernel ABI ");
			out_u((unsigned)abi);
			out_s(fails ? ": older than the policy's minimum: the jail would not start"
			            : ": enforced");
			if (on && abi >= 6)
				out_s(", abstract unix sockets and signals scoped to the jail");
		} else if (!abi) {
			rp_t(fails ? "; absent from this kernel: the jail would not start"
			           : "; absent from this kernel: not enforced");
		}
	}
	if (fails)
		blocked("landlock", NULL,
		        abi ? "the kernel's Landlock ABI is older than the policy requires"
		            : "the policy requires Landlock and this kernel has none");
	rp_close();
	rp_t("\n");
}

/* Which namespaces a run makes (ns.c), and whether this process could
 * make them: a child tries, and is gone.  Where they cannot be had, why
 * (nscause.c, or what predicted it: r->fallback), and what the policy's
 * fallback makes of it (fallback.c).  Returns the status explain ends
 * with for it: 0 for the full jail, 2 when the fallback would run, 125. */
static int print_namespaces(const struct run *r)
{
	static const char *const kinds[] = {"user", "pid", "mount", "ipc", "uts", "net"};
	const struct aj_variant *v = r->v;
	bool net = landlock_net_private(v);
	int e = 0, status;
	const char *cause = r->fallback;
	pid_t pid = cause ? 0 : (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);

	if (!pid && !cause)
		_exit(unshare(CLONE_NEWUSER | CLONE_NEWPID) ||
		              unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS |
		                      (net ? CLONE_NEWNET : 0))
		          ? errno & 0xff
		          : 0);
	if (pid < 0)
		e = errno;
	else if (pid && waitpid(pid, &status, 0) == pid)
		e = WIFEXITED(status) ? WEXITSTATUS(status) : EINTR;
	if (e && !cause)
		cause = nscause_why(e);
	if (e && !cause)
		cause = strerror(e);
	rp_field("namespaces");
	rp_open("namespaces", '{');
	rp_open("made", '[');
	for (unsigned i = 0; i < (net ? 6u : 5u); i++) {
		rp_t(i ? " " : "");
		rp_str(NULL, kinds[i]);
	}
	rp_close();
	rp_t(" (user namespaces below it: ");
	rp_u("userns", v->userns);
	rp_t(")");
	rp_bool("available", !cause);
	rp_jstr("why", cause);
	rp_t(cause ? "; NOT available here: " : "; available: the full jail");
	rp_t(cause ? cause : "");
	rp_close();
	rp_t("\n");
	status = fallback_explain(r, cause);
	if (status == AJ_EXIT_SETUP && record_refusal(r))
		blocked("fallback", NULL, record_refusal(r));
	else if (status == AJ_EXIT_SETUP)
		blocked("namespaces", NULL, cause);
	return status;
}

static void print_flags(const struct aj_mount *m)
{
	rp_open("flags", '[');
	if (m->flags & AJ_MOUNT_CREATE) {
		rp_t("+");
		rp_jstr(NULL, "create");
	}
	if (m->flags & AJ_MOUNT_OPTIONAL) {
		rp_t("?");
		rp_jstr(NULL, "optional");
	}
	if (m->flags & AJ_MOUNT_WITH_DEVICES)
		rp_jstr(NULL, "with_devices");
	if (m->flags & AJ_MOUNT_AS_HOST) {
		rp_t("?");
		rp_jstr(NULL, "as_host");
	}
	rp_close();
}

/* One mount of the plan and its state here; tally: count what would stop
 * the jail (once, in the list of mounts). */
static void print_mount(const struct plan_entry *e, bool tally)
{
	static const char *const more_dev[] = {"pts", "shm", "fd", "stdin", "stdout", "stderr"};
	const struct aj_mount *m = e->m;
	const char *state = "mounted", *why = NULL, *opt = e->path ? extra_option(m) : NULL;
	int fd;

	rp_open(NULL, '{');
	rp_t("  ");
	rp_str("op", aj_op(m->op)->name ? aj_op(m->op)->name : "?");
	print_flags(m);
	rp_t("\t");
	rp_jstr("toggle",
	        m->toggle && m->toggle <= AJ_TOGGLE_COUNT ? aj_toggle_names[m->toggle - 1] : NULL);
	rp_jstr("var", m->path.var ? vars_name(m->path.var) : NULL);
	if (!e->path) {
		rp_t("$");
		rp_t(vars_name(m->path.var));
		rp_jstr("path", NULL);
		rp_jstr("option", NULL);
		rp_jstr("state", "skipped");
		rp_t("\tskipped: $");
		rp_t(vars_name(m->path.var));
		rp_t(": ");
		rp_str("why", vars_why(m->path.var));
		rp_t("\n");
		rp_close();
		return;
	}
	rp_str("path", e->path);
	if (opt) {
		rp_t("\t(");
		rp_str("option", opt);
		rp_t(")");
	} else {
		rp_jstr("option", NULL);
	}
	/* What the op makes (aj_table.h): its facts here. */
	switch ((enum aj_mount_make)aj_op(m->op)->make) {
	case AJ_MAKE_BIND:
		if ((m->flags & AJ_MOUNT_WITH_DEVICES) && !plan_has_devices()) {
			state = "skipped";
			why = "none of the plan's device nodes is on this host";
			rp_t("\tskipped: ");
			rp_t(why);
		} else if ((fd = resolve_source_open(m, e->path, &why)) >= 0) {
			close(fd);
		} else if (why) {
			/* The same checks pid 1 makes on what it mounts. */
			state = m->flags & AJ_MOUNT_OPTIONAL ? "skipped" : "refused";
			rp_t(m->flags & AJ_MOUNT_OPTIONAL
			         ? "\tskipped: "
			         : "\tREFUSED: the jail would not start: ");
			if (m->path.var) {
				rp_t("$");
				rp_t(vars_name(m->path.var));
				rp_t(": ");
			}
			rp_t(why);
		} else {
			state = m->flags & AJ_MOUNT_CREATE     ? "created"
			        : m->flags & AJ_MOUNT_OPTIONAL ? "skipped"
			                                       : "missing";
			why = "missing on this host";
			rp_t(m->flags & AJ_MOUNT_CREATE ? "\t(created: missing on this host)"
			     : m->flags & AJ_MOUNT_OPTIONAL
			         ? "\tskipped: missing on this host"
			         : "\tMISSING: the jail would not start");
		}
		if (tally && (!strcmp(state, "refused") || !strcmp(state, "missing")))
			blocked("mount", e->path, why);
		break;
	case AJ_MAKE_TMPFS: {
		unsigned pn;
		bool dir = plan_scratch_dir((unsigned)(e - plan_entries(&pn)));

		rp_t("\tmode ");
		if (rp_json) {
			rp_ju("mode", m->mode);
		} else {
			out_o(m->mode);
		}
		rp_bool("scratch", dir);
		if (dir)
			rp_t(", a directory of the root (Landlock confines writes to it)");
		break;
	}
	case AJ_MAKE_LINK:
		/* 'link?' the host does not have (plan.c, follow_host) */
		if (e->missing) {
			state = "skipped";
			why = "missing on this host";
			rp_t("\tskipped: missing on this host");
			rp_jstr("target", m->target);
			break;
		}
		rp_t(" -> ");
		rp_str("target", m->target);
		break;
	case AJ_MAKE_DEV:
		rp_t("\t");
		rp_open("nodes", '[');
		for (unsigned i = 0; dev_names()[i]; i++) {
			rp_str(NULL, dev_names()[i]);
			rp_t(" ");
		}
		for (unsigned i = 0; i < sizeof(more_dev) / sizeof(more_dev[0]); i++) {
			rp_t(i ? " " : "");
			rp_str(NULL, more_dev[i]);
		}
		rp_close();
		break;
	case AJ_MAKE_NODES: {
		unsigned n = dev_match("", e->path, false);

		if (!n) {
			state = "skipped";
			why = "no such node on this host";
		}
		rp_t("\t");
		rp_u("count", n);
		rp_t(n == 1 ? " node on this host" : " nodes on this host");
		break;
	}
	case AJ_MAKE_PROC:
	case AJ_MAKE_NONE:
		break;
	}
	/* 'link?': what the host's layout made of it (plan.c) */
	if ((m->flags & AJ_MOUNT_AS_HOST) && !e->missing)
		rp_t(aj_op(m->op)->make == AJ_MAKE_LINK
		         ? "\t(the host's own link)"
		         : "\t(the host has a directory here: bound read-only)");
	rp_jstr("layout", !(m->flags & AJ_MOUNT_AS_HOST)       ? NULL
	                  : e->missing                         ? "none"
	                  : aj_op(m->op)->make == AJ_MAKE_LINK ? "link"
	                                                       : "directory");
	rp_jstr("state", state);
	if (e->path)
		rp_jstr("why", why);
	rp_t("\n");
	rp_close();
}

static void print_buildable(void)
{
	rp_field("buildable");
	rp_open("buildable", '{');
	rp_bool("ok", !n_blockers);
	rp_t(n_blockers ? "no: " : "yes");
	rp_open("reasons", '[');
	for (unsigned i = 0; i < n_blockers && i < BLOCKERS_MAX; i++) {
		rp_t(i ? "; " : "");
		rp_open(NULL, '{');
		rp_str("layer", blockers[i].layer);
		rp_t(": ");
		rp_str("path", blockers[i].path);
		if (blockers[i].path)
			rp_t(": ");
		rp_str("why", blockers[i].why);
		rp_close();
	}
	rp_close();
	if (n_blockers > BLOCKERS_MAX)
		rp_t("; …");
	rp_close();
	rp_t("\n");
}

noreturn void explain(const struct run *r)
{
	const struct aj_variant *v = r->v;
	const char *group = v->command ? v->command : "";
	int status;
	unsigned pn;
	struct plan_entry *pl = plan_entries(&pn);

	out_fd(1);
	rp_open(NULL, '{');
	rp_ju("schema", 1);
	rp_field("policy");
	rp_str("policy", r->pol->name);
	rp_t(" (");
	rp_str("stub", aj_progname);
	rp_t(")\n");
	rp_field("identity");
	rp_str("identity", r->pol->identity);
	rp_t(r->pol->identity ? "\n" : "none\n");
	rp_field("command");
	rp_open("command", '{');
	rp_open("argv", '[');
	for (char **a = r->argv; a && *a; a++) {
		rp_t(a == r->argv ? "" : " ");
		rp_str(NULL, *a);
	}
	rp_close();
	if (*group) {
		rp_t(" (command group ");
		rp_str("group", group);
		rp_t(")");
	} else {
		rp_jstr("group", group);
	}
	rp_close();
	rp_t("\n");
	print_mode(r);
	line("project", "project", r->project);
	if (run_in_fallback(r)) {
		/* No UTS namespace: the container's own name. */
		struct utsname u;

		rp_field("hostname");
		rp_str("hostname", uname(&u) ? NULL : u.nodename);
		rp_t(" (the container's: no UTS namespace here)\n");
	} else {
		line("hostname", "hostname", v->hostname);
	}
	net_explain(r);
	term_explain();
	status = print_namespaces(r);
	print_landlock(v);
	print_toggles(r);
	rp_field("timeout");
	if (r->v->timeout || rp_json) {
		rp_u("timeout", r->v->timeout);
		rp_t(" s\n");
	} else {
		out_s("none\n");
	}
	rp_t(run_in_fallback(r) ? "mounts, in order (NONE is made here, the fallback has no mount "
	                          "namespace: the Landlock rules below stand for them):\n"
	                        : "mounts, in order:\n");
	rp_open("mounts", '[');
	for (unsigned i = 0; i < pn; i++)
		print_mount(&pl[i], true);
	rp_close();
	secrets_explain(r);
	sockets_explain(v, status == 2 || run_in_fallback(r));
	if (run_in_fallback(r))
		fallback_explain_rules(r);
	else
		report_landlock_rules(v);
	report_process(r, fallback_socket_filter(r));
	print_buildable();
	rp_close();
	if (rp_json)
		out_c('\n');
	out_flush();
	_exit(n_blockers ? AJ_EXIT_SETUP : status);
}
