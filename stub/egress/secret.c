/* secret.c: --jail-secret=NAME=HOST[:PORT][,HOST[:PORT]...], a key of the
 * caller's the jail may use and never holds (docs/keys.md).
 *
 * The jail's NAME is a placeholder made for this run.  The value goes to
 * aijail-keys, a program of its own that the parent execs before pid 1 is
 * cloned, and is then wiped here, from the caller's environment block
 * included: pid 1 and every process of ours in the jail is a copy of this
 * memory, and /proc/PID/environ shows that block.  On a CONNECT to a bound
 * host the proxy (proxy.c) hands the jail's end and its connection to the
 * host to aijail-keys, which terminates the jail's TLS and adds the value;
 * a plain-HTTP request that carries a placeholder is refused. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "egress/egress.h"
#include "common/keys.h"

_Static_assert(KEYS_HOST_MAX >= AJ_HOST_MAX, "a bound host fits the proxy's target");

extern char **environ;

static struct keys_bind binds[KEYS_MAX];
static unsigned n_binds;
static char env_entry[KEYS_MAX][KEYS_NAME_MAX + KEYS_PH_MAX + 1];
static int ctl = -1; /* the parent's end of aijail-keys's socket */
/* For --jail-explain: where a following key's host came from (NULL: its
 * default, or not a following key), and the following keys not bound
 * because the caller does not have them. */
static const char *bind_from[KEYS_MAX];
static const char *unbound[KEYS_MAX];
static unsigned n_unbound;
static char ca_pem[4096];

void secret_add(const char *value, const char *opt)
{
	const char *eq = strchr(value, '='), *h;
	struct keys_bind *b;

	if (n_binds == KEYS_MAX)
		die_usage("too many --jail-secret options (at most 8)", opt);
	if (!eq || !keys_name_ok(value, (size_t)(eq - value)))
		die_usage(
		    "--jail-secret takes NAME=HOST[:PORT][,HOST[:PORT]...], NAME a variable's "
		    "name",
		    opt);
	b = &binds[n_binds];
	memcpy(b->name, value, (size_t)(eq - value));
	b->name[eq - value] = '\0';
	for (unsigned i = 0; i < n_binds; i++)
		if (!strcmp(binds[i].name, b->name))
			die_usage("a key bound twice (list its hosts in one option)", opt);
	for (h = eq + 1;;) {
		const char *end = strchrnul(h, ',');
		char one[AJ_HOST_MAX];
		size_t at;
		const char *why;

		if (b->n_hosts == KEYS_HOSTS)
			die_usage("too many hosts for one key (at most 8)", opt);
		if ((size_t)(end - h) >= sizeof(one) || end == h)
			die_usage("a bad host in", opt);
		memcpy(one, h, (size_t)(end - h));
		one[end - h] = '\0';
		/* A name, not a pattern: the certificate the jail is shown is for
		 * one name, and a key goes to the hosts written, not to a family. */
		if ((why = hosts_normal(one, false, b->hosts[b->n_hosts], KEYS_HOST_MAX, &at)))
			die_usage(why, one);
		b->n_hosts++;
		if (!*end)
			break;
		h = end + 1;
	}
	n_binds++;
}

/* The variant's 'secret' statements (compiler/keys.c), under the run's
 * --jail-secret: a key the option binds keeps the option's hosts. */
static void secret_policy(const struct aj_variant *v)
{
	for (unsigned k = 0; k < v->n_keys; k++) {
		const struct aj_key *p = &v->keys[k];
		struct keys_bind *b;
		const char *moved, *from;
		bool bound = false;

		for (unsigned i = 0; i < n_binds; i++)
			bound |= !strcmp(binds[i].name, p->name);
		if (bound)
			continue;
		if (p->follows && !getenv(p->name)) {
			if (n_unbound < KEYS_MAX)
				unbound[n_unbound++] = p->name;
			continue;
		}
		if (n_binds == KEYS_MAX || p->n_hosts > KEYS_HOSTS ||
		    strlen(p->name) >= KEYS_NAME_MAX)
			die("bind the policy's keys", E2BIG,
			    "at most 8 keys of 8 hosts, with --jail-secret's");
		b = &binds[n_binds++];
		memcpy(b->name, p->name, strlen(p->name) + 1);
		/* The tool's setting moved its API host: the key goes there, and
		 * no longer to the default the tool does not use. */
		if (p->follows)
			egress_follow(v, environ);
		if (p->follows && (moved = egress_followed_host(&from))) {
			/* A tool's file may be in its state, which the jail writes:
			 * a host read there would be the jail's choice of where the
			 * key goes on the next run.  Only the caller's variable
			 * moves a key. */
			if (from && from[0] == '/')
				diep("bind the key", p->name, 0,
				     "it follows the tool's API host, which a file the jail may "
				     "rewrite names; name the host in the tool's variable, or bind "
				     "the key with --jail-secret=NAME=HOST");
			if (strlen(moved) >= KEYS_HOST_MAX)
				die("bind the policy's keys", E2BIG, NULL);
			memcpy(b->hosts[0], moved, strlen(moved) + 1);
			b->n_hosts = 1;
			bind_from[n_binds - 1] = from;
			continue;
		}
		for (unsigned h = 0; h < p->n_hosts; h++) {
			if (strlen(p->hosts[h]) >= KEYS_HOST_MAX)
				die("bind the policy's keys", E2BIG, NULL);
			memcpy(b->hosts[h], p->hosts[h], strlen(p->hosts[h]) + 1);
		}
		b->n_hosts = p->n_hosts;
	}
}

unsigned secret_count(void)
{
	return n_binds;
}

static const char *bound_key(const char *target)
{
	for (unsigned i = 0; i < n_binds; i++)
		for (unsigned h = 0; h < binds[i].n_hosts; h++)
			if (!strcmp(binds[i].hosts[h], target))
				return binds[i].name;
	return NULL;
}

/* Bound, whether or not aijail-keys still runs: a bound host is never
 * relayed as a plain tunnel (secret_handoff() fails once it is gone). */
bool secret_bound(const char *target)
{
	return bound_key(target) != NULL;
}

/* aijail-keys, beside this stub: opened once, checked, exec'd by that
 * descriptor (a name looked up again could be another file by then). */
static int helper_open(void)
{
	static char self[AJ_PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 16);
	char *slash;
	struct stat st, root;
	int fd;

	if (n <= 0 || !(slash = memrchr(self, '/', (size_t)n)))
		die("find aijail-keys", n < 0 ? errno : ENOENT, "it is installed beside the stub");
	memcpy(slash + 1, "aijail-keys", 12);
	fd = (int)syscall(SYS_openat, AT_FDCWD, self, O_PATH | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		diep("find", self, errno, "--jail-secret needs aijail-keys beside the stub");
	/* Root's shows as the overflow uid where root is unmapped (the
	 * jail's user namespace, which the caller has joined by now). */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (st.st_mode & 022) ||
	    (st.st_uid != 0 && st.st_uid != getuid() &&
	     !(st.st_uid == 65534 && !stat("/", &root) && root.st_uid == 65534)))
		diep("trust", self, EPERM,
		     "aijail-keys must be a regular file of root's or yours that no one else can "
		     "write");
	return fd;
}

/* The caller, before any namespace (a process forked after the stub's
 * unshare(CLONE_NEWPID) would be the jail's pid 1) and before anything
 * else is forked from it (the watcher): read the values, start
 * aijail-keys with them, and wipe them here, the caller's own environment
 * block included, so that no later copy of this memory holds one. */
void secret_spawn(const struct aj_variant *v, bool explain)
{
	int sp[2], exe;
	pid_t pid;
	ssize_t r;

	secret_policy(v);
	if (!n_binds)
		return;
	for (unsigned i = 0; i < n_binds; i++) {
		const char *val = getenv(binds[i].name);

		if (!val)
			diep("bind the key", binds[i].name, 0,
			     "it is not set in your environment (--jail-secret binds a variable "
			     "you have)");
		if (!*val || strlen(val) >= KEYS_VALUE_MAX)
			diep("bind the key", binds[i].name, 0,
			     "its value is empty or over 4095 bytes");
		for (const char *c = val; *c; c++)
			if ((unsigned char)*c < 32 || *c == 127)
				diep("bind the key", binds[i].name, 0,
				     "its value holds a control character (it would split a "
				     "header)");
		memcpy(binds[i].value, val, strlen(val) + 1);
	}
	for (unsigned i = 0; i < n_binds; i++) {
		unsigned char rnd[KEYS_PH_RAND / 2];
		char *p = binds[i].placeholder;
		size_t nl = strlen(binds[i].name);

		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			die("make a key's placeholder", errno, NULL);
		memcpy(p, "aijail-secret-", 14);
		memcpy(p + 14, binds[i].name, nl);
		p[14 + nl] = '-';
		for (unsigned k = 0; k < sizeof(rnd); k++) {
			p[15 + nl + 2 * k] = "0123456789abcdef"[rnd[k] >> 4];
			p[16 + nl + 2 * k] = "0123456789abcdef"[rnd[k] & 15];
		}
		p[15 + nl + KEYS_PH_RAND] = '\0';
	}
	if (!explain) {
		exe = helper_open();
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp))
			die("start aijail-keys", errno, NULL);
		pid = fork();
		if (pid < 0)
			die("start aijail-keys", errno, NULL);
		if (!pid) {
			static char *const argv[] = {"aijail-keys", NULL}, *const env[] = {NULL};

			/* exe above 3 first: the socket's end takes 3. */
			exe = (int)syscall(SYS_fcntl, exe, F_DUPFD_CLOEXEC, 10);
			if (exe < 0 || dup2(sp[1], 3) != 3 ||
			    syscall(SYS_close_range, 4, 9, 0) < 0 ||
			    syscall(SYS_close_range, (unsigned)exe + 1, ~0U, 0) < 0)
				die("start aijail-keys", errno, NULL);
			syscall(SYS_execveat, exe, "", argv, env, AT_EMPTY_PATH);
			die("start aijail-keys", errno, NULL);
		}
		close(sp[1]);
		close(exe);
		ctl = sp[0];
		if (send(ctl, binds, n_binds * sizeof(binds[0]), MSG_NOSIGNAL) < 0)
			die("start aijail-keys", errno, NULL);
		r = recv(ctl, ca_pem, sizeof(ca_pem) - 1, 0);
		if (r <= 0)
			die("start aijail-keys", r < 0 ? errno : EPIPE,
			    "it ended before its authority was made");
		ca_pem[r] = '\0';
	}
	for (unsigned i = 0; i < n_binds; i++) {
		size_t nl = strlen(binds[i].name);

		explicit_bzero(binds[i].value, sizeof(binds[i].value));
		for (char **e = environ; *e; e++)
			if (!strncmp(*e, binds[i].name, nl) && (*e)[nl] == '=')
				explicit_bzero(*e + nl + 1, strlen(*e + nl + 1));
	}
}

static size_t env_count(char **envp)
{
	size_t n = 0;

	while (envp[n])
		n++;
	return n;
}

/* After env_build(): each bound host reachable at all, and the jail's
 * environment (envp, max slots) with the placeholders for the values. */
void secret_env(const struct aj_variant *v, char **envp, size_t max)
{
	for (unsigned i = 0; i < n_binds; i++) {
		size_t nl = strlen(binds[i].name);

		/* The proxy carries only what the list allows; under 'network
		 * host' the jail connects past it. */
		for (unsigned h = 0; h < binds[i].n_hosts; h++)
			if (!AJ_NET_PROXIED(v->network) || !egress_allowed(binds[i].hosts[h]))
				diep(
				    "bind the key", binds[i].name, 0,
				    AJ_NET_PROXIED(v->network)
				        ? "a host it is bound to is not in the jail's network "
				          "list; "
				          "--jail-allow-host=HOST allows it"
				        : "a key is added by the jail's proxy: the network must be "
				          "'allow' (--jail-allow-host=HOST) or 'public' "
				          "(--jail-net=public)");
		for (size_t k = 0; envp[k];)
			if (!strncmp(envp[k], binds[i].name, nl) && envp[k][nl] == '=')
				memmove(&envp[k], &envp[k + 1],
				        (env_count(envp) - k) * sizeof(*envp));
			else
				k++;
		memcpy(env_entry[i], binds[i].name, nl);
		env_entry[i][nl] = '=';
		memcpy(env_entry[i] + nl + 1, binds[i].placeholder,
		       strlen(binds[i].placeholder) + 1);
		for (size_t k = 0;; k++) {
			if (k + 1 >= max)
				die("build the environment", E2BIG,
				    "the host passes too many variables");
			if (!envp[k]) {
				envp[k] = env_entry[i], envp[k + 1] = NULL;
				break;
			}
		}
	}
}

/* The proxy (conn.c), a connection to target connected to the host at
 * u, a CONNECT (answer: its client waits for the 200) or the relay's:
 * true when aijail-keys has taken both ends (the proxy then closes its
 * copies); false: not a bound host, or it could not be handed over (the
 * connection is closed, and said so). */
bool secret_handoff(int c, int u, const char *target, bool answer)
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))] = {0};
	char how = answer ? KEYS_HAND_CONNECT : KEYS_HAND_RELAY;
	struct iovec iov[2] = {{&how, 1}, {(void *)target, strlen(target)}};
	struct msghdr m = {
	    .msg_iov = iov, .msg_iovlen = 2, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	int fds[2] = {c, u};

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(cm), fds, sizeof(fds));
	return sendmsg(ctl, &m, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)(1 + iov[1].iov_len);
}

/* A plain-HTTP head (n bytes): NULL, or why it is refused, naming the key
 * whose placeholder it carries (a value is added only inside TLS to a
 * bound host, and a placeholder in clear goes nowhere). */
const char *secret_in_plain(const char *head, size_t n)
{
	static char why[KEYS_NAME_MAX + 64];

	for (unsigned i = 0; i < n_binds; i++)
		if (memmem(head, n, binds[i].placeholder, strlen(binds[i].placeholder))) {
			size_t nl = strlen(binds[i].name);

			memcpy(why, "it carries the placeholder of the key ", 38);
			memcpy(why + 38, binds[i].name, nl);
			memcpy(why + 38 + nl, " in plain HTTP", 15);
			return why;
		}
	return NULL;
}

/* aijail-keys's word, in the parent's loop: what it refused goes to the
 * summary and --jail-log as the proxy's own refusals do; a control socket
 * that closes leaves every bound host refused. */
static unsigned secret_fill(struct pollfd *p, unsigned max)
{
	if (!max)
		return 0;
	p[0] = (struct pollfd){.fd = ctl, .events = POLLIN};
	return 1;
}

static void secret_serve(const struct pollfd *p, unsigned n)
{
	char m[1 + KEYS_HOST_MAX + 512 + 1];
	ssize_t r;
	size_t tl;

	if (!n || !p[0].revents)
		return;
	r = recv(ctl, m, sizeof(m) - 1, MSG_DONTWAIT);
	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
		close(ctl);
		ctl = -1;
		return;
	}
	if (r < 2 || m[0] != 'R')
		return;
	m[r] = '\0';
	tl = strlen(m + 1);
	if (2 + tl > (size_t)r || !bound_key(m + 1))
		return;
	refusals_host("connection", m + 1, m + 2 + tl);
}

static const struct ev_source secret_ev = {secret_fill, secret_serve};

const struct ev_source *secret_source(void)
{
	return ctl >= 0 ? &secret_ev : NULL;
}

/* Inside --jail-explain's "network" object, with a key bound: each key's
 * name and hosts, never its value (explain reads no value at all). */
void secret_explain(void)
{
	if (n_binds)
		rp_open("keys", '[');
	for (unsigned i = 0; i < n_binds; i++) {
		rp_open(NULL, '{');
		rp_t("\n\t\tkey ");
		rp_str("name", binds[i].name);
		rp_t(", a placeholder in the jail, its value added on the way to");
		rp_open("hosts", '[');
		for (unsigned h = 0; h < binds[i].n_hosts; h++) {
			rp_t(" ");
			rp_str(NULL, binds[i].hosts[h]);
		}
		rp_close();
		if (bind_from[i]) {
			rp_t(" (the API host ");
			rp_str("from", bind_from[i]);
			rp_t(" names)");
		}
		rp_close();
	}
	if (n_binds)
		rp_close();
	if (n_unbound)
		rp_open("keys_unbound", '[');
	for (unsigned i = 0; i < n_unbound; i++) {
		rp_t("\n\t\tkey ");
		rp_str(NULL, unbound[i]);
		rp_t(": not in your environment, not bound");
	}
	if (n_unbound)
		rp_close();
}

/* The run's authority, PEM, for the jail's trust bundle; NULL: no key. */
const char *secret_ca_pem(void)
{
	return ctl >= 0 ? ca_pem : NULL;
}
