/* test_egress.c: which hosts a run of 'network allow' may reach, and
 * what its tools are told (stub/egress/egress.c): for npm, pip, uv and cargo, a
 * registry in the tool's own configuration (its variables, then its file
 * below a temporary $HOME) replaces the tool's default host or adds one,
 * and a registry only the file names is handed to the tool in its
 * variable; the proxy's variables; --jail-allow-host.  egress.c keeps its
 * state in statics for the one run of a stub, so each case runs in a child
 * of the test and reports what --jail-explain would list (the report's
 * writer is a fake that records), the environment the jail would get and
 * the list's answers, as text the test compares. */
#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "common/hosts.h"
#include "egress/egress.h"
#include "follow.h" /* the compiler's rows of each tool, as it emits them */

/* ---- fakes: everything lands in the child's report ------------------------ */

static const struct aj_policy fake_policy = {.name = "tpol", .progname = "jail-tpol"};
const struct aj_policy *const aj_the_policy = &fake_policy;

static FILE *rep; /* the child's report */

noreturn void diep(const char *step, const char *what, int err, const char *hint)
{
	fprintf(rep, "die: %s%s%s: %d%s%s\n", step, what ? " " : "", what ? what : "", err,
	        hint ? ": " : "", hint ? hint : "");
	fflush(rep);
	_exit(125);
}

noreturn void die(const char *step, int err, const char *hint)
{
	diep(step, NULL, err, hint);
}

noreturn void die_usage(const char *what, const char *arg)
{
	diep("usage", arg, 0, what);
}

static const char *net_option;
static unsigned forwards; /* what forward_count() says */

const char *extra_net_option(void)
{
	return net_option;
}

unsigned forward_count(void)
{
	return forwards;
}

static unsigned depth;

/* resolver.c's: no host address. */
bool resolver_own_read(void)
{
	return true;
}

bool resolver_own(const struct sockaddr *sa)
{
	(void)sa;
	return false;
}

static bool in_relay; /* names.c's object: what egress_ports() says is checked */

void rp_open(const char *key, char kind)
{
	(void)kind;
	if (key && !strcmp(key, "relay")) {
		in_relay = true;
		return;
	}
	depth++;
}
void rp_close(void)
{
	if (in_relay) {
		in_relay = false;
		return;
	}
	if (depth-- == 2) /* a host's object */
		fputc('\n', rep);
}
void rp_t(const char *s)
{
	(void)s;
}
void rp_str(const char *key, const char *s)
{
	if (strcmp(key, "proxy") && !in_relay)
		fprintf(rep, "%s%s=%s", strcmp(key, "host") ? " " : "", key, s);
}
void rp_jstr(const char *key, const char *s)
{
	(void)key, (void)s;
}
/* The upstream (upstream.c, tested in test_upstream.c): none here,
 * whatever the test's own environment names. */
void upstream_read(char *const *envp)
{
	(void)envp;
}
void upstream_explain(void)
{
}
void refusals_host(const char *kind, const char *target, const char *why)
{
	(void)kind, (void)target, (void)why;
}

/* ---- the runs ------------------------------------------------------------- */

static char home[64];

static void put(const char *rel, const char *text)
{
	char path[256], *s;
	int fd;

	snprintf(path, sizeof(path), "%s%s", home, rel);
	for (s = path + strlen(home) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(p);
}

static int fresh_home(void **state)
{
	(void)state;
	strcpy(home, "/tmp/aj-egress.XXXXXX");
	assert_non_null(mkdtemp(home));
	return 0;
}

static int drop_home(void **state)
{
	(void)state;
	nftw(home, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	return 0;
}

struct egress_run {
	const struct aj_variant *v;
	const char *const *env;   /* the host's environment */
	const char *const *allow; /* --jail-allow-host values */
	const char *const *ask;   /* targets for egress_allowed() */
	const char *const *names; /* names for egress_ports() */
};

/* The hosts as --jail-explain lists them ("host=H from=WHERE" a line, $HOME
 * written ~),
 * "env" and every variable the jail's environment has that the host's had
 * not, or had otherwise, then "TARGET yes|no" for each target asked. */
static const char *run(const struct egress_run *r)
{
	static char out[8192];
	int p[2];
	pid_t pid;
	size_t n = 0;
	ssize_t got;
	int status;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		char *envp[64], *before[64];
		unsigned ne = 0;

		close(p[0]);
		rep = fdopen(p[1], "w");
		vars_set(AJ_VAR_HOME, home);
		for (; r->env && r->env[ne]; ne++)
			envp[ne] = before[ne] = (char *)r->env[ne];
		envp[ne] = before[ne] = NULL;
		for (unsigned i = 0; r->allow && r->allow[i]; i++)
			egress_allow_host(r->allow[i], "--jail-allow-host");
		const struct aj_variant *v = egress_apply(r->v);

		fprintf(rep, "network=%u\n", v->network);
		egress_hosts(v, envp);
		egress_explain();
		fputs("env\n", rep);
		egress_env(v, envp, 16);
		for (unsigned i = 0; envp[i]; i++) {
			bool same = false;

			for (unsigned j = 0; before[j]; j++)
				same |= before[j] == envp[i];
			if (!same)
				fprintf(rep, "%s\n", envp[i]);
		}
		for (unsigned i = 0; r->ask && r->ask[i]; i++)
			fprintf(rep, "%s %s\n", r->ask[i],
			        egress_allowed(r->ask[i]) ? "yes" : "no");
		for (unsigned i = 0; r->names && r->names[i]; i++) {
			uint16_t ports[4];
			unsigned np = egress_ports(r->names[i], ports, 4);

			fprintf(rep, "%s:", r->names[i]);
			for (unsigned j = 0; j < np; j++)
				fprintf(rep, " %u", ports[j]);
			fputc('\n', rep);
		}
		fclose(rep);
		_exit(0);
	}
	close(p[1]);
	while ((got = read(p[0], out + n, sizeof(out) - 1 - n)) > 0)
		n += (size_t)got;
	out[n] = '\0';
	close(p[0]);
	/* The temporary $HOME, as ~. */
	for (char *h; (h = strstr(out, home));) {
		*h = '~';
		memmove(h + 1, h + strlen(home), strlen(h + strlen(home)) + 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return out;
}

/* The proxy's own variables, as every run with the level gets them. */
#define PROXY_ENV                                                                                  \
	"HTTPS_PROXY=http://127.0.0.1:3128\nhttps_proxy=http://127.0.0.1:3128\n"                   \
	"HTTP_PROXY=http://127.0.0.1:3128\nhttp_proxy=http://127.0.0.1:3128\n"                     \
	"ALL_PROXY=http://127.0.0.1:3128\nall_proxy=http://127.0.0.1:3128\n"                       \
	"NO_PROXY=\nno_proxy=\n"

static const char *const npm_hosts[] = {"registry.npmjs.org:443", "github.com:443"};
static struct aj_variant npm = {
    .network = AJ_NET_ALLOW, .hosts = npm_hosts, .n_hosts = 2, .n_followed = 1};

/* ---- npm ------------------------------------------------------------------ */

/* No configuration: the policy's hosts, the proxy's variables. */
static void npm_default(void **state)
{
	static const char *const ask[] = {"registry.npmjs.org:443", "github.com:443",
	                                  "registry.npmjs.org:80", "evil.test:443", NULL};
	(void)state;
	assert_string_equal(run(&(struct egress_run){.v = &npm, .ask = ask}),
	                    "network=3\nhost=registry.npmjs.org:443\nhost=github.com:443\n"
	                    "env\n" PROXY_ENV "registry.npmjs.org:443 yes\ngithub.com:443 yes\n"
	                    "registry.npmjs.org:80 no\nevil.test:443 no\n");
}

/* ~/.npmrc's registry replaces the default, a scope's adds one; the
 * registry goes to npm in its variable, since its $HOME is empty. */
static void npm_file(void **state)
{
	static const char *const ask[] = {"npm.corp.test:443", "registry.npmjs.org:443",
	                                  "scope.test:8443", NULL};
	(void)state;
	put("/.npmrc", "; a comment\n"
	               "@corp:registry = https://scope.test:8443/npm/\n"
	               "registry=\"https://npm.corp.test/\"\r\n"
	               "//npm.corp.test/:_authToken=secret\n"
	               "cafile=/etc/x\n");
	assert_string_equal(
	    run(&(struct egress_run){.v = &npm, .ask = ask}),
	    "network=3\nhost=npm.corp.test:443 from=~/.npmrc\n"
	    "host=scope.test:8443 from=the tool's configuration\n"
	    "host=github.com:443\nenv\n" PROXY_ENV "NPM_CONFIG_REGISTRY=https://npm.corp.test/\n"
	    "npm.corp.test:443 yes\nregistry.npmjs.org:443 no\nscope.test:8443 yes\n");
}

/* The variable wins over the file (the first registry holds, as npm reads
 * it), and is not set again. */
static void npm_variable(void **state)
{
	static const char *const env[] = {"NPM_CONFIG_REGISTRY=http://env.test:8080/", NULL};
	(void)state;
	put("/.npmrc", "registry=https://npm.corp.test/\n");
	assert_string_equal(run(&(struct egress_run){.v = &npm, .env = env}),
	                    "network=3\nhost=env.test:8080 from=NPM_CONFIG_REGISTRY\n"
	                    "host=github.com:443\nenv\n" PROXY_ENV);
}

/* ---- pip ------------------------------------------------------------------ */

static const char *const pip_hosts[] = {"pypi.org:443", "files.pythonhosted.org:443",
                                        "github.com:443"};
static struct aj_variant pip = {
    .network = AJ_NET_ALLOW, .hosts = pip_hosts, .n_hosts = 3, .n_followed = 2};

/* pip.conf's index-url replaces both default hosts, extra-index-url adds
 * one (in a section or not, blanks around '=', a comment after the value);
 * PIP_INDEX_URL hands the index to pip. */
static void pip_file(void **state)
{
	(void)state;
	put("/.config/pip/pip.conf", "[global]\n"
	                             "index-url = https://user@pypi.corp.test/simple # ours\n"
	                             "extra-index-url=http://extra.test:8080/simple\n"
	                             "  trusted-host = extra.test\n"
	                             "[install]\n"
	                             "find-links = https://links.test/\n");
	assert_string_equal(run(&(struct egress_run){.v = &pip}),
	                    "network=3\nhost=pypi.corp.test:443 from=~/.config/pip/pip.conf\n"
	                    "host=extra.test:8080 from=the tool's configuration\n"
	                    "host=github.com:443\nenv\n" PROXY_ENV
	                    "PIP_INDEX_URL=https://user@pypi.corp.test/simple\n");
}

/* The older file, when the newer is not there; an extra index alone adds
 * to the defaults, and pip gets no variable. */
static void pip_old_file_extra_only(void **state)
{
	(void)state;
	put("/.pip/pip.conf", "[global]\nextra-index-url = https://extra.test/simple\n");
	assert_string_equal(
	    run(&(struct egress_run){.v = &pip}),
	    "network=3\nhost=extra.test:443\nhost=pypi.org:443\n"
	    "host=files.pythonhosted.org:443\nhost=github.com:443\nenv\n" PROXY_ENV);
}

/* The variables: PIP_INDEX_URL replaces (and stays as it is), the extra
 * adds; a non-http index (a local directory) allows nothing. */
static void pip_variables(void **state)
{
	static const char *const env[] = {
	    "PIP_INDEX_URL=https://idx.test/simple",
	    "PIP_EXTRA_INDEX_URL=https://x1.test/s file:///srv/wheels", NULL};
	(void)state;
	put("/.config/pip/pip.conf", "[global]\nindex-url = https://ignored.test/\n");
	assert_string_equal(run(&(struct egress_run){.v = &pip, .env = env}),
	                    "network=3\nhost=idx.test:443 from=PIP_INDEX_URL\n"
	                    "host=x1.test:443 from=the tool's configuration\n"
	                    "host=github.com:443\nenv\n" PROXY_ENV);
}

/* ---- uv ------------------------------------------------------------------- */

static const char *const uv_hosts[] = {"pypi.org:443", "files.pythonhosted.org:443"};
static struct aj_variant uv = {
    .network = AJ_NET_ALLOW, .hosts = uv_hosts, .n_hosts = 2, .n_followed = 2};

/* uv.toml: index-url replaces, [[index]] url adds, a url elsewhere does
 * not count; UV_DEFAULT_INDEX hands the index to uv. */
static void uv_file(void **state)
{
	(void)state;
	put("/.config/uv/uv.toml", "index-url = \"https://uv.corp.test/simple\"\n"
	                           "[[index]]\n"
	                           "name = \"corp\"\n"
	                           "url = \"https://idx.corp.test/simple\"\n"
	                           "[pip]\n"
	                           "url = \"https://not-an-index.test/\"\n");
	assert_string_equal(run(&(struct egress_run){.v = &uv}),
	                    "network=3\nhost=uv.corp.test:443 from=~/.config/uv/uv.toml\n"
	                    "host=idx.corp.test:443 from=the tool's configuration\nenv\n" PROXY_ENV
	                    "UV_DEFAULT_INDEX=https://uv.corp.test/simple\n");
}

/* UV_INDEX is a list of "[name=]URL": each adds. */
static void uv_index_list(void **state)
{
	static const char *const env[] = {
	    "UV_INDEX=corp=https://a.test/simple https://b.test:4443/x", NULL};
	(void)state;
	assert_string_equal(run(&(struct egress_run){.v = &uv, .env = env}),
	                    "network=3\nhost=a.test:443\nhost=b.test:4443\nhost=pypi.org:443\n"
	                    "host=files.pythonhosted.org:443\nenv\n" PROXY_ENV);
}

/* ---- cargo ---------------------------------------------------------------- */

static const char *const cargo_hosts[] = {"index.crates.io:443", "static.crates.io:443"};
static struct aj_variant cargo = {
    .network = AJ_NET_ALLOW, .hosts = cargo_hosts, .n_hosts = 2, .n_followed = 1};

static const char cargo_toml[] = "[source.crates-io]\n"
                                 "replace-with = \"corp\"\n"
                                 "[source.corp]\n"
                                 "registry = \"sparse+https://cargo.corp.test/index/\"\n"
                                 "[registries.other]\n"
                                 "index = \"https://other.test/git/index\"\n"
                                 "[net]\n"
                                 "index = \"https://not-a-registry.test/\"\n";

/* ~/.cargo/config.toml: a source's registry replaces the default index, a
 * named registry adds one; cargo takes no variable for it. */
static void cargo_home_file(void **state)
{
	(void)state;
	put("/.cargo/config.toml", cargo_toml);
	assert_string_equal(run(&(struct egress_run){.v = &cargo}),
	                    "network=3\nhost=cargo.corp.test:443 from=~/.cargo/config.toml\n"
	                    "host=other.test:443 from=the tool's configuration\n"
	                    "host=static.crates.io:443\nenv\n" PROXY_ENV);
}

/* $CARGO_HOME, when absolute, instead of ~/.cargo. */
static void cargo_home_variable(void **state)
{
	char var[128];
	const char *env[] = {var, NULL};

	(void)state;
	put("/.cargo/config.toml", "[source.x]\nregistry = \"https://wrong.test/\"\n");
	put("/ch/config.toml", cargo_toml);
	snprintf(var, sizeof(var), "CARGO_HOME=%s/ch", home);
	assert_string_equal(run(&(struct egress_run){.v = &cargo, .env = env}),
	                    "network=3\nhost=cargo.corp.test:443 from=~/ch/config.toml\n"
	                    "host=other.test:443 from=the tool's configuration\n"
	                    "host=static.crates.io:443\nenv\n" PROXY_ENV);
}

/* Another tool's file is not read. */
static void other_tools_files_unread(void **state)
{
	(void)state;
	put("/.npmrc", "registry=https://npm.corp.test/\n");
	put("/.config/pip/pip.conf", "[global]\nindex-url = https://pypi.corp.test/\n");
	assert_string_equal(run(&(struct egress_run){.v = &cargo}),
	                    "network=3\nhost=index.crates.io:443\nhost=static.crates.io:443\n"
	                    "env\n" PROXY_ENV);
}

/* ---- the agents ------------------------------------------------------------ */

static const char *const claude_hosts[] = {"api.anthropic.com:443", "console.anthropic.com:443"};
static struct aj_variant claude = {
    .network = AJ_NET_ALLOW, .hosts = claude_hosts, .n_hosts = 2, .n_followed = 1};

/* ANTHROPIC_BASE_URL replaces the Messages API's host, the sign-in's stays;
 * Claude Code reads the variable itself. */
static void claude_base_url(void **state)
{
	static const char *const env[] = {"ANTHROPIC_BASE_URL=https://gw.corp.test:8443/anthropic",
	                                  NULL};
	static const char *const ask[] = {"gw.corp.test:8443", "api.anthropic.com:443", NULL};
	(void)state;
	assert_string_equal(run(&(struct egress_run){.v = &claude, .env = env, .ask = ask}),
	                    "network=3\nhost=gw.corp.test:8443 from=ANTHROPIC_BASE_URL\n"
	                    "host=console.anthropic.com:443\nenv\n" PROXY_ENV
	                    "gw.corp.test:8443 yes\napi.anthropic.com:443 no\n");
}

static const char *const codex_hosts[] = {"api.openai.com:443", "chatgpt.com:443"};
static struct aj_variant codex = {
    .network = AJ_NET_ALLOW, .hosts = codex_hosts, .n_hosts = 2, .n_followed = 1};

/* ~/.codex/config.toml: openai_base_url replaces the built-in provider's
 * host, a provider's base_url adds one (the profile picks the provider,
 * the file may list several); a base_url elsewhere is not read. */
static void codex_provider(void **state)
{
	(void)state;
	put("/.codex/config.toml", "model_provider = \"corp\"\n"
	                           "openai_base_url = \"https://gw.corp.test/v1\"\n"
	                           "base_url = \"https://top.test/\"\n"
	                           "[model_providers.corp]\n"
	                           "name = \"corp\"\n"
	                           "base_url = \"https://llm.corp.test/v1\"\n"
	                           "[mcp_servers.x]\n"
	                           "base_url = \"https://mcp.test/\"\n");
	assert_string_equal(run(&(struct egress_run){.v = &codex}),
	                    "network=3\nhost=gw.corp.test:443 from=~/.codex/config.toml\n"
	                    "host=llm.corp.test:443 from=the tool's configuration\n"
	                    "host=chatgpt.com:443\nenv\n" PROXY_ENV);
}

static const char *const opencode_hosts[] = {"api.anthropic.com:443", "api.openai.com:443"};
static struct aj_variant opencode = {
    .network = AJ_NET_ALLOW, .hosts = opencode_hosts, .n_hosts = 2, .n_followed = 2};

/* ~/.config/opencode/opencode.json: each provider's "baseURL" adds a
 * host, wherever the member sits and however the file is laid out; a
 * "baseURL" inside a string, a value with an escape, and a non-string
 * value are not one. */
static void opencode_json(void **state)
{
	(void)state;
	put("/.config/opencode/opencode.json",
	    "{\"$schema\": \"https://opencode.ai/config.json\", \"provider\": {\"a\": {\"options\":"
	    " {\"baseURL\": \"https://llm.corp.test:8443/v1\", \"x\": \"\\\"baseURL\\\": "
	    "\\\"https://in.string.test\\\"\"}},\n"
	    "  \"b\": {\"options\": {\"baseURL\"\n     :  \"https://two.test/v1\"}},\n"
	    "  \"c\": {\"options\": {\"baseURL\": \"https://esc\\u0061ped.test/\"}},\n"
	    "  \"d\": {\"options\": {\"baseURL\": [\"https://list.test/\"]}}}}\n");
	assert_string_equal(run(&(struct egress_run){.v = &opencode}),
	                    "network=3\nhost=llm.corp.test:8443\nhost=two.test:443\n"
	                    "host=api.anthropic.com:443\nhost=api.openai.com:443\nenv\n" PROXY_ENV);
}

/* egress_followed_host(): the host the tool's setting put in place of its
 * defaults, which a key that follows moves to (secret.c); none when the
 * setting only adds hosts or is not there. */
static const char *followed(struct aj_variant *v, const char *const *env)
{
	static char out[AJ_HOST_MAX + 8];
	int p[2], status;
	pid_t pid;
	ssize_t n;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		const char *h, *from;

		close(p[0]);
		vars_set(AJ_VAR_HOME, home);
		egress_follow(v, (char *const *)env);
		h = egress_followed_host(&from);
		dprintf(p[1], "%s", h ? h : "(none)");
		_exit(0);
	}
	close(p[1]);
	n = read(p[0], out, sizeof(out) - 1);
	close(p[0]);
	assert_true(n > 0);
	out[n] = '\0';
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return out;
}

static void followed_host(void **state)
{
	static const char *const gw[] = {"ANTHROPIC_BASE_URL=https://gw.example/", NULL};
	static const char *const none[] = {NULL};
	(void)state;
	assert_string_equal(followed(&claude, gw), "gw.example:443");
	assert_string_equal(followed(&claude, none), "(none)");
	assert_string_equal(followed(&opencode, gw), "(none)");
}

/* ---- the list and the run's options -------------------------------------- */

/* --jail-allow-host adds to a policy's list, normalized (443 when no port
 * is written), once each. */
static void allow_host_adds(void **state)
{
	static const char *const allow[] = {"Extra.Test", "*.wild.test:8443", "github.com", NULL};
	static const char *const ask[] = {"extra.test:443", "a.wild.test:8443", "wild.test:8443",
	                                  NULL};
	(void)state;
	assert_string_equal(run(&(struct egress_run){.v = &npm, .allow = allow, .ask = ask}),
	                    "network=3\nhost=registry.npmjs.org:443\nhost=github.com:443\n"
	                    "host=extra.test:443\nhost=*.wild.test:8443\nenv\n" PROXY_ENV
	                    "extra.test:443 yes\na.wild.test:8443 yes\nwild.test:8443 no\n");
}

/* A policy without the level: --jail-allow-host raises it, with its hosts
 * only; without the option nothing is listed and nothing set. */
/* The ports a name looked up inside the jail is relayed on: the list's
 * for it (a wildcard's too, each port once), none for a name not on it, a
 * literal address or a spelling the list would not take; any name on 443
 * and 80 under 'network public'. */
static void relay_ports(void **state)
{
	static const char *const allow[] = {"*.wild.test:8443", "github.com:22", "a.wild.test:8443",
	                                    NULL};
	static const char *const names[] = {
	    "registry.npmjs.org", "github.com", "a.wild.test", "wild.test", "evil.test",
	    "Github.com",         "127.0.0.1",  "x..test",     "",          NULL};
	static const struct aj_variant pub = {.network = AJ_NET_PUBLIC};
	static const char *const pub_names[] = {"any.test", "127.0.0.1", NULL};

	(void)state;
	assert_non_null(strstr(run(&(struct egress_run){.v = &npm, .allow = allow, .names = names}),
	                       "\nregistry.npmjs.org: 443\ngithub.com: 443 22\na.wild.test: 8443\n"
	                       "wild.test:\nevil.test:\nGithub.com:\n127.0.0.1:\nx..test:\n:\n"));
	assert_non_null(strstr(run(&(struct egress_run){.v = &pub, .names = pub_names}),
	                       "\nany.test: 443 80\n127.0.0.1:\n"));
}

static void allow_host_raises(void **state)
{
	static const struct aj_variant none = {.network = AJ_NET_NONE};
	static const char *const allow[] = {"only.test:80", NULL};
	static const char *const env[] = {"HTTPS_PROXY=http://elsewhere:1", NULL};
	static const char *const ask[] = {"only.test:80", NULL};

	(void)state;
	assert_string_equal(run(&(struct egress_run){.v = &none, .allow = allow, .ask = ask}),
	                    "network=3\nhost=only.test:80\nenv\n" PROXY_ENV "only.test:80 yes\n");
	assert_string_equal(run(&(struct egress_run){.v = &none, .env = env, .ask = ask}),
	                    "network=0\nenv\nonly.test:80 no\n");
}

/* A mode that took the network away, and a bad host, stop the run. */
static void allow_host_refused(void **state)
{
	static const struct aj_variant fixed = {.network = AJ_NET_NONE,
	                                        .flags = AJ_VARIANT_NET_FIXED};
	static const char *const allow[] = {"only.test:80", NULL};
	static const char *const bad[] = {"bad host", NULL};

	(void)state;
	assert_string_equal(run(&(struct egress_run){.v = &fixed, .allow = allow}),
	                    "die: use --jail-allow-host: 0: this mode takes the network away\n");
	assert_non_null(
	    strstr(run(&(struct egress_run){.v = &npm, .allow = bad}), "die: usage bad host: 0: "));
}

/* The host's own proxy variables are replaced, not kept beside ours; an
 * environment with no room left stops the run. */
static void env_replaced_and_full(void **state)
{
	static const char *const env[] = {"HTTPS_PROXY=http://elsewhere:1", "no_proxy=*", NULL};
	static const char *const full[] = {"A=1", "B=1", "C=1", "D=1", "E=1",
	                                   "F=1", "G=1", "H=1", "I=1", NULL};
	const char *out;

	(void)state;
	out = run(&(struct egress_run){.v = &npm, .env = env});
	/* In the host's variables' places, then the others. */
	assert_non_null(strstr(out, "env\nHTTPS_PROXY=http://127.0.0.1:3128\nno_proxy=\n"
	                            "https_proxy=http://127.0.0.1:3128\n"
	                            "HTTP_PROXY=http://127.0.0.1:3128\n"
	                            "http_proxy=http://127.0.0.1:3128\n"
	                            "ALL_PROXY=http://127.0.0.1:3128\n"
	                            "all_proxy=http://127.0.0.1:3128\nNO_PROXY=\n"));
	assert_null(strstr(out, "elsewhere"));
	assert_null(strstr(out, "no_proxy=*"));
	out = run(&(struct egress_run){.v = &npm, .env = full});
	assert_non_null(strstr(out, "die: build the environment: 7: the host passes too many "
	                            "variables\n"));
}

/* A forward beside the proxy: NO_PROXY names the jail's loopback, which
 * the proxy refuses and where the forwarded port answers. */
static void forward_gets_no_proxy(void **state)
{
	const char *out;

	(void)state;
	forwards = 1;
	out = run(&(struct egress_run){.v = &npm});
	forwards = 0;
	assert_non_null(strstr(out, "all_proxy=http://127.0.0.1:3128\n"
	                            "NO_PROXY=127.0.0.1,::1,localhost\n"
	                            "no_proxy=127.0.0.1,::1,localhost\n"));
}

int main(void)
{
	npm.follow = follow_conf(AJ_FOLLOW_NPM);
	pip.follow = follow_conf(AJ_FOLLOW_PIP);
	uv.follow = follow_conf(AJ_FOLLOW_UV);
	cargo.follow = follow_conf(AJ_FOLLOW_CARGO);
	claude.follow = follow_conf(AJ_FOLLOW_CLAUDE);
	codex.follow = follow_conf(AJ_FOLLOW_CODEX);
	opencode.follow = follow_conf(AJ_FOLLOW_OPENCODE);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(npm_default, fresh_home, drop_home),
	    cmocka_unit_test_setup_teardown(npm_file, fresh_home, drop_home),
	    cmocka_unit_test_setup_teardown(npm_variable, fresh_home, drop_home),
	    cmocka_unit_test_setup_teardown(pip_file, fresh_home, drop_home),
	    cmocka_unit_test_setup_teardown(pip_old_file_extra_only, fresh_home, drop_home),
	    cmocka_unit_test_setup_teardown(pip_variables, fresh_home, drop_home),
	    cmocka_unit_test_setup_teardown(uv_file, fresh_home, drop_home),
	    cmocka_unit_test_setup_teardown(uv_index_list, fresh_home, drop_home),
	    cmocka_unit_test_setup_teardown(cargo_home_file, fresh_home, drop_home),
	    cmocka_unit_test_setup_teardown(cargo_home_variable, fresh_home, drop_home),
	    cmocka_unit_test_setup_teardown(other_tools_files_unread, fresh_home, drop_home),
	    cmocka_unit_test_setup_teardown(claude_base_url, fresh_home, drop_home),
	    cmocka_unit_test_setup_teardown(codex_provider, fresh_home, drop_home),
	    cmocka_unit_test_setup_teardown(opencode_json, fresh_home, drop_home),
	    cmocka_unit_test_setup_teardown(followed_host, fresh_home, drop_home),
	    cmocka_unit_test_setup_teardown(allow_host_adds, fresh_home, drop_home),
	    cmocka_unit_test_setup_teardown(allow_host_raises, fresh_home, drop_home),
	    cmocka_unit_test_setup_teardown(relay_ports, fresh_home, drop_home),
	    cmocka_unit_test_setup_teardown(allow_host_refused, fresh_home, drop_home),
	    cmocka_unit_test_setup_teardown(env_replaced_and_full, fresh_home, drop_home),
	    cmocka_unit_test_setup_teardown(forward_gets_no_proxy, fresh_home, drop_home),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
