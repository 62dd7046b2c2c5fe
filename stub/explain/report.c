/* report.c: --jail-explain's sections on the process the target would
 * be: environment, rlimits, limits, system call filter, and the Landlock
 * rules of the variant and the plan.  Printed through rp.c. */
#include <string.h>
#include <linux/seccomp.h>

#include "explain/explain.h"

static const char *const rlimit_names[] = {
    "cpu",     "fsize", "data",  "stack",      "core",     "rss",  "nproc",  "nofile",
    "memlock", "as",    "locks", "sigpending", "msgqueue", "nice", "rtprio", "rttime",
};

/* A limit: JSON null for none. */
static void limit(const char *key, uint64_t v)
{
	if (v != UINT64_MAX)
		rp_u(key, v);
	else if (rp_json)
		rp_str(key, NULL);
	else
		out_s("unlimited");
}

/* The spans that count in this run (a toggle's, only while it is on, or
 * off for its drops: env_span_counts); returns how many names. */
static unsigned print_names(const char *key, const struct aj_variant *v,
                            const struct aj_env_span *s, unsigned n, bool drop)
{
	unsigned names = 0;

	rp_open(key, '[');
	for (unsigned k = 0; k < n; k++)
		for (unsigned i = 0; i < s[k].n && env_span_counts(&s[k], v, drop); i++) {
			rp_str(NULL, s[k].v[i]);
			rp_t(" ");
			names++;
		}
	rp_close();
	return names;
}

/* Names only in JSON: the values of what is passed stay out of it. */
static void print_env(const struct run *r)
{
	const struct aj_variant *v = r->v;

	rp_open("env", '{');
	rp_field("env keep");
	print_names("keep", v, v->env_keep, v->n_env_keep, 0);
	rp_t("\n");
	rp_field("env drop");
	rp_t(print_names("drop", v, v->env_drop, v->n_env_drop, 1)
	         ? "(never passed, whatever keeps them)\n"
	         : "none\n");
	rp_field("env set");
	rp_open("set", '[');
	for (unsigned i = 0; i < v->n_env_set; i++) {
		const struct aj_path *p = &v->env_set[i].value;

		rp_t(i ? " " : "");
		rp_str(NULL, v->env_set[i].name);
		if (rp_json)
			continue;
		out_c('=');
		out_s(p->head ? p->head : "");
		if (p->var) {
			out_c('$');
			out_s(vars_name(p->var));
		}
		out_s(p->tail ? p->tail : "");
	}
	rp_close();
	rp_t("\n");
	rp_t("environment passed:\n");
	rp_open("passed", '[');
	for (char **e = r->envp; *e; e++) {
		rp_t("  ");
		if (rp_json)
			rp_strn(NULL, *e, (size_t)(strchrnul(*e, '=') - *e));
		else
			out_s(*e);
		rp_t("\n");
	}
	rp_close();
	rp_close();
}

static void print_rlimits(const struct aj_variant *v)
{
	rp_t("rlimits:");
	if (!v->n_rlimits)
		rp_t(" none");
	rp_t("\n");
	rp_open("rlimits", '[');
	for (unsigned i = 0; i < v->n_rlimits; i++) {
		const struct aj_rlimit *l = &v->rlimits[i];

		rp_open(NULL, '{');
		rp_t("  ");
		if (l->resource < sizeof(rlimit_names) / sizeof(rlimit_names[0]))
			rp_str("resource", rlimit_names[l->resource]);
		else
			rp_u("resource", l->resource);
		rp_t("\tsoft ");
		limit("soft", l->soft);
		rp_t(", hard ");
		limit("hard", l->hard);
		rp_t("\n");
		rp_close();
	}
	rp_close();
}

/* 'limit memory', 'limit processes': the figure, and what holds it here. */
static void print_bounds(const struct run *r)
{
	static const char *const names[LIMIT_N] = {"memory", "processes"};

	limits_probe();
	rp_t("limits:\n");
	rp_open("limits", '{');
	for (unsigned i = 0; i < LIMIT_N; i++) {
		const struct limit *l = limits_at(i);
		bool mem = i == LIMIT_MEMORY;
		const char *how = l->by_cgroup           ? "cgroup"
		                  : !l->value            ? "none"
		                  : mem                  ? "RLIMIT_DATA"
		                  : !limits_nproc_here() ? "none"
		                  : limits_host_root()   ? "none"
		                                         : "RLIMIT_NPROC";

		rp_t("  ");
		rp_t(names[i]);
		rp_t("\t");
		rp_open(names[i], '{');
		rp_ju("value", l->value);
		rp_ju("percent", l->percent);
		rp_ju("total", l->percent ? l->total : 0);
		rp_jstr("enforced_by", how);
		rp_jstr("cgroup", l->by_cgroup ? l->cgroup : NULL);
		rp_jstr("cgroup_file", l->by_cgroup ? l->file : NULL);
		if (rp_json && l->by_cgroup)
			rp_u("cgroup_version", l->v2 ? 2 : 1);
		else
			rp_jstr("cgroup_version", NULL);
		rp_jstr("why", l->value && !l->by_cgroup ? l->why : NULL);
		rp_close();
		if (rp_json)
			continue;
		if (!l->value) {
			out_s("unbounded\n");
			continue;
		}
		out_u(mem ? l->value >> 20 : l->value);
		out_s(mem ? " MiB" : " tasks");
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
		if (mem)
			out_s(": per process (RLIMIT_DATA): ");
		else if (!limits_nproc_here())
			out_s(": NOT enforced (RLIMIT_NPROC counts per user before Linux 5.14): ");
		else if (limits_host_root())
			out_s(": NOT enforced for root without a pids cgroup (RLIMIT_NPROC "
			      "does not bind the host's root): ");
		else if (run_in_fallback(r))
			out_s(": RLIMIT_NPROC, per user: every process of this user in the "
			      "container counts, not only the jail's: ");
		else
			out_s(": RLIMIT_NPROC, per user namespace (the jail's tasks): ");
		out_s(l->why);
		out_c('\n');
	}
	rp_close();
}

/* The rules of one line of the summary, split where no bracket is open:
 * "ioctl(*, in {0x5412, 0x541c})" is one. */
static void summary_rules(const char *p, const char *end)
{
	while (p < end) {
		const char *s;
		int open = 0;

		while (p < end && *p == ' ')
			p++;
		for (s = p; p < end && (open || *p != ' '); p++)
			open += (*p == '(' || *p == '{') - (*p == ')' || *p == '}');
		if (p > s)
			rp_strn(NULL, s, (size_t)(p - s));
	}
}

/* The compiler's summary (emit.c): "default ACTION (denylist|allowlist)",
 * maybe "allow: N rules …", then "ACTION: rule…" wrapped with an indent. */
static void summary_json(const char *s)
{
	const char *nl = strchrnul(s, '\n'), *paren = memchr(s, '(', (size_t)(nl - s));
	bool group = false;

	/* memchr, not strstr: that would bring musl's two-way search. */
	if (!strncmp(s, "default ", 8) && paren && paren > s + 9 && nl[-1] == ')') {
		rp_strn("default", s + 8, (size_t)(paren - s - 9));
		rp_strn("list", paren + 1, (size_t)(nl - paren - 2));
	}
	rp_open("groups", '[');
	for (s = *nl ? nl + 1 : nl; *s; s = *nl ? nl + 1 : nl) {
		const char *colon;

		nl = strchrnul(s, '\n');
		colon = memchr(s, ':', (size_t)(nl - s));
		if (*s != ' ' && (!colon || !strncmp(s, "allow:", 6)))
			continue;
		if (*s != ' ') {
			if (group) {
				rp_close();
				rp_close();
			}
			rp_open(NULL, '{');
			rp_strn("action", s, (size_t)(colon - s));
			rp_open("rules", '[');
			group = true;
			s = colon + 1;
		}
		if (group)
			summary_rules(s, nl);
	}
	if (group) {
		rp_close();
		rp_close();
	}
	rp_close();
}

/* Which refusals the run reports (notify.c), and whether this kernel
 * lets it: the action exists since Linux 5.0. */
static void print_reported(const struct aj_variant *v)
{
	uint32_t notif = SECCOMP_RET_USER_NOTIF;
	bool here = v->n_refused && !syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &notif);

	rp_open("reported", '{');
	rp_t("  reported: ");
	rp_u("calls", v->n_refused);
	rp_bool("listener", here);
	if (!v->n_refused) {
		rp_t(" calls (none is refused with an errno but ENOSYS)\n");
	} else if (here) {
		rp_t(" calls (the first filter's errno verdicts), answered with the\n"
		     "            filter's errno and counted by the stub's parent, through a\n"
		     "            seccomp listener\n");
		if (v->n_filters > 1)
			rp_t(
			    "            (what another filter also refuses: refused unreported)\n");
	} else {
		rp_t(" calls, but not here:");
	}
	rp_jstr("why",
	        here || !v->n_refused ? NULL : "the kernel has no seccomp user notification");
	rp_t(here || !v->n_refused ? ""
	                           : " the kernel has no seccomp user notification (5.0);\n"
	                             "            they are refused all the same, without a word\n");
	rp_close();
}

static void print_seccomp(const struct aj_variant *v, unsigned fb_filter)
{
	const char *s = v->seccomp_summary;
	unsigned long long total = 0;

	rp_field("seccomp");
	rp_open("seccomp", '{');
	rp_open("filters", '[');
	for (unsigned i = 0; i < v->n_filters; i++) {
		rp_t(i ? " + " : "");
		rp_u(NULL, v->filters[i].n);
		total += v->filters[i].n;
	}
	rp_close();
	rp_ju("instructions", total);
	rp_t(v->n_filters == 1 ? " BPF instructions in 1 filter\n" : " BPF instructions in ");
	if (v->n_filters != 1 && !rp_json) {
		out_u(v->n_filters);
		out_s(" filters, all of them run on every system call\n");
	}
	/* The fallback's own, without a network namespace (fallback.c). */
	rp_ju("fallback_filter", fb_filter);
	if (fb_filter && !rp_json) {
		out_s("  + the fallback's own filter, ");
		out_u(fb_filter);
		out_s(" instructions: socket() of every family but AF_UNIX: EAFNOSUPPORT\n");
	}
	rp_jstr("summary", s);
	if (rp_json && s)
		summary_json(s);
	if (!rp_json && s && *s) {
		out_s("  ");
		for (; *s; s++) {
			out_c(*s);
			if (*s == '\n' && s[1])
				out_s("  ");
		}
		if (s[-1] != '\n')
			out_c('\n');
	}
	print_reported(v);
	rp_close();
}

/* The variant's own Landlock rules, then the mounts', in the plan's order;
 * a skipped mount has none. */
void report_landlock_rules(const struct aj_variant *v)
{
	char path[AJ_PATH_MAX];
	unsigned pn;
	struct plan_entry *pl = plan_entries(&pn);

	rp_open("landlock_rules", '[');
	if (v->landlock == AJ_LANDLOCK_OFF) {
		rp_close();
		return;
	}
	rp_t("landlock rules:\n");
	for (unsigned i = 0; i < v->n_landlock_rules; i++) {
		const struct aj_landlock_rule *r = &v->landlock_rules[i];

		landlock_explain_rule(vars_path_join(&r->path, path, sizeof(path)) < 0 ? NULL
		                                                                       : path,
		                      r->path.var, false, r->access);
	}
	/* The mounts' own rules, in the plan's order; a skipped mount has none. */
	for (unsigned i = 0; i < pn; i++) {
		const struct plan_entry *e = &pl[i];

		if (e->m->landlock)
			landlock_explain_rule(e->path, e->m->path.var,
			                      e->m->flags & AJ_MOUNT_OPTIONAL, e->m->landlock);
	}
	rp_close();
}

/* fb_filter: the length of the fallback's own filter where it installs
 * one (fallback_socket_filter(), told by the caller: the fallback is
 * above this file). */
void report_process(const struct run *r, unsigned fb_filter)
{
	print_env(r);
	print_rlimits(r->v);
	print_bounds(r);
	print_seccomp(r->v, fb_filter);
}
