/* main.c: the stub's own options, the choice of variant, and the order of
 * the steps (DESIGN.md, "The stub, in order").
 *
 * Everything that needs no namespace (options, variables, the mount plan,
 * the project scan, the environment) is done first, in the caller's
 * process, so that --jail-explain shows exactly what a run would use and a
 * bad policy or host fails before anything is created. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sys.h"

extern char **environ;

static struct run run;
static char *env_slots[AJ_ENV_MAX];
static char env_arena[AJ_ENV_ARENA];
static char cwd[AJ_PATH_MAX];

static noreturn void help(const struct aj_policy *pol)
{
	out_fd(1);
	out_s("usage: ");
	out_s(aj_progname);
	if (pol->exec) {
		out_s(" [--jail-OPTION...] [--] [ARG...]\n\nRuns ");
		out_s(pol->exec);
		out_s(" ARG... in the \"");
		out_s(pol->name);
		out_s("\" jail.\n");
	} else {
		out_s(" [--jail-OPTION...] [--worker|--lockdown] [--timeout S] [--] COMMAND "
		      "[ARG...]\n\n"
		      "Runs COMMAND in the \"");
		out_s(pol->name);
		out_s(
		    "\" jail; its name picks the policy's command group.\n"
		    "  --worker, --lockdown  the same as --jail-mode=worker, --jail-mode=lockdown\n"
		    "  --timeout S           the same as --jail-timeout=S\n");
	}
	out_s("  --jail-explain        show what the jail would be, here and now, and exit\n"
	      "  --jail-mode=NAME      the mode, one of:");
	for (unsigned i = 0; i < pol->n_modes; i++) {
		out_c(' ');
		out_s(pol->modes[i]);
	}
	out_s("\n  --jail-timeout=S      kill everything after S seconds\n"
	      "  --jail-help           this text\n"
	      "  --                    ends the jail's options\n\n"
	      "Exit status: the command's; 128+N when it died of signal N; 124 on timeout;\n"
	      "125 when the jail could not be built; 126 when the command cannot run;\n"
	      "127 when it is not found.\n");
	out_flush();
	_exit(0);
}

static unsigned parse_seconds(const char *s, const char *opt)
{
	unsigned long v = 0;

	if (!*s)
		die_usage("a number of seconds is needed after", opt);
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > 100000000)
			die_usage("not a number of seconds", opt);
		v = v * 10 + (unsigned long)(*s - '0');
	}
	return (unsigned)v;
}

struct opts {
	const char *mode;     /* explicit mode name */
	const char *mode_opt; /* the option that named it */
	unsigned timeout;
	bool explain;
};

/* Returns the index of the first argument that is not the stub's. */
static int parse(const struct aj_policy *pol, int argc, char **argv, struct opts *o)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--"))
			return i + 1;
		if (!strncmp(a, "--jail-", 7)) {
			if (!strcmp(a, "--jail-explain"))
				o->explain = true;
			else if (!strcmp(a, "--jail-help"))
				help(pol);
			else if (!strncmp(a, "--jail-mode=", 12))
				o->mode = a + 12, o->mode_opt = "--jail-mode";
			else if (!strncmp(a, "--jail-timeout=", 15))
				o->timeout = parse_seconds(a + 15, "--jail-timeout");
			else
				die_usage("unknown option", a);
			continue;
		}
		if (pol->exec || a[0] != '-' || !a[1])
			break;
		if (!strcmp(a, "--worker") || !strcmp(a, "--lockdown"))
			o->mode = a + 2, o->mode_opt = a;
		else if (!strcmp(a, "--timeout"))
			o->timeout = parse_seconds(i + 1 < argc ? argv[++i] : "", "--timeout");
		else if (!strncmp(a, "--timeout=", 10))
			o->timeout = parse_seconds(a + 10, "--timeout");
		else
			die_usage("unknown option", a);
	}
	return i;
}

static noreturn void bad_mode(const struct aj_policy *pol, const char *name)
{
	out_fd(2);
	out_s(aj_progname);
	out_s(": fatal: unable to choose the mode ");
	out_s(name);
	out_s(": the modes of this policy are");
	for (unsigned i = 0; i < pol->n_modes; i++) {
		out_c(' ');
		out_s(pol->modes[i]);
	}
	out_c('\n');
	out_flush();
	_exit(AJ_EXIT_SETUP);
}

static unsigned mode_named(const struct aj_policy *pol, const char *name)
{
	for (unsigned i = 0; i < pol->n_modes; i++)
		if (!strcmp(pol->modes[i], name))
			return i;
	bad_mode(pol, name);
}

static void choose_mode(struct run *r, const struct opts *o)
{
	const struct aj_policy *pol = r->pol;
	const char *env;

	if (o->mode) {
		r->mode = mode_named(pol, o->mode);
		r->why = "chosen by";
		r->why_arg = o->mode_opt;
		return;
	}
	for (unsigned i = 0; i < pol->n_triggers; i++) {
		env = getenv(pol->triggers[i].env);
		if (env && *env) {
			r->mode = pol->triggers[i].mode;
			r->why = "triggered by";
			r->why_arg = pol->triggers[i].env;
			return;
		}
	}
	env = getenv("AIJAIL_MODE");
	if (env && *env) {
		r->mode = mode_named(pol, env);
		r->why = "chosen by";
		r->why_arg = "AIJAIL_MODE";
		return;
	}
	r->mode = pol->default_mode;
	r->why = "the policy's default";
}

static unsigned command_group(const struct aj_policy *pol, const char *cmd)
{
	const char *base = strrchr(cmd, '/');

	base = base ? base + 1 : cmd;
	for (unsigned i = 0; i < pol->n_commands; i++)
		if (!strcmp(pol->commands[i].name, base))
			return pol->commands[i].group;
	return 0;
}

static void find_project(struct run *r)
{
	char tidy[AJ_PATH_MAX];
	const char *home;

	/* The raw syscall: musl's getcwd() would bring malloc along.  The
	 * kernel answers "(unreachable)..." for a directory outside our root. */
	if (syscall(SYS_getcwd, cwd, sizeof(cwd)) < 0)
		die("find the project", errno, "the working directory is gone");
	if (path_normal(cwd, tidy, sizeof(tidy)) != cwd)
		die("find the project", 0, "the working directory is outside this root");
	home = var_value(AJ_VAR_HOME);
	if (!strcmp(cwd, "/"))
		die("jail the directory /", 0,
		    "it is the root directory; run it from a project directory");
	if (home && !strcmp(cwd, home))
		diep("jail the directory", cwd, 0,
		     "it is your home directory; run it from a project directory");
	vars_set(AJ_VAR_PROJECT, cwd);
	r->project = cwd;
}

int main(int argc, char **argv)
{
	const struct aj_policy *pol = aj_the_policy;
	struct run *r = &run;
	struct opts o = {0};
	unsigned idx;
	pid_t pid;
	int first, fd;

	die_init(pol->name);
	if (pol->abi != AJ_ABI || !pol->n_modes || !pol->n_groups)
		die("read the policy", 0, "it was compiled for another stub");
	first = parse(pol, argc, argv, &o);
	r->pol = pol;
	if (pol->exec) {
		argv[first - 1] = (char *)pol->exec;
		r->argv = argv + first - 1;
	} else if (first < argc) {
		r->argv = argv + first;
	} else if (!o.explain) {
		die_usage("no command given", NULL);
	}
	choose_mode(r, &o);
	r->group = r->argv ? command_group(pol, r->argv[0]) : 0;
	idx = r->group * pol->n_modes + r->mode;
	if (r->mode >= pol->n_modes || r->group >= pol->n_groups)
		die("read the policy", 0, "a trigger or command names no variant");
	r->v = &pol->variants[idx];
	r->timeout = o.timeout ? o.timeout : r->v->timeout;

	vars_init();
	find_project(r);
	plan_resolve(pol, r->v);
	for (unsigned i = 0; i < r->v->n_landlock_rules; i++)
		(void)var_value(r->v->landlock_rules[i].path.var);
	if (env_build(environ, r->v, env_slots, AJ_ENV_MAX, env_arena, sizeof(env_arena)) < 0)
		die("build the environment", errno, "the host passes too many variables");
	r->envp = env_slots;
	if (o.explain) {
		scan_project(r->project, r->v);
		explain(r);
	}

	ns_enter();
	signals_block();
	pid = ns_fork_init(&fd);
	if (pid) {
		/* The scan runs while pid 1 builds the root: off the critical
		 * path for as long as the mounts take. */
		aj_die_reap = pid;
		caps_clear();
		scan_project(r->project, r->v);
		ns_scan_send(fd);
		supervise_parent(pid);
	}
	init_prepare(r->v);
	plan_open_sources();
	plan_build_root();
	plan_build();
	ns_scan_receive();
	mask_apply(r->project);
	plan_finish(r->project);
	rlimits_apply(r->v);
	landlock_apply(r->v);
	fds_close();
	privs_drop();
	seccomp_install(r->v);
	supervise_init(r);
}
