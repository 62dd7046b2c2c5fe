/* main.c: the choice of variant and the order of the steps, as main()
 * below lists them (the stub's own options are options.c's table).
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
	netns_send(fd);
	TRACE_MARK("net-send");
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
	if (netns_later(r->v))
		netns_join(r->v, h.sock);
	TRACE_MARK("net-join");
	/* Before pid 1 confines itself: covering needs the mount calls that
	 * Landlock and the filter take away (appear.c); after the join: the
	 * covering process is of the jail's network namespace too. */
	supervise_helper = appear_start(r->v);
	TRACE_MARK("appear");
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
	first = options_parse(pol, argc, argv, &o);
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
