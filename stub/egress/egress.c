/* egress.c: 'network allow': which hosts a run may reach (the variant's,
 * where the registry a followed tool's own configuration names (its
 * variables, then its file in $HOME, read once, bounded) replaces the
 * tool's default, and --jail-allow-host's), the jail's proxy variables,
 * and what --jail-explain says of them.  proxy.c is the proxy itself. */
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <strings.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

#include "egress/egress.h"

#define PX_EXTRA 16 /* --jail-allow-host options of one run */
#define PX_CONF  8  /* hosts a tool's configuration adds */
#define PX_ALL   (AJ_HOSTS_MAX + PX_EXTRA + PX_CONF)

static char extra[PX_EXTRA][AJ_HOST_MAX];
static const char *extra_opt[PX_EXTRA];
static unsigned n_extra;

static char conf[PX_CONF][AJ_HOST_MAX];
static unsigned n_conf;
static bool conf_replaces;    /* conf[0] is the registry itself: the default goes */
static char conf_url[512];    /* that registry, handed to the tool if it was only in a file */
static const char *conf_var;  /* the variable the tool reads it from */
static const char *conf_from; /* where it was read, for --jail-explain */
static char conf_from_buf[AJ_PATH_MAX];

static const char *hosts[PX_ALL];
static unsigned n_hosts;
static struct aj_variant custom;
static bool any_name; /* 'network public': every name, public addresses only */

void egress_allow_host(const char *value, const char *opt)
{
	size_t at;
	const char *why;

	if (n_extra == PX_EXTRA)
		die_usage("too many --jail-allow-host options (at most 16)", opt);
	why = hosts_normal(value, true, extra[n_extra], AJ_HOST_MAX, &at);
	if (why)
		die_usage(why, value);
	extra_opt[n_extra++] = opt;
}

/* --jail-allow-host raises a network without hosts to 'allow' (unless a
 * mode fixed it) and narrows the host's network to it; --jail-net gives
 * the whole network whatever the list, and says so. */
const struct aj_variant *egress_apply(const struct aj_variant *v)
{
	const char *net_opt = extra_net_option();

	if (n_extra && net_opt)
		diep("use", extra_opt[0], 0, "--jail-net and --jail-no-net take no host list");
	if (net_opt && v->network == AJ_NET_HOST && v->n_hosts) {
		out_fd(2);
		out_s(aj_progname);
		out_s(": ");
		out_s(net_opt);
		out_s(": the whole network, not only the hosts of policy ");
		out_s(aj_the_policy->name);
		out_c('\n');
		out_flush();
	}
	if (!n_extra)
		return v;
	if (v->network < AJ_NET_ALLOW && (v->flags & AJ_VARIANT_NET_FIXED))
		diep("use", extra_opt[0], 0, "this mode takes the network away");
	custom = *v;
	if (v->network != AJ_NET_ALLOW) {
		custom.n_hosts = custom.n_followed = 0;
		custom.follow = NULL;
	}
	custom.network = AJ_NET_ALLOW;
	return &custom;
}

/* ---- the followed tool's configuration ---------------------------------- */

static void conf_add(const char *url, size_t n, bool replaces, const char *from)
{
	char h[AJ_HOST_MAX];

	if (!hosts_url_host(url, n, h, sizeof(h)))
		return; /* not an http(s) registry: nothing to allow */
	if (replaces && conf_replaces)
		return; /* the first one holds, as the tool reads it */
	if (n_conf == PX_CONF)
		return;
	if (replaces) {
		/* The registry goes first. */
		memmove(conf[1], conf[0], n_conf * sizeof(conf[0]));
		memcpy(conf[0], h, sizeof(h));
		conf_replaces = true;
		if (strlen(from) < sizeof(conf_from_buf)) {
			memcpy(conf_from_buf, from, strlen(from) + 1);
			conf_from = conf_from_buf;
		}
		if (n < sizeof(conf_url)) {
			memcpy(conf_url, url, n);
			conf_url[n] = '\0';
		}
	} else {
		memcpy(conf[n_conf], h, sizeof(h));
	}
	n_conf++;
}

static bool section_is(const char *sec, size_t sl, const char *want)
{
	size_t wl = strlen(want);

	/* [index] and [[index]] alike; "source." is a prefix. */
	if (want[wl - 1] == '.')
		return sl > wl && !memcmp(sec, want, wl);
	return sl == wl && !memcmp(sec, want, wl);
}

/* One line "key = value" (quotes and blanks around value dropped). */
static void conf_line(const struct aj_follow_conf *fc, const char *sec, size_t sl, const char *p,
                      const char *end, const char *from)
{
	const char *k = p, *ke, *val, *ve;

	while (p < end && *p != '=' && *p != ' ' && *p != '\t')
		p++;
	ke = p;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || *p != '=' || ke == k)
		return;
	p++;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p < end && (*p == '"' || *p == '\'')) {
		char q = *p++;

		val = p;
		while (p < end && *p != q)
			p++;
		ve = p;
	} else {
		val = p;
		while (p < end && *p != ' ' && *p != '\t' && *p != '#' && *p != ';')
			p++;
		ve = p;
	}
	for (unsigned i = 0; i < fc->n_keys; i++) {
		const struct aj_follow_key *c = &fc->keys[i];
		size_t cl = strlen(c->key), kl = (size_t)(ke - k);

		if (c->section && !section_is(sec, sl, c->section))
			continue;
		if (c->suffix ? kl > cl && !memcmp(ke - cl, c->key, cl)
		              : kl == cl && !memcmp(k, c->key, cl))
			conf_add(val, (size_t)(ve - val), c->replaces, from);
	}
}

/* The closing quote of the JSON string that starts after p, or end; *esc:
 * whether it holds an escape. */
static const char *json_str_end(const char *p, const char *end, bool *esc)
{
	*esc = false;
	for (; p < end && *p != '"'; p++)
		if (*p == '\\') {
			*esc = true;
			if (++p == end)
				break;
		}
	return p < end ? p : end;
}

static const char *json_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* JSON (OpenCode's opencode.json): every member named as one of the
 * tool's section-less keys, wherever it sits, whose value is a string;
 * the layout (one line or many) does not matter.  A value with an escape
 * in it is not taken: no URL that counts needs one. */
static void conf_json(const struct aj_follow_conf *fc, const char *p, const char *end,
                      const char *from)
{
	while ((p = memchr(p, '"', (size_t)(end - p)))) {
		const char *k = p + 1, *ke, *v, *ve;
		bool kesc, vesc;

		ke = json_str_end(k, end, &kesc);
		if (ke == end)
			return;
		p = ke + 1;
		v = json_blank(p, end);
		if (v == end || *v != ':')
			continue; /* a value, not a member's name */
		v = json_blank(v + 1, end);
		if (v == end || *v != '"')
			continue;
		ve = json_str_end(++v, end, &vesc);
		if (ve == end)
			return;
		p = ve + 1;
		for (unsigned i = 0; !kesc && !vesc && i < fc->n_keys; i++)
			if (!fc->keys[i].section && strlen(fc->keys[i].key) == (size_t)(ke - k) &&
			    !memcmp(k, fc->keys[i].key, (size_t)(ke - k)))
				conf_add(v, (size_t)(ve - v), fc->keys[i].replaces, from);
	}
}

/* The file is the user's, but it is read as data: a fixed buffer, the
 * first 16 KiB only, no line longer than it, nothing but the tool's keys. */
static void conf_read(const struct aj_follow_conf *fc, const char *path)
{
	static char buf[16384];
	const char *sec = "", *p, *end;
	size_t sl = 0, n = 0;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return;
	}
	n = out_read(fd, buf, sizeof(buf));
	close(fd);
	if (strlen(path) > 5 && !strcmp(path + strlen(path) - 5, ".json")) {
		conf_json(fc, buf, buf + n, path);
		return;
	}
	for (p = buf, end = buf + n; p < end;) {
		const char *e = memchr(p, '\n', (size_t)(end - p));

		if (!e)
			break; /* an unfinished last line */
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		if (p < e && *p == '[') {
			const char *q = p;

			while (q < e && *q == '[')
				q++;
			sec = q;
			while (q < e && *q != ']')
				q++;
			sl = (size_t)(q - sec);
		} else if (p < e && *p != '#' && *p != ';') {
			conf_line(fc, sec, sl, p, e > p && e[-1] == '\r' ? e - 1 : e, path);
		}
		p = e + 1;
	}
}

/* The tool's variables first, then its files, as the variant's rows
 * (compiler/follow.c) name them. */
static void conf_follow(const struct aj_follow_conf *fc, char *const *envp)
{
	static char path[AJ_PATH_MAX];
	const char *home = vars_value(AJ_VAR_HOME);

	for (unsigned i = 0; i < fc->n_envs; i++) {
		const struct aj_follow_env *c = &fc->envs[i];
		const char *val = env_get(envp, c->name);

		/* A list, "[name=]URL" each (UV_INDEX). */
		while (val && *val) {
			const char *e = strchrnul(val, ' '),
			           *eq = memchr(val, '=', (size_t)(e - val));
			const char *u = eq && !memchr(val, ':', (size_t)(eq - val)) ? eq + 1 : val;

			conf_add(u, (size_t)(e - u), c->replaces, c->name);
			if (c->replaces && conf_replaces)
				conf_url[0] = '\0'; /* the tool sees the variable itself */
			val = *e ? e + 1 : e;
		}
	}
	for (unsigned i = 0; i < fc->n_files; i++) {
		const struct aj_follow_file *f = &fc->files[i];
		const char *dir = f->dir_env ? env_get(envp, f->dir_env) : NULL;
		size_t hl = home ? strlen(home) : 0, dl = strlen(f->home_dir), tl = strlen(f->tail);
		bool had = conf_replaces;

		if (dir && dir[0] == '/') {
			if (strlen(dir) + tl + 1 > sizeof(path))
				continue;
			memmove(path, dir, strlen(dir));
			memcpy(path + strlen(dir), f->tail, tl + 1);
		} else {
			if (!home || hl + dl + tl + 1 > sizeof(path))
				continue;
			memmove(path, home, hl);
			memcpy(path + hl, f->home_dir, dl);
			memcpy(path + hl + dl, f->tail, tl + 1);
		}
		conf_read(fc, path);
		if (!had && conf_replaces)
			conf_var = f->var;
	}
}

static bool listed(const char *h)
{
	for (unsigned i = 0; i < n_hosts; i++)
		if (!strcmp(hosts[i], h))
			return true;
	return false;
}

static void add(const char *h)
{
	if (n_hosts < PX_ALL && !listed(h))
		hosts[n_hosts++] = h;
}

/* Once per run: the key that follows the tool (secret.c) asks before the
 * proxy's list is made, from the caller's environment, which the
 * profile's 'env keep' passes the tool's variables from unchanged. */
void egress_follow(const struct aj_variant *v, char *const *envp)
{
	static bool done;

	if (!done && v->network == AJ_NET_ALLOW && v->follow)
		conf_follow(v->follow, envp);
	done = true;
}

const char *egress_followed_host(const char **from)
{
	*from = conf_from;
	return conf_replaces ? conf[0] : NULL;
}

void egress_hosts(const struct aj_variant *v, char *const *envp)
{
	any_name = v->network == AJ_NET_PUBLIC;
	/* The caller's own proxy, not the jail's: environ, before the policy
	 * filtered it, as the jail's variables name the stub's proxy. */
	if (AJ_NET_PROXIED(v->network))
		upstream_read(environ);
	if (v->network != AJ_NET_ALLOW)
		return;
	egress_follow(v, envp);
	for (unsigned i = 0; i < n_conf; i++)
		add(conf[i]);
	for (unsigned i = conf_replaces ? v->n_followed : 0; i < v->n_hosts; i++)
		add(v->hosts[i]);
	for (unsigned i = 0; i < n_extra; i++)
		add(extra[i]);
}

/* ---- the jail's environment ---------------------------------------------- */

static const char *const proxy_vars[] = {
    "HTTPS_PROXY=http://127.0.0.1:3128",
    "https_proxy=http://127.0.0.1:3128",
    "HTTP_PROXY=http://127.0.0.1:3128",
    "http_proxy=http://127.0.0.1:3128",
    "ALL_PROXY=http://127.0.0.1:3128",
    "all_proxy=http://127.0.0.1:3128",
    "NO_PROXY=",
    "no_proxy=",
};

/* With a forward, the jail's loopback is where the host's port answers,
 * and the proxy refuses loopback: a client that sent
 * http://127.0.0.1:PORT to the proxy would never reach it. */
static const char *const no_proxy_forward[] = {
    "NO_PROXY=127.0.0.1,::1,localhost",
    "no_proxy=127.0.0.1,::1,localhost",
};

static bool env_put(char **envp, size_t max, const char *entry)
{
	size_t nl = (size_t)(strchr(entry, '=') - entry) + 1, n = 0;

	for (; envp[n]; n++)
		if (!strncmp(envp[n], entry, nl)) {
			envp[n] = (char *)entry;
			return true;
		}
	if (n + 1 >= max)
		return false;
	envp[n] = (char *)entry;
	envp[n + 1] = NULL;
	return true;
}

void egress_env(const struct aj_variant *v, char **envp, size_t max)
{
	static char registry[sizeof(conf_url) + 32];

	if (!AJ_NET_PROXIED(v->network))
		return;
	for (unsigned i = 0; i < sizeof(proxy_vars) / sizeof(proxy_vars[0]); i++)
		if (!env_put(envp, max, proxy_vars[i]))
			die("build the environment", E2BIG, "the host passes too many variables");
	for (unsigned i = 0; forward_count() && i < 2; i++)
		if (!env_put(envp, max, no_proxy_forward[i]))
			die("build the environment", E2BIG, "the host passes too many variables");
	/* A registry only the file named: the tool in the jail, whose $HOME
	 * is empty, gets it in its variable. */
	if (conf_var && conf_url[0] && !env_get(envp, conf_var)) {
		size_t l = strlen(conf_var);

		memcpy(registry, conf_var, l);
		registry[l] = '=';
		memcpy(registry + l + 1, conf_url, strlen(conf_url) + 1);
		if (!env_put(envp, max, registry))
			die("build the environment", E2BIG, "the host passes too many variables");
	}
}

/* names.c's transparent relay, for clients that ignore the variables. */
static void relay_explain(const char *ports)
{
	rp_open("relay", '{');
	rp_t("\n\t\tand for clients that ignore them: a lookup answers ");
	rp_str("addresses", "127.77.1.N, one a name, on the jail's loopback");
	rp_t(", relayed on ");
	rp_str("ports", ports);
	rp_t("; UDP ");
	rp_str("udp", "not relayed");
	rp_t(" (HTTP/3 falls back to TCP), IPv6 lookups answer none");
	rp_close();
}

/* Inside --jail-explain's "network" object: the hosts, where each came
 * from, and the proxy (report.c's writer: text and JSON alike). */
void egress_explain(void)
{
	if (any_name) {
		rp_t("\n\t\t");
		rp_str("hosts", "any name");
		rp_t(", but never to ");
		rp_str("excluded", "loopback, private (RFC 1918, unique-local), carrier-grade NAT, "
		                   "link-local and metadata, multicast, unspecified and reserved "
		                   "addresses (IPv4-mapped, NAT64 and 6to4 spellings alike), nor "
		                   "any address of the host's own interfaces");
		rp_t("; the host's ports only by --jail-forward");
		rp_t("\n\t\tthrough ");
		rp_str("proxy", "http://127.0.0.1:3128");
		rp_t(" (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY)");
		upstream_explain();
		relay_explain("443 and 80");
		return;
	}
	rp_open("hosts", '[');
	for (unsigned i = 0; i < n_hosts; i++) {
		const char *from =
		    i < n_conf && conf_from
		        ? (i == 0 && conf_replaces ? conf_from : "the tool's configuration")
		        : NULL;

		rp_open(NULL, '{');
		rp_t("\n\t\t");
		rp_str("host", hosts[i]);
		if (from) {
			rp_t("\t(from ");
			rp_str("from", from);
			rp_t(")");
		} else {
			rp_jstr("from", NULL);
		}
		rp_close();
	}
	rp_close();
	rp_t("\n\t\tthrough ");
	rp_str("proxy", "http://127.0.0.1:3128");
	rp_t(" (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY)");
	upstream_explain();
	relay_explain("the list's ports for the name");
}

bool egress_allowed(const char *target)
{
	if (any_name)
		return true;
	for (unsigned i = 0; i < n_hosts; i++)
		if (hosts_match(hosts[i], target))
			return true;
	return false;
}

/* The ports a name found by a lookup inside the jail is relayed on
 * (names.c): the list's ports for it, or 80 and 443 under 'network
 * public'; 0 when it may not be reached at all (or is not a name). */
unsigned egress_ports(const char *name, uint16_t *ports, unsigned max)
{
	char t[AJ_HOST_MAX], norm[AJ_HOST_MAX];
	size_t l = strlen(name), at;
	unsigned n = 0;

	if (l + 7 > sizeof(t))
		return 0;
	memcpy(t, name, l);
	memcpy(t + l, ":443", 5);
	if (hosts_normal(t, false, norm, sizeof(norm), &at) || strcmp(norm, t) || hosts_literal(t))
		return 0;
	if (any_name) {
		ports[0] = 443;
		ports[1] = 80;
		return max < 2 ? max : 2;
	}
	for (unsigned i = 0; i < n_hosts && n < max; i++) {
		const char *c = strrchr(hosts[i], ':');
		unsigned p = 0;
		bool dup = false;

		for (const char *d = c ? c + 1 : ""; *d >= '0' && *d <= '9'; d++)
			p = p * 10 + (unsigned)(*d - '0'); /* a normal entry: 1 to 65535 */
		if (!p)
			continue;
		t[l + 1 + out_fmt_u(t + l + 1, p)] = '\0';
		for (unsigned j = 0; j < n; j++)
			dup |= ports[j] == p;
		if (!dup && hosts_match(hosts[i], t))
			ports[n++] = (uint16_t)p;
	}
	return n;
}

bool egress_public(void)
{
	return any_name;
}

/* "it resolves to ADDR, WHY" in out. */
static void addr_text(char *out, size_t size, const struct sockaddr *sa, const char *why)
{
	char a[INET6_ADDRSTRLEN];
	const void *raw =
	    sa->sa_family == AF_INET6
	        ? (const void *)&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr
	        : (const void *)&((const struct sockaddr_in *)(const void *)sa)->sin_addr;
	size_t n = 0;

	if (!inet_ntop(sa->sa_family, raw, a, sizeof(a)))
		memcpy(a, "?", 2);
	for (const char *part[] = {"it resolves to ", a, ", ", why, NULL}, **p = part; *p; p++) {
		size_t l = strlen(*p);

		if (n + l >= size)
			break;
		memcpy(out + n, *p, l);
		n += l;
	}
	out[n] = '\0';
}

const char *egress_public_refused(const struct px_addrs *to)
{
	static char msg[200];

	if (!resolver_own_read())
		return "the host's own addresses could not be read (netlink)";
	for (unsigned i = 0; i < to->n; i++) {
		const struct sockaddr *sa = (const struct sockaddr *)&to->a[i];
		const char *bad = hosts_addr_refused(sa);

		if (!bad && resolver_own(sa))
			bad = "an address of the host itself";
		if (bad) {
			addr_text(msg, sizeof(msg), sa, bad);
			return msg;
		}
	}
	return NULL;
}
