/* proxy.c: 'network allow': named hosts through a proxy in the stub's
 * parent.
 *
 * The jail has a network namespace with lo only.  pid 1 listens there on
 * 127.0.0.1:AJ_PROXY_PORT and hands the listening socket to the parent,
 * which stays in the host's network namespace for the whole run: the
 * parent accepts the jail's connections itself, so nothing relays inside
 * and no thread or process is added.  It speaks HTTP CONNECT and plain
 * HTTP with an absolute URI, resolves names itself (the jail has no
 * resolver and no route to one), and connects only to a listed name and
 * port whose addresses are public, or to an address the list names
 * literally.  Everything else gets a 403, and the jail's stderr one line
 * naming the host, the policy and the option that allows it.
 *
 * For a variant without the level none of this runs: the parent waits in
 * supervise_parent() as before.
 *
 * The hosts are the variant's, where the registry a followed tool's own
 * configuration names (its variables, then its file in $HOME, read once,
 * bounded) replaces the tool's default, and --jail-allow-host's. */
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

#include "hosts.h"
#include "sys.h"

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

void proxy_allow_host(const char *value, const char *opt)
{
	size_t at;
	const char *why;

	if (n_extra == PX_EXTRA)
		die_usage("too many --jail-allow-host options (at most 16)", opt);
	why = host_normal(value, true, extra[n_extra], AJ_HOST_MAX, &at);
	if (why)
		die_usage(why, value);
	extra_opt[n_extra++] = opt;
}

/* --jail-allow-host raises a network without hosts to 'allow' (unless a
 * mode fixed it) and narrows the host's network to it; --jail-net gives
 * the whole network whatever the list, and says so. */
const struct aj_variant *proxy_apply(const struct aj_variant *v)
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
	if (v->network != AJ_NET_ALLOW)
		custom.n_hosts = custom.n_followed = custom.follow = 0;
	custom.network = AJ_NET_ALLOW;
	return &custom;
}

/* ---- the followed tool's configuration ---------------------------------- */

/* A key of a tool's file whose value is a registry's URL.  replaces: it is
 * the registry (the default goes); else one more. */
struct conf_key {
	uint8_t follow;
	bool replaces;
	bool suffix;         /* the key ends so ("@scope:registry") */
	const char *section; /* only in a section whose name starts so; NULL: any */
	const char *key;
};

static const struct conf_key conf_keys[] = {
    {AJ_FOLLOW_NPM, true, false, NULL, "registry"},
    {AJ_FOLLOW_NPM, false, true, NULL, ":registry"},
    {AJ_FOLLOW_PIP, true, false, NULL, "index-url"},
    {AJ_FOLLOW_PIP, false, false, NULL, "extra-index-url"},
    {AJ_FOLLOW_UV, true, false, NULL, "index-url"},
    {AJ_FOLLOW_UV, false, false, NULL, "extra-index-url"},
    {AJ_FOLLOW_UV, false, false, "index", "url"},
    {AJ_FOLLOW_CARGO, true, false, "source.", "registry"},
    {AJ_FOLLOW_CARGO, false, false, "registries.", "index"},
};

/* The variables each tool reads first (a list for UV_INDEX). */
struct conf_env {
	uint8_t follow;
	bool replaces;
	const char *name;
};

static const struct conf_env conf_envs[] = {
    {AJ_FOLLOW_NPM, true, "NPM_CONFIG_REGISTRY"},
    {AJ_FOLLOW_NPM, true, "npm_config_registry"},
    {AJ_FOLLOW_PIP, true, "PIP_INDEX_URL"},
    {AJ_FOLLOW_PIP, false, "PIP_EXTRA_INDEX_URL"},
    {AJ_FOLLOW_UV, true, "UV_DEFAULT_INDEX"},
    {AJ_FOLLOW_UV, true, "UV_INDEX_URL"},
    {AJ_FOLLOW_UV, false, "UV_INDEX"},
    {AJ_FOLLOW_UV, false, "UV_EXTRA_INDEX_URL"},
};

/* The file each tool reads, below $HOME (cargo: $CARGO_HOME, else
 * ~/.cargo), and the variable that hands its registry to the tool, whose
 * own $HOME in the jail is empty. */
struct conf_file {
	uint8_t follow;
	const char *tail;
	const char *var;
};

static const struct conf_file conf_files[] = {
    {AJ_FOLLOW_NPM, "/.npmrc", "NPM_CONFIG_REGISTRY"},
    {AJ_FOLLOW_PIP, "/.config/pip/pip.conf", "PIP_INDEX_URL"},
    {AJ_FOLLOW_PIP, "/.pip/pip.conf", "PIP_INDEX_URL"},
    {AJ_FOLLOW_UV, "/.config/uv/uv.toml", "UV_DEFAULT_INDEX"},
    {AJ_FOLLOW_CARGO, "/config.toml", NULL},
};

static void conf_add(const char *url, size_t n, bool replaces, const char *from)
{
	char h[AJ_HOST_MAX];

	if (!url_host(url, n, h, sizeof(h)))
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
static void conf_line(uint8_t follow, const char *sec, size_t sl, const char *p, const char *end,
                      const char *from)
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
	for (unsigned i = 0; i < sizeof(conf_keys) / sizeof(conf_keys[0]); i++) {
		const struct conf_key *c = &conf_keys[i];
		size_t cl = strlen(c->key), kl = (size_t)(ke - k);

		if (c->follow != follow || (c->section && !section_is(sec, sl, c->section)))
			continue;
		if (c->suffix ? kl > cl && !memcmp(ke - cl, c->key, cl)
		              : kl == cl && !memcmp(k, c->key, cl))
			conf_add(val, (size_t)(ve - val), c->replaces, from);
	}
}

/* The file is the user's, but it is read as data: a fixed buffer, the
 * first 16 KiB only, no line longer than it, nothing but the keys above. */
static void conf_read(uint8_t follow, const char *path)
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
	for (;;) {
		ssize_t r = read(fd, buf + n, sizeof(buf) - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
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
			conf_line(follow, sec, sl, p, e > p && e[-1] == '\r' ? e - 1 : e, path);
		}
		p = e + 1;
	}
}

static void conf_follow(const struct aj_variant *v, char *const *envp)
{
	static char path[AJ_PATH_MAX];
	const char *home = var_value(AJ_VAR_HOME);

	for (unsigned i = 0; i < sizeof(conf_envs) / sizeof(conf_envs[0]); i++) {
		const struct conf_env *c = &conf_envs[i];
		const char *val = c->follow == v->follow ? env_get(envp, c->name) : NULL;

		/* UV_INDEX is a list, "[name=]URL" each. */
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
	for (unsigned i = 0; i < sizeof(conf_files) / sizeof(conf_files[0]); i++) {
		const struct conf_file *f = &conf_files[i];
		const char *base = home;
		size_t bl, tl = strlen(f->tail);
		bool had = conf_replaces;

		if (f->follow != v->follow)
			continue;
		if (f->follow == AJ_FOLLOW_CARGO) {
			const char *ch = env_get(envp, "CARGO_HOME");

			if (ch && ch[0] == '/') {
				base = ch;
			} else if (home && strlen(home) + 8 < sizeof(path)) {
				memcpy(path, home, strlen(home));
				memcpy(path + strlen(home), "/.cargo", 8);
				base = path;
			}
		}
		if (!base || (bl = strlen(base)) + tl + 1 > sizeof(path))
			continue;
		memmove(path, base, bl);
		memcpy(path + bl, f->tail, tl + 1);
		conf_read(v->follow, path);
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

void proxy_hosts(const struct aj_variant *v, char *const *envp)
{
	if (v->network != AJ_NET_ALLOW)
		return;
	if (v->follow)
		conf_follow(v, envp);
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

void proxy_env(const struct aj_variant *v, char **envp, size_t max)
{
	static char registry[sizeof(conf_url) + 32];

	if (v->network != AJ_NET_ALLOW)
		return;
	for (unsigned i = 0; i < sizeof(proxy_vars) / sizeof(proxy_vars[0]); i++)
		if (!env_put(envp, max, proxy_vars[i]))
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

void proxy_explain(void)
{
	for (unsigned i = 0; i < n_hosts; i++) {
		out_s("\n\t\t");
		out_s(hosts[i]);
		if (i < n_conf && conf_from) {
			out_s("\t(from ");
			out_s(i == 0 && conf_replaces ? conf_from : "the tool's configuration");
			out_c(')');
		}
	}
	out_s("\n\t\tthrough http://127.0.0.1:3128 (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY)");
}

/* ---- pid 1: the listening socket, handed to the parent ------------------- */

void proxy_listen(int parent_sock)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
	                        .sin_port = htons(AJ_PROXY_PORT),
	                        .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} c = {0};
	char byte = 'L';
	struct iovec iov = {&byte, 1};
	struct msghdr msg = {.msg_iov = &iov,
	                     .msg_iovlen = 1,
	                     .msg_control = c.buf,
	                     .msg_controllen = sizeof(c.buf)};
	int s = (int)syscall(SYS_socket, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s < 0 || syscall(SYS_bind, s, &a, sizeof(a)) || syscall(SYS_listen, s, 128))
		die("listen for the jail's proxy on 127.0.0.1:3128", errno, NULL);
	c.h.cmsg_level = SOL_SOCKET;
	c.h.cmsg_type = SCM_RIGHTS;
	c.h.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(&c.h), &s, sizeof(int));
	if (syscall(SYS_sendmsg, parent_sock, &msg, MSG_NOSIGNAL) != 1)
		_exit(AJ_EXIT_SETUP); /* the parent is gone, or has said why */
	close(s);
}

/* ---- the parent: the proxy ------------------------------------------------ */

#define PX_CONNS 64
#define PX_HEAD  8192
#define PX_BUF   (PX_HEAD + 512) /* the proxy's own bytes: a rewritten head, a reply */
#define PX_ADDRS 8

enum { PX_HEAD_READ, PX_CONNECTING, PX_RELAY, PX_REPLY };

/* What goes one way: the proxy's own bytes first, then what the other
 * side sent, through a pipe (splice: the kernel moves the pages). */
struct buf {
	int p[2];  /* -1 until the relay starts */
	size_t in; /* bytes in the pipe */
	size_t off, n;
	char d[PX_BUF];
};

struct conn {
	int c, u; /* the jail's end, the host's; -1 when closed */
	uint8_t state;
	bool c_eof, u_eof, u_shut, c_shut;
	bool connect;  /* CONNECT: the client waits for a 200 */
	size_t head_n; /* bytes of head */
	unsigned n_addr, next_addr;
	struct sockaddr_storage addr[PX_ADDRS];
	socklen_t addr_len[PX_ADDRS];
	char head[PX_HEAD];
	char target[AJ_HOST_MAX];
	struct buf up, down; /* to the host, to the jail */
};

static struct conn conns[PX_CONNS];

/* Out of descriptors, the listener stays readable: it is left alone
 * until a connection ends, rather than polled in a loop. */
static bool accept_paused;

/* Refusals already reported: one line per host and reason. */
static char told[32][AJ_HOST_MAX];
static unsigned n_told;

static void tell(const char *target, const char *why, bool literal_hint)
{
	char h[AJ_HOST_MAX];
	const char *c = strrchr(target, ':');

	for (unsigned i = 0; i < n_told && i < 32; i++)
		if (!strcmp(told[i], target))
			return;
	memcpy(told[n_told++ % 32], target, strlen(target) + 1);
	memcpy(h, target, strlen(target) + 1);
	out_fd(2);
	out_s(aj_progname);
	out_s(": refused a connection to ");
	out_s(target);
	out_s(": ");
	out_s(why);
	out_s(" (policy ");
	out_s(aj_the_policy->name);
	if (literal_hint) {
		out_s("); to allow it, list its address: --jail-allow-host=ADDRESS");
		out_s(c ? c : "");
	} else {
		out_s("); --jail-allow-host=");
		out_s(h);
		out_s(" allows it");
	}
	out_c('\n');
	out_flush();
}

static void set_nonblock(int fd)
{
	long fl = syscall(SYS_fcntl, fd, F_GETFL);

	if (fl >= 0)
		syscall(SYS_fcntl, fd, F_SETFL, fl | O_NONBLOCK);
}

static void conn_close(struct conn *k)
{
	accept_paused = false;
	for (int i = 0; i < 2; i++) {
		if (k->up.p[i] >= 0)
			close(k->up.p[i]);
		if (k->down.p[i] >= 0)
			close(k->down.p[i]);
		k->up.p[i] = k->down.p[i] = -1;
	}
	if (k->c >= 0)
		close(k->c);
	if (k->u >= 0)
		close(k->u);
	k->c = k->u = -1;
}

static void put(struct buf *b, const char *s, size_t n)
{
	if (n > PX_BUF - b->off - b->n)
		n = PX_BUF - b->off - b->n;
	memcpy(b->d + b->off + b->n, s, n);
	b->n += n;
}

static void puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* A reply of the proxy's own, then the connection ends. */
static void reply(struct conn *k, const char *status, const char *text)
{
	char len[AJ_DEC_MAX + 1];

	len[fmt_u(len, strlen(text) + 1)] = '\0';
	k->down.off = k->down.n = 0;
	puts_(&k->down, "HTTP/1.1 ");
	puts_(&k->down, status);
	puts_(&k->down, "\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: ");
	puts_(&k->down, len);
	puts_(&k->down, "\r\n\r\n");
	puts_(&k->down, text);
	puts_(&k->down, "\n");
	if (k->u >= 0)
		close(k->u);
	k->u = -1;
	k->state = PX_REPLY;
}

static bool allowed(const char *target)
{
	for (unsigned i = 0; i < n_hosts; i++)
		if (host_match(hosts[i], target))
			return true;
	return false;
}

static void try_connect(struct conn *k)
{
	while (k->next_addr < k->n_addr) {
		unsigned i = k->next_addr++;
		int s = (int)syscall(SYS_socket, k->addr[i].ss_family,
		                     SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

		if (s < 0)
			continue;
		if (!syscall(SYS_connect, s, &k->addr[i], k->addr_len[i]) || errno == EINPROGRESS) {
			k->u = s;
			k->state = PX_CONNECTING;
			return;
		}
		close(s);
	}
	reply(k, "502 Bad Gateway", "aijail: the host did not answer");
}

/* ---- the parent's resolver ------------------------------------------------
 *
 * musl's getaddrinfo would bring malloc and stdio into every stub: /etc/hosts,
 * then the first answer of the nameservers of /etc/resolv.conf (A and AAAA,
 * over UDP), each file read into a fixed buffer.  It blocks the proxy while
 * it waits (at most 2 s a nameserver). */

#define PX_NS 3

static size_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	size_t n = 0;

	if (fd < 0)
		return 0;
	while (n < size) {
		ssize_t r = read(fd, buf + n, size - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	return n;
}

/* The next blank-separated word of [*p, end) on this line, NUL-terminated
 * in w (size 64); false at the line's end. */
static bool word(const char **p, const char *end, char *w)
{
	const char *s = *p;
	size_t n = 0;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s == end || *s == '\n' || *s == '#')
		return false;
	while (s < end && *s != ' ' && *s != '\t' && *s != '\n' && *s != '#') {
		if (n < 63)
			w[n++] = *s;
		s++;
	}
	w[n] = '\0';
	*p = s;
	return true;
}

static void next_line(const char **p, const char *end)
{
	const char *e = memchr(*p, '\n', (size_t)(end - *p));

	*p = e ? e + 1 : end;
}

static bool parse_addr(const char *text, unsigned port, struct sockaddr_storage *out,
                       socklen_t *len)
{
	struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port)};

	if (inet_pton(AF_INET, text, &a4.sin_addr) == 1) {
		memcpy(out, &a4, sizeof(a4));
		*len = sizeof(a4);
	} else if (inet_pton(AF_INET6, text, &a6.sin6_addr) == 1) {
		memcpy(out, &a6, sizeof(a6));
		*len = sizeof(a6);
	} else {
		return false;
	}
	return true;
}

static void add_addr(struct conn *k, const char *text, unsigned port)
{
	if (k->n_addr < PX_ADDRS &&
	    parse_addr(text, port, &k->addr[k->n_addr], &k->addr_len[k->n_addr]))
		k->n_addr++;
}

static void add_raw(struct conn *k, const uint8_t *b, bool v6, unsigned port)
{
	struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port)};

	if (k->n_addr == PX_ADDRS)
		return;
	if (v6) {
		memcpy(&a6.sin6_addr, b, 16);
		memcpy(&k->addr[k->n_addr], &a6, sizeof(a6));
		k->addr_len[k->n_addr++] = sizeof(a6);
	} else {
		memcpy(&a4.sin_addr, b, 4);
		memcpy(&k->addr[k->n_addr], &a4, sizeof(a4));
		k->addr_len[k->n_addr++] = sizeof(a4);
	}
}

static bool from_hosts(struct conn *k, const char *host, unsigned port)
{
	static char buf[16384];
	size_t n = read_small("/etc/hosts", buf, sizeof(buf));
	const char *p = buf, *end = buf + n;

	while (p < end) {
		char addr[64], name[64];

		if (word(&p, end, addr))
			while (word(&p, end, name))
				if (!strcasecmp(name, host))
					add_addr(k, addr, port);
		next_line(&p, end);
	}
	return k->n_addr > 0;
}

/* Both questions to one nameserver; true when it answered both. */
static bool ask(struct conn *k, const struct sockaddr_storage *ns, socklen_t nl, const char *host,
                unsigned port)
{
	uint8_t q[2][300], m[1232];
	size_t qn[2];
	bool done[2] = {false, false};
	uint16_t id[2];
	int s =
	    (int)syscall(SYS_socket, ns->ss_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	struct timespec t0, t;

	if (s < 0)
		return false;
	if (syscall(SYS_getrandom, id, sizeof(id), 0) != sizeof(id))
		id[0] = (uint16_t)getpid(), id[1] = (uint16_t)(id[0] ^ 0x5a5a);
	qn[0] = dns_query(host, 1, id[0], q[0], sizeof(q[0]));
	qn[1] = dns_query(host, 28, id[1], q[1], sizeof(q[1]));
	if (!qn[0] || !qn[1] || syscall(SYS_connect, s, ns, nl) ||
	    send(s, q[0], qn[0], MSG_NOSIGNAL) < 0 || send(s, q[1], qn[1], MSG_NOSIGNAL) < 0) {
		close(s);
		return false;
	}
	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t0);
	while (!done[0] || !done[1]) {
		struct pollfd p = {.fd = s, .events = POLLIN};
		long left;
		ssize_t r;

		syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
		left = 2000 - ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			break;
		while ((r = recv(s, m, sizeof(m), 0)) > 0)
			for (int i = 0; i < 2; i++) {
				uint8_t a[PX_ADDRS][16];
				int got = done[i]
				              ? -1
				              : dns_answers(m, (size_t)r, q[i], qn[i], a, PX_ADDRS);

				if (got < 0)
					continue;
				done[i] = true;
				for (int j = 0; j < got; j++)
					add_raw(k, a[j], i == 1, port);
			}
	}
	close(s);
	return done[0] && done[1];
}

static void from_dns(struct conn *k, const char *host, unsigned port)
{
	static char buf[8192];
	size_t n = read_small("/etc/resolv.conf", buf, sizeof(buf));
	const char *p = buf, *end = buf + n;
	unsigned asked = 0;

	while (p < end && asked < PX_NS) {
		char key[64], val[64];

		if (word(&p, end, key) && !strcmp(key, "nameserver") && word(&p, end, val)) {
			struct sockaddr_storage ns;
			socklen_t nl;

			if (parse_addr(val, 53, &ns, &nl)) {
				asked++;
				if (ask(k, &ns, nl, host, port))
					return;
			}
		}
		next_line(&p, end);
	}
	if (!asked) {
		struct sockaddr_storage ns;
		socklen_t nl;

		if (parse_addr("127.0.0.1", 53, &ns, &nl))
			ask(k, &ns, nl, host, port);
	}
}

/* The addresses of k->target the list lets it reach. */
static void resolve(struct conn *k)
{
	char host[AJ_HOST_MAX], *port;
	const char *why = NULL;
	bool literal = host_literal(k->target);
	unsigned pn = 0, kept = 0;

	memcpy(host, k->target, strlen(k->target) + 1);
	port = strrchr(host, ':');
	*port++ = '\0';
	for (const char *d = port; *d; d++)
		pn = pn * 10 + (unsigned)(*d - '0');
	if (host[0] == '[') {
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = '\0';
	}
	k->n_addr = k->next_addr = 0;
	if (literal)
		add_addr(k, host, pn);
	else if (!from_hosts(k, host, pn))
		from_dns(k, host, pn);
	if (!k->n_addr) {
		reply(k, "502 Bad Gateway", "aijail: the host's name does not resolve");
		return;
	}
	/* A name may lead only to public addresses; a literal is what the
	 * list says. */
	for (unsigned i = 0; i < k->n_addr; i++) {
		const char *bad = literal ? NULL : addr_refused((struct sockaddr *)&k->addr[i]);

		if (bad) {
			why = bad;
			continue;
		}
		if (kept != i) {
			k->addr[kept] = k->addr[i];
			k->addr_len[kept] = k->addr_len[i];
		}
		kept++;
	}
	k->n_addr = kept;
	if (!k->n_addr) {
		static char msg[160] = "it resolves to ";
		size_t l = strlen(why);

		memcpy(msg + 15, why, l + 1);
		tell(k->target, msg, true);
		reply(k, "403 Forbidden",
		      "aijail: the host resolves to an address the jail may not reach");
		return;
	}
	try_connect(k);
}

static bool ieq(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char x = a[i] >= 'A' && a[i] <= 'Z' ? (char)(a[i] + 32) : a[i];

		if (x != b[i])
			return false;
	}
	return true;
}

/* The request's head is complete (end: past its blank line).  CONNECT
 * HOST:PORT, or METHOD http://HOST[:PORT]/PATH, rewritten to the origin
 * form with the proxy's own headers dropped and one request only. */
static void request(struct conn *k, size_t end)
{
	char *h = k->head, *sp1, *sp2, *eol;
	size_t at;

	eol = memchr(h, '\r', end);
	sp1 = eol ? memchr(h, ' ', (size_t)(eol - h)) : NULL;
	sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1)) : NULL;
	if (!sp2) {
		reply(k, "400 Bad Request", "aijail: not an HTTP proxy request");
		return;
	}
	*sp2 = '\0';
	k->connect = (size_t)(sp1 - h) == 7 && !memcmp(h, "CONNECT", 7);
	if (k->connect) {
		if (host_normal(sp1 + 1, false, k->target, sizeof(k->target), &at)) {
			reply(k, "400 Bad Request", "aijail: CONNECT names HOST:PORT");
			return;
		}
	} else {
		char *path = sp1 + 1;

		if (strncmp(path, "http://", 7)) {
			reply(k, "400 Bad Request",
			      "aijail: the proxy takes CONNECT, or http:// URIs");
			return;
		}
		path += 7;
		while (*path && *path != '/' && *path != '?')
			path++;
		if (!url_host(sp1 + 1, (size_t)(path - sp1 - 1), k->target, sizeof(k->target))) {
			reply(k, "400 Bad Request", "aijail: a bad host in the URI");
			return;
		}
		/* METHOD /PATH VERSION, then the headers but the proxy's own
		 * and Connection: one request per connection. */
		put(&k->up, h, (size_t)(sp1 + 1 - h));
		if (*path != '/')
			puts_(&k->up, "/");
		puts_(&k->up, path);
		puts_(&k->up, " ");
		put(&k->up, sp2 + 1, (size_t)(eol + 2 - sp2 - 1));
		for (char *l = eol + 2; l < h + end - 2;) {
			char *le = memchr(l, '\n', (size_t)(h + end - l));
			size_t ll;

			if (!le)
				break;
			ll = (size_t)(le + 1 - l);
			if (!(ll > 6 && ieq(l, "proxy-", 6)) &&
			    !(ll > 11 && ieq(l, "connection:", 11)) &&
			    !(ll > 11 && ieq(l, "keep-alive:", 11)))
				put(&k->up, l, ll);
			l = le + 1;
		}
		puts_(&k->up, "Connection: close\r\n\r\n");
	}
	/* Bytes the client sent after the head. */
	put(&k->up, h + end, k->head_n - end);
	if (!allowed(k->target)) {
		tell(k->target, "not in the list", false);
		reply(k, "403 Forbidden", "aijail: this host is not in the jail's network list");
		return;
	}
	resolve(k);
}

static void head_read(struct conn *k)
{
	ssize_t r = read(k->c, k->head + k->head_n, sizeof(k->head) - k->head_n);
	char *e = NULL;

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (r <= 0) {
		conn_close(k);
		return;
	}
	/* The blank line may straddle two reads: look from 3 bytes back. */
	for (size_t i = k->head_n > 3 ? k->head_n - 3 : 0; !e && i + 4 <= k->head_n + (size_t)r;
	     i++)
		if (!memcmp(k->head + i, "\r\n\r\n", 4))
			e = k->head + i;
	k->head_n += (size_t)r;
	if (e)
		request(k, (size_t)(e + 4 - k->head));
	else if (k->head_n == sizeof(k->head))
		reply(k, "431 Request Header Fields Too Large",
		      "aijail: the request's head is too long");
}

static bool pending(const struct buf *b)
{
	return b->n || b->in;
}

/* Move what one side sent to the other. */
static bool pump(int from, int to, struct buf *b, bool *eof)
{
	while (b->n) {
		ssize_t w = send(to, b->d + b->off, b->n, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w < 0 && (errno == EAGAIN || errno == EINTR))
			return true;
		if (w <= 0)
			return false;
		b->off += (size_t)w;
		b->n -= (size_t)w;
	}
	if (b->p[0] < 0)
		return true;
	/* Until one side has to wait: one poll per 64 KiB would cost more
	 * than the copies. */
	for (;;) {
		if (!b->in && !*eof) {
			ssize_t r = splice(from, NULL, b->p[1], NULL, 1 << 20,
			                   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

			if (r < 0 && (errno == EAGAIN || errno == EINTR))
				return true;
			if (r < 0)
				return false;
			if (!r)
				*eof = true;
			b->in = (size_t)r;
		}
		while (b->in) {
			ssize_t w = splice(b->p[0], NULL, to, NULL, b->in,
			                   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

			if (w < 0 && (errno == EAGAIN || errno == EINTR))
				return true;
			if (w <= 0)
				return false;
			b->in -= (size_t)w;
		}
		if (*eof)
			return true;
	}
	return true;
}

static void connected(struct conn *k)
{
	int err = 0;
	socklen_t l = sizeof(err);

	if (getsockopt(k->u, SOL_SOCKET, SO_ERROR, &err, &l) || err) {
		close(k->u);
		k->u = -1;
		try_connect(k);
		return;
	}
	if (pipe2(k->up.p, O_CLOEXEC | O_NONBLOCK) || pipe2(k->down.p, O_CLOEXEC | O_NONBLOCK)) {
		reply(k, "503 Service Unavailable", "aijail: the proxy is out of descriptors");
		return;
	}
	/* Larger pipes, fewer calls; the default where the kernel says no. */
	syscall(SYS_fcntl, k->up.p[1], F_SETPIPE_SZ, 1 << 20);
	syscall(SYS_fcntl, k->down.p[1], F_SETPIPE_SZ, 1 << 20);
	k->state = PX_RELAY;
	if (k->connect)
		puts_(&k->down, "HTTP/1.1 200 Connection established\r\n\r\n");
}

static void step(struct conn *k, short cr, short ur)
{
	switch (k->state) {
	case PX_HEAD_READ:
		if (cr)
			head_read(k);
		return;
	case PX_CONNECTING:
		if (ur)
			connected(k);
		if (k->state == PX_REPLY)
			goto replying;
		if (k->state != PX_RELAY)
			return;
		/* the 200, and what the client sent already */
		__attribute__((fallthrough));
	case PX_RELAY:
		if (!pump(k->c, k->u, &k->up, &k->c_eof) ||
		    !pump(k->u, k->c, &k->down, &k->u_eof)) {
			conn_close(k);
			return;
		}
		if (k->c_eof && !pending(&k->up) && !k->u_shut)
			shutdown(k->u, SHUT_WR), k->u_shut = true;
		if (k->u_eof && !pending(&k->down) && !k->c_shut)
			shutdown(k->c, SHUT_WR), k->c_shut = true;
		if (k->u_shut && k->c_shut)
			conn_close(k);
		return;
	case PX_REPLY:
	replying : {
		bool eof = true;

		if (!pump(k->c, k->c, &k->down, &eof) || !k->down.n)
			conn_close(k);
		return;
	}
	}
}

static void accept_one(int listener)
{
	int s = accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (s < 0) {
		accept_paused =
		    errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM;
		return;
	}
	for (unsigned i = 0; i < PX_CONNS; i++) {
		struct conn *k = &conns[i];

		if (k->c >= 0)
			continue;
		memset(k, 0, offsetof(struct conn, head));
		k->up.off = k->up.n = k->down.off = k->down.n = k->up.in = k->down.in = 0;
		k->up.p[0] = k->up.p[1] = k->down.p[0] = k->down.p[1] = -1;
		k->c = s;
		k->u = -1;
		return;
	}
	close(s);
}

/* pid 1's listening socket, over the socket pair; -1 when pid 1 ended
 * before it sent one (its status says why). */
static int receive_listener(int fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} c;
	char byte;
	struct iovec iov = {&byte, 1};
	struct msghdr msg = {.msg_iov = &iov,
	                     .msg_iovlen = 1,
	                     .msg_control = c.buf,
	                     .msg_controllen = sizeof(c.buf)};
	struct cmsghdr *h;
	int s = -1;
	long r;

	while ((r = syscall(SYS_recvmsg, fd, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	h = r == 1 ? CMSG_FIRSTHDR(&msg) : NULL;
	if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS &&
	    h->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&s, CMSG_DATA(h), sizeof(int));
	return s;
}

noreturn void proxy_run(pid_t child, int fd)
{
	static struct pollfd p[2 + 2 * PX_CONNS];
	int listener = receive_listener(fd);
	int sfd;

	sigset_t pipe_sig;

	if (listener < 0)
		supervise_parent(child);
	/* splice() into a socket the jail closed raises SIGPIPE, which
	 * would end the run: taken as EPIPE instead. */
	sigemptyset(&pipe_sig);
	sigaddset(&pipe_sig, SIGPIPE);
	if (sigprocmask(SIG_BLOCK, &pipe_sig, NULL))
		die("run the jail's proxy", errno, NULL);
	set_nonblock(listener);
	sfd = signalfd(-1, &sig_wait, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0)
		die("run the jail's proxy", errno, NULL);
	for (unsigned i = 0; i < PX_CONNS; i++) {
		struct conn *k = &conns[i];

		k->c = k->u = -1;
		k->up.p[0] = k->up.p[1] = k->down.p[0] = k->down.p[1] = -1;
	}
	for (;;) {
		/* Only the descriptors waited on: the kernel refuses more
		 * entries than RLIMIT_NOFILE. */
		static uint8_t slot_conn[2 * PX_CONNS], slot_up[2 * PX_CONNS];
		static short rc[PX_CONNS], ru[PX_CONNS];
		unsigned n = 2, free_slots = 0;

		p[0] = (struct pollfd){.fd = sfd, .events = POLLIN};
		p[1] = (struct pollfd){.fd = listener, .events = POLLIN};
		for (unsigned i = 0; i < PX_CONNS; i++) {
			struct conn *k = &conns[i];
			short ce = 0, ue = 0;

			rc[i] = ru[i] = 0;
			if (k->c < 0) {
				free_slots++;
				continue;
			}
			if (k->state == PX_HEAD_READ)
				ce = POLLIN;
			else if (k->state == PX_CONNECTING)
				ue = POLLOUT;
			else if (k->state == PX_REPLY)
				ce = POLLOUT;
			else {
				if (pending(&k->up))
					ue |= POLLOUT;
				else if (!k->c_eof)
					ce |= POLLIN;
				if (pending(&k->down))
					ce |= POLLOUT;
				else if (!k->u_eof)
					ue |= POLLIN;
			}
			if (ce) {
				slot_conn[n - 2] = (uint8_t)i, slot_up[n - 2] = 0;
				p[n++] = (struct pollfd){.fd = k->c, .events = ce};
			}
			if (ue) {
				slot_conn[n - 2] = (uint8_t)i, slot_up[n - 2] = 1;
				p[n++] = (struct pollfd){.fd = k->u, .events = ue};
			}
		}
		if (!free_slots || accept_paused)
			p[1].fd = -1;
		if (poll(p, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("run the jail's proxy", errno, NULL);
		}
		if (p[0].revents) {
			struct signalfd_siginfo si;

			while (read(sfd, &si, sizeof(si)) == sizeof(si))
				supervise_signal(child, (int)si.ssi_signo);
		}
		for (unsigned j = 2; j < n; j++)
			if (slot_up[j - 2])
				ru[slot_conn[j - 2]] = p[j].revents;
			else
				rc[slot_conn[j - 2]] = p[j].revents;
		for (unsigned i = 0; i < PX_CONNS; i++)
			if (conns[i].c >= 0 && (rc[i] || ru[i]))
				step(&conns[i], rc[i], ru[i]);
		if (p[1].revents & POLLIN)
			accept_one(listener);
	}
}
