/* main.c: the stub's own options, the choice of variant, and the order of
 * the steps, as main() below lists them.
 *
 * Everything that needs no namespace (options, variables, the mount plan,
 * the project scan, the environment) is done first, in the caller's
 * process, so that --jail-explain shows exactly what a run would use and a
 * bad policy or host fails before anything is created. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "stub.h"

extern char **environ;

static struct run run;
static char *env_slots[AJ_ENV_MAX];
static char env_arena[AJ_ENV_ARENA];
static char cwd[AJ_PATH_MAX];

struct opts {
	const char *mode;          /* explicit mode name */
	const char *mode_opt;      /* the option that named it */
	const char *log, *log_opt; /* --jail-log=FILE */
	bool explain;
	const struct aj_policy *pol;
};

static noreturn void help(const struct aj_policy *pol);

/* Which tables, from which compiler: the identity aijail-compile printed. */
static noreturn void version(const struct aj_policy *pol)
{
	out_fd(1);
	out_s(aj_progname);
	out_s(": policy ");
	out_s(pol->name);
	out_s("\nidentity: ");
	out_s(pol->identity ? pol->identity : "none (compiled before identities)");
	out_c('\n');
	out_flush();
	_exit(0);
}

/* What each option sets: where its state lives (the room that uses it),
 * or struct opts for what main() decides with. */
static void set_explain(struct opts *o, const char *v, const char *opt)
{
	if (v && strcmp(v, "json"))
		die_usage("json or nothing is needed after", opt);
	o->explain = true, rp_json = v;
}
static void set_help(struct opts *o, const char *v, const char *opt)
{
	help(o->pol);
}
static void set_version(struct opts *o, const char *v, const char *opt)
{
	version(o->pol);
}
static void set_mode(struct opts *o, const char *v, const char *opt)
{
	o->mode = v, o->mode_opt = opt;
}
static void set_ro(struct opts *o, const char *v, const char *opt)
{
	extra_map(v, false, opt);
}
static void set_rw(struct opts *o, const char *v, const char *opt)
{
	extra_map(v, true, opt);
}
static void set_net(struct opts *o, const char *v, const char *opt)
{
	if (v && strcmp(v, "public"))
		die_usage("public or nothing is needed after", opt);
	extra_net(v ? AJ_NET_PUBLIC : AJ_NET_HOST, opt);
}
static void set_net_max(struct opts *o, const char *v, const char *opt)
{
	if (strcmp(v, "public"))
		die_usage("public is needed after", opt);
	extra_net_max(AJ_NET_PUBLIC);
}
static void set_no_net(struct opts *o, const char *v, const char *opt)
{
	extra_net(AJ_NET_NONE, opt);
}
static void set_allow_host(struct opts *o, const char *v, const char *opt)
{
	egress_allow_host(v, opt);
}
static void set_forward(struct opts *o, const char *v, const char *opt)
{
	forward_add(v, opt);
}
static void set_secret(struct opts *o, const char *v, const char *opt)
{
	secret_add(v, opt);
}
static void set_publish(struct opts *o, const char *v, const char *opt)
{
	publish_add(v, opt);
}
static void set_timeout(struct opts *o, const char *v, const char *opt)
{
	extra_timeout(v, opt);
}
static void set_log(struct opts *o, const char *v, const char *opt)
{
	o->log = v, o->log_opt = opt;
}
static void set_log_allowed(struct opts *o, const char *v, const char *opt)
{
	if (strcmp(v, "yes") && strcmp(v, "no"))
		die_usage("yes or no is needed after", opt);
	reached_on = v[0] == 'y';
}
static void set_terminal(struct opts *o, const char *v, const char *opt)
{
	term_option(v, opt);
}
static void set_status_fd(struct opts *o, const char *v, const char *opt)
{
	status_option(v, opt);
}

/* The options every stub takes, one row each: parsing, --jail-help and
 * which options take a value all read this table.  Spelt
 * --jail-NAME[=VALUE]; the generic jail also takes --NAME, --NAME VALUE
 * for a row whose value is needed, and --MODE for each mode.  A toggle's
 * --jail-T and --jail-no-T are the policy's (variant/extra.c), after the
 * table.  help: '\n' starts a line of its own, under the first. */
enum { ARG_NONE, ARG_NEEDED, ARG_OPTIONAL };
static const struct option {
	const char *name, *arg, *help;
	unsigned char takes;
	void (*set)(struct opts *o, const char *value, const char *opt);
} options[] = {
    {"explain", "json", "show what the jail would be, here and now, and exit", ARG_OPTIONAL,
     set_explain},
    {"mode", "NAME", "the mode, weakest first:", ARG_NEEDED, set_mode},
    {"ro", "PATH",
     "also PATH, read-only (a directory or a file; not a\nsystem directory, nor $HOME or a "
     "parent of it)",
     ARG_NEEDED, set_ro},
    {"rw", "PATH", "also PATH, writable (not in a read-only mode)", ARG_NEEDED, set_rw},
    {"net", "public",
     "the host's network (not in a mode that takes it\naway); =public: any name, only to "
     "public\naddresses, never the host's",
     ARG_OPTIONAL, set_net},
    {"net-max", "public",
     "the network never wider than public (a 'host'\ngroup gets public; none and allow stay)",
     ARG_NEEDED, set_net_max},
    {"no-net", NULL, "no network at all", ARG_NONE, set_no_net},
    {"allow-host", "HOST[:PORT]",
     "also HOST (443 unless PORT), through the jail's\nproxy: the network is then the named "
     "hosts only",
     ARG_NEEDED, set_allow_host},
    {"forward", "[HOST:]PORT",
     "the host's 127.0.0.1:PORT (HOST 127.0.0.1 or\n::1) at the jail's own 127.0.0.1:PORT and "
     "[::1]:PORT,\nbeside the policy's 'forward' (at most 8 in all)",
     ARG_NEEDED, set_forward},
    {"secret", "NAME=HOST[:PORT][,...]",
     "your variable NAME, which the jail sees as a\nplaceholder; its value is added only to "
     "https\nrequests to the HOSTs (docs/keys.md)",
     ARG_NEEDED, set_secret},
    {"publish", "[ADDR:][HOSTPORT:]PORT",
     "the jail's 127.0.0.1:PORT on the host's\nADDR:HOSTPORT (127.0.0.1:PORT unless named; at "
     "most 8)",
     ARG_NEEDED, set_publish},
    {"timeout", "S", "kill everything after S seconds", ARG_NEEDED, set_timeout},
    {"log", "FILE",
     "append what the jail refused, and each connection the\nproxy allowed, to FILE as JSON "
     "lines (not one the jail\ncan write)",
     ARG_NEEDED, set_log},
    {"log-allowed", "yes|no", "no: only the refusals in --jail-log's FILE", ARG_NEEDED,
     set_log_allowed},
    {"terminal", "passthrough|filter",
     "passthrough: your terminal to the jail as it is\n(the default, filter, gives it a "
     "pseudo-terminal whose\noutput goes through a filter)",
     ARG_NEEDED, set_terminal},
    {"status-fd", "N",
     "when the run ends, one JSON line to fd N (above 2):\nwhether the jail was built, the "
     "command ran, how it\nended; no process of the jail holds N (jail(1))",
     ARG_NEEDED, set_status_fd},
    {"version", NULL, "the policy's identity and the compiler's version", ARG_NONE, set_version},
    {"help", NULL, "this text", ARG_NONE, set_help},
};
#define N_OPTIONS (sizeof(options) / sizeof(options[0]))

/* "  --jail-NAME=ARG" then its help from column 25, or on the next line
 * when the name is longer. */
static void help_row(const struct option *op, const struct aj_policy *pol)
{
	static const char pad[] = "                        ";
	size_t n = 9 + strlen(op->name);

	out_s("  --jail-");
	out_s(op->name);
	if (op->takes != ARG_NONE) {
		out_s(op->takes == ARG_OPTIONAL ? "[=" : "=");
		out_s(op->arg);
		out_s(op->takes == ARG_OPTIONAL ? "]" : "");
		n += strlen(op->arg) + (op->takes == ARG_OPTIONAL ? 3 : 1);
	}
	if (n + 1 < sizeof(pad))
		out_s(pad + n);
	else
		out_s("\n"), out_s(pad);
	for (const char *h = op->help; *h; h++) {
		out_c(*h);
		if (*h == '\n')
			out_s(pad);
	}
	if (op->set == set_mode)
		for (unsigned i = 0; i < pol->n_modes; i++)
			out_c(' '), out_s(pol->modes[i]);
	out_c('\n');
}

static noreturn void help(const struct aj_policy *pol)
{
	out_fd(1);
	out_s("usage: ");
	out_s(aj_progname);
	if (pol->exec) {
		out_s(" [--jail-OPTION...] [--] [ARG...]\n\nRuns ");
		out_s(pol->exec);
		for (unsigned i = 0; i < pol->n_exec_args; i++) {
			out_c(' ');
			out_s(pol->exec_args[i]);
		}
		out_s(" ARG... in the \"");
		out_s(pol->name);
		out_s("\" jail.\n");
	} else {
		out_s(" [OPTION...] [--] COMMAND [ARG...]\n\n"
		      "Runs COMMAND in the \"");
		out_s(pol->name);
		out_s("\" jail; its name picks the policy's command group.\n"
		      "Each --jail-NAME[=VALUE] below may also be spelt --NAME [VALUE], and\n"
		      "--jail-mode=MODE as --MODE.\n");
	}
	for (unsigned i = 0; i < N_OPTIONS; i++)
		help_row(&options[i], pol);
	out_s("  --jail-T, --jail-no-T the toggle T on or off (not on in a mode that turns it\n"
	      "                        off), T one of" AJ_TOGGLES(
	          AJ_WORD_ITEM) "\n"
	                        "  --                    ends the jail's options\n\n"
	                        "Exit status: the command's; 128+N when it died of signal N; 124 "
	                        "on timeout;\n"
	                        "125 when the jail could not be built (or the command exited 125;\n"
	                        "--jail-status-fd tells them apart); 126 when the command cannot "
	                        "run;\n"
	                        "127 when it is not found.  --jail-explain: 0 when the jail can be "
	                        "built here,\n"
	                        "2 when the policy's fallback (no namespaces) would run instead, "
	                        "125 when\n"
	                        "nothing would.\n");
	out_flush();
	_exit(0);
}

static const struct option *option_row(const char *name)
{
	for (unsigned i = 0; i < N_OPTIONS; i++)
		if (!strcmp(options[i].name, name))
			return &options[i];
	return NULL;
}

static bool is_mode(const struct aj_policy *pol, const char *name)
{
	for (unsigned i = 0; i < pol->n_modes; i++)
		if (!strcmp(pol->modes[i], name))
			return true;
	return false;
}

/* Returns the index of the first argument that is not the stub's.  A
 * per-tool stub stops at the first argument that is not --jail-*: its
 * tool's own options never collide with ours. */
static int parse(const struct aj_policy *pol, int argc, char **argv, struct opts *o)
{
	int i;

	o->pol = pol;
	for (i = 1; i < argc; i++) {
		char name[16];
		const char *opt = argv[i], *a = opt, *eq, *value = NULL;
		const struct option *op;
		size_t n;

		if (!strcmp(a, "--"))
			return i + 1;
		if (!strncmp(a, "--jail-", 7))
			a += 7;
		else if (!pol->exec && a[0] == '-' && a[1] == '-')
			a += 2;
		else if (!pol->exec && a[0] == '-' && a[1])
			die_usage("unknown option", opt);
		else
			break;
		eq = strchr(a, '=');
		n = eq ? (size_t)(eq - a) : strlen(a);
		if (n >= sizeof(name))
			die_usage("unknown option", opt);
		memcpy(name, a, n);
		name[n] = '\0';
		value = eq ? eq + 1 : NULL;
		op = option_row(name);
		if (!eq && a == opt + 2 && !op && is_mode(pol, name)) {
			o->mode = a, o->mode_opt = opt; /* --MODE, the generic jail's */
			continue;
		}
		/* --NAME VALUE, the generic jail's spelling */
		if (!eq && a == opt + 2 && op && op->takes == ARG_NEEDED)
			value = i + 1 < argc ? argv[++i] : "";
		if (op && value && op->takes == ARG_NONE)
			die_usage("no value is taken by", opt);
		else if (op && !value && op->takes == ARG_NEEDED)
			die_usage("a value is needed after", opt);
		else if (op)
			op->set(o, value, opt);
		else if (value || !extra_toggle(name, opt))
			die_usage("unknown option", opt);
	}
	return i;
}

/* Is the bare name cmd found through the caller's PATH in a directory
 * outside the project?  Only then is it the tool the user means: a file
 * of the same name in the project (./tools/TOOL, or PATH=.:…) is
 * whatever a jailed run put there, and gets no tool's profile.  The
 * project is the working directory, compared by identity.  The jail
 * searches its own PATH again, which is the same list (env keep PATH). */
static bool found_outside(const char *cmd)
{
	const char *path = getenv("PATH");
	char buf[AJ_PATH_MAX];
	size_t cl = strlen(cmd);

	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (;;) {
		const char *end = strchrnul(path, ':');
		size_t dl = (size_t)(end - path);

		/* An empty or relative entry is the working directory's. */
		if (dl && path[0] == '/' && dl + 1 + cl < sizeof(buf)) {
			memcpy(buf, path, dl);
			buf[dl] = '/';
			memcpy(buf + dl + 1, cmd, cl + 1);
			if (!access(buf, X_OK)) {
				static struct ident ids[AJ_IDENT_DEPTH];
				struct stat pst;
				int n;

				/* By identity: a PATH entry that reaches the
				 * project through a link (~/bin -> the
				 * project's bin) is the project's. */
				buf[dl] = '\0';
				n = resolve_ident_chain_at(buf, ids, AJ_IDENT_DEPTH);
				return n > 0 && !stat(".", &pst) &&
				       !resolve_ident_in(ids, (unsigned)n, &pst);
			}
		} else if (dl < sizeof(buf)) {
			return false;
		}
		if (!*end)
			return false;
		path = end + 1;
	}
}

static unsigned command_group(const struct aj_policy *pol, const char *cmd)
{
	if (strchr(cmd, '/'))
		return 0;
	for (unsigned i = 0; i < pol->n_commands; i++)
		if (!strcmp(pol->commands[i].name, cmd))
			return found_outside(cmd) ? pol->commands[i].group : 0;
	return 0;
}

/* The project is the working directory itself, which pid 1 inherits and
 * clones without a name (resolve.c); the string is only where it appears
 * inside.  "/" and $HOME are refused on identity, so that no spelling
 * (a symlink, a bind) gets around it. */
static void find_project(struct run *r)
{
	char tidy[AJ_PATH_MAX];
	const char *home;
	struct stat cw, st;

	/* The raw syscall: musl's getcwd() would bring malloc along.  The
	 * kernel answers "(unreachable)..." for a directory outside our root. */
	if (syscall(SYS_getcwd, cwd, sizeof(cwd)) < 0)
		die("find the project", errno, "the working directory is gone");
	if (vars_path_normal(cwd, tidy, sizeof(tidy)) != cwd)
		die("find the project", 0, "the working directory is outside this root");
	if (stat(".", &cw))
		die("find the project", errno, NULL);
	home = vars_value(AJ_VAR_HOME);
	if (!stat("/", &st) && st.st_dev == cw.st_dev && st.st_ino == cw.st_ino)
		die("jail the directory /", 0,
		    "it is the root directory; run it from a project directory");
	if (home && !stat(home, &st) && st.st_dev == cw.st_dev && st.st_ino == cw.st_ino)
		diep("jail the directory", cwd, 0,
		     "it is your home directory; run it from a project directory");
	vars_set(AJ_VAR_PROJECT, cwd);
	r->project = cwd;
}

/* The three processes of a launch, one entry point each: the caller (main()
 * below, which becomes the parent), pid 1 (init_run()) and the target
 * (proc/supervise.c: supervise_init() forks it, target_exec() is its last
 * step).  The parent and pid 1 speak over one socket, fd, in the order
 * proc/ns.c's ns_fork_init() gives: the scan (ns_scan_send), the host's
 * sockets to cover (sockets_send); then from pid 1 the proxy's listener
 * (proxy_start), the forwards' listeners (forward_start) and the refusal
 * listener (notify_start). */

/* The parent, outside every namespace: the scan while pid 1 builds the
 * root (off the critical path for as long as the mounts take), then the
 * one loop: signals, refusals, the proxy. */
static noreturn void parent_run(const struct run *r, pid_t pid, int fd, int wfd)
{
	const struct ev_source *src[LOOP_SOURCES];
	unsigned n = 0;

	die_reap = pid;
	limits_place(pid); /* as the caller could: a v1 hierarchy's root is mode 0555 */
	privs_caps_clear(limits_keep());
	TRACE_MARK("limits-place");
	watch_scan(wfd, r->v);
	TRACE_MARK("scan");
	ns_scan_send(fd);
	TRACE_MARK("scan-send");
	sockets_send();
	TRACE_MARK("sockets-list");
	settle_watch_close(); /* after the hand-over: it may wait for the kernel */
	TRACE_MARK("settle-close");
	if (AJ_NET_PROXIED(r->v->network) && (src[n] = proxy_start(fd))) {
		n++;
		if ((src[n] = names_start(fd)))
			n++;
	}
	if ((src[n] = forward_start(fd)))
		n++;
	if ((src[n] = secret_source()))
		n++;
	if ((src[n] = term_start()))
		n++;
	src[n++] = notify_start(r->v, fd);
	TRACE_MARK("loop-setup");
	TRACE_FLUSH();
	supervise_parent(pid, src, n);
}

/* pid 1, in the new namespaces: its listeners, the root (root/build.c),
 * the bounds, Landlock, the privileges dropped, the filters; then it
 * supervises the target.  Each file is visited once, in this order
 * (docs/layout.md, "The processes of a launch"). */
static noreturn void init_run(struct run *r)
{
	int fds[LIMIT_N];
	struct build_hand h = {.tail = &limits_how,
	                       .len = sizeof(limits_how),
	                       .fds = fds,
	                       .max_fds = LIMIT_N,
	                       .pem = secret_ca_pem()};
	int ruleset, keep_status, keep_publish;

	TRACE_WHO("init");
	TRACE_MARK("running");
	term_child();
	h.sock = ns_init_prepare(r->v);
	TRACE_MARK("hostname+lo");
	mode_seal(r);
	TRACE_MARK("seal");
	/* The proxy's listeners, in the jail's network namespace and before
	 * the pivot (names.c reads the host's resolv.conf): the parent starts
	 * them while pid 1 builds the root. */
	if (AJ_NET_PROXIED(r->v->network)) {
		proxy_listen(h.sock);
		names_listen(h.sock);
	}
	build_root(r, &h);
	supervise_helper = h.appear;
	limits_take(r->v, fds, h.n_fds);
	ruleset = landlock_create(r->v);
	if (ruleset >= 0)
		fence_apply(ruleset, r->v);
	/* The forwards' listeners bind no path: here, beside their rule. */
	forward_listen(h.sock);
	if (ruleset >= 0)
		forward_landlock(ruleset);
	keep_status = status_keep();
	keep_publish = publish_keep();
	/* pid 1's socket is kept while a listener is to be handed over
	 * (ns_notify_send). */
	privs_confine(ruleset, r->v->n_refused ? h.sock : -1, keep_status, keep_publish);
	seccomp_install(r->v);
	TRACE_MARK("seccomp");
	TRACE_FLUSH();
	supervise_init(r);
}

/* The target, the policy's own arguments, then the caller's: in a fixed
 * array, as the environment is (env_slots), since the caller's argv has
 * no room before them.  More than it holds is refused, not cut. */
static char **exec_argv(const struct aj_policy *pol, char **args, int n)
{
	static char *slots[1 + AJ_EXEC_ARGS_MAX + AJ_EXEC_CALLER_MAX + 1];
	unsigned k = 0;

	_Static_assert(AJ_EXEC_CALLER_MAX == 4096, "the hint below names the bound");
	if (n > AJ_EXEC_CALLER_MAX)
		die("read the arguments", E2BIG,
		    "a stub whose policy gives the command arguments of its own takes at most "
		    "4096 of the caller's");
	slots[k++] = (char *)pol->exec;
	for (unsigned i = 0; i < pol->n_exec_args && i < AJ_EXEC_ARGS_MAX; i++)
		slots[k++] = (char *)pol->exec_args[i];
	for (int i = 0; i < n; i++)
		slots[k++] = args[i];
	slots[k] = NULL;
	return slots;
}

int main(int argc, char **argv)
{
	const struct aj_policy *pol = aj_the_policy;
	struct run *r = &run;
	struct opts o = {0};
	unsigned idx;
	pid_t pid;
	int first, fd, wfd;

	TRACE_MARK("start");
	if (pol->abi != AJ_ABI || !pol->n_modes || !pol->n_groups)
		die("read the policy", 0, "it was compiled for another stub");
	first = parse(pol, argc, argv, &o);
	if (o.explain)
		status_off();
	r->pol = pol;
	if (pol->exec && pol->n_exec_args) {
		r->argv = exec_argv(pol, argv + first, argc - first);
	} else if (pol->exec) {
		argv[first - 1] = (char *)pol->exec;
		r->argv = argv + first - 1;
	} else if (first < argc) {
		r->argv = argv + first;
	} else if (!o.explain) {
		die_usage("no command given", NULL);
	}
	mode_choose(r, o.mode, o.mode_opt);
	vars_init();
	find_project(r);
	if (o.log && !o.explain)
		reflog_open(o.log, o.log_opt);
	/* After the project's check against the caller's own $HOME. */
	private_home_path(!o.explain);
	r->group = r->argv && !pol->exec ? command_group(pol, r->argv[0]) : 0;
	idx = r->group * pol->n_modes + r->mode;
	if (r->mode >= pol->n_modes || r->group >= pol->n_groups)
		die("read the policy", 0, "a trigger or command names no variant");
	r->v = &pol->variants[idx];

	r->v = forward_apply(egress_apply(extra_apply(r)));
	if (!o.explain)
		publish_bind(
		    AJ_NET_PROXIED(r->v->network)); /* a port in use: 125 before anything */
	secret_spawn(r->v, o.explain);
	/* Before any namespace: a watcher found is outside them all, one
	 * started stays so. */
	TRACE_MARK("args+project");
	wfd = watch_ask(r->v, pol->modes[r->mode]);
	TRACE_MARK("watch-ask");
	/* Before anything is resolved: the fallback has a $HOME of its own. */
	if (o.explain)
		r->fallback = nscause_blocked(r->v, true);
	else
		r->fallback = ns_start(r->v);
	TRACE_MARK("userns+maps");
	if (r->fallback)
		forward_no_namespace();
	if (r->fallback && (r->v->flags & AJ_VARIANT_FALLBACK))
		fallback_prepare(r->v, !o.explain);
	plan_resolve(r->v);
	plan_log_check();
	TRACE_MARK("plan-resolve");
	for (unsigned i = 0; i < r->v->n_landlock_rules; i++)
		(void)vars_value(r->v->landlock_rules[i].path.var);
	if (env_build(environ, r->v, env_slots, AJ_ENV_MAX, env_arena, sizeof(env_arena)) < 0)
		die("build the environment", errno, "the host passes too many variables");
	r->envp = env_slots;
	egress_hosts(r->v, r->envp);
	egress_env(r->v, env_slots, AJ_ENV_MAX);
	secret_env(r->v, env_slots, AJ_ENV_MAX);
	trust_env(env_slots, AJ_ENV_MAX);
	if (run_in_fallback(r))
		fallback_env(env_slots, AJ_ENV_MAX);
	if (run_in_fallback(r) && secret_count() && !o.explain)
		die("bind a key", 0, "the fallback (no namespaces) has no proxy to add it");
	limits_resolve(r->v);
	term_setup(o.explain);
	if (o.explain) {
		/* The fallback's walk asks its record: no watcher knows it. */
		if (run_in_fallback(r))
			record_read(r);
		watch_scan(run_in_fallback(r) ? -1 : wfd, r->v);
		explain(r);
	}
	if (run_in_fallback(r))
		fallback_run(r);

	TRACE_MARK("env+limits");
	sockets_prepare(r->v);
	supervise_block();
	appear_prepare(r->v);
	pid = ns_fork_init(r->v, &fd);
	if (pid) {
		TRACE_MARK("clone");
		parent_run(r, pid, fd, wfd);
	}
	init_run(r);
}
