/* test_resolver.c: the proxy's own resolver (stub/egress/resolver.c), with
 * common/hosts.c's DNS messages, on the files it reads by their fixed
 * paths: the test runs in user, network and mount namespaces of its own,
 * where its /etc/hosts and /etc/resolv.conf are bind mounts of the test's
 * files (nothing is mounted on the host) and lo is the only interface.  A
 * nameserver of the test's answers on 127.0.0.1:53 there, from a table,
 * and logs each question it gets over a pipe.  The clock the resolver
 * keeps answers by is the test's (reached_now_ms() below). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "common/hosts.h"
#include "netns.h"
#include "egress/egress.h"

noreturn void diep(const char *step, const char *what, int err, const char *hint)
{
	(void)step, (void)what, (void)err, (void)hint;
	fail();
	abort();
}

noreturn void die(const char *step, int err, const char *hint)
{
	diep(step, NULL, err, hint);
}

static uint64_t now_ms = 1000000;

uint64_t reached_now_ms(void)
{
	return now_ms;
}

static const char *why_skip;
static char hosts_file[64], resolv_file[64];
static int ns_log = -1; /* the nameserver's log of questions */
static pid_t ns_pid;

/* ---- the test's nameserver ------------------------------------------------ */

struct rr {
	const char *name;
	uint16_t type;
	const char *addr; /* NULL: NXDOMAIN */
	uint32_t ttl;
};

static const struct rr zone[] = {
    {"dns.test", 1, "93.184.216.34", 60},     {"dns.test", 1, "93.184.216.35", 60},
    {"dns.test", 28, "2606:2800::1", 30},     {"v4only.test", 1, "198.51.100.9", 60},
    {"hosted.test", 1, "203.0.113.66", 60}, /* /etc/hosts says otherwise */
    {"spoofed.test", 1, "93.184.216.40", 60}, {"gone.test", 1, NULL, 0},
    {"nottl.test", 1, "198.51.100.20", 0},    {"long.test", 1, "198.51.100.30", 86400},
};

/* The question's name, dotted, and its type; false when malformed. */
static bool question(const uint8_t *m, size_t n, char *name, uint16_t *type, size_t *end)
{
	size_t i = 12, o = 0;

	while (i < n && m[i]) {
		if (m[i] > 63 || i + 1 + m[i] > n)
			return false;
		if (o)
			name[o++] = '.';
		memcpy(name + o, m + i + 1, m[i]);
		o += m[i];
		i += 1 + (size_t)m[i];
	}
	name[o] = '\0';
	if (i + 5 > n)
		return false;
	*type = (uint16_t)(m[i + 1] << 8 | m[i + 2]);
	*end = i + 5;
	return true;
}

static noreturn void nameserver(int s, int log)
{
	for (;;) {
		uint8_t m[512], r[512];
		struct sockaddr_storage from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(s, m, sizeof(m), 0, (struct sockaddr *)&from, &fl);
		char name[256], line[300];
		uint16_t type;
		size_t end, rn;
		unsigned an = 0;
		bool nx = false;

		if (n < 12 || !question(m, (size_t)n, name, &type, &end))
			continue;
		snprintf(line, sizeof(line), "%s %u\n", name, type);
		if (write(log, line, strlen(line)) < 0)
			_exit(1);
		memcpy(r, m, end);
		r[2] |= 0x80; /* a response */
		rn = end;
		for (size_t i = 0; i < sizeof(zone) / sizeof(zone[0]); i++) {
			uint8_t a[16];
			unsigned al = zone[i].type == 1 ? 4 : 16;

			if (strcmp(zone[i].name, name))
				continue;
			if (!zone[i].addr) {
				nx = true;
				continue;
			}
			if (zone[i].type != type)
				continue;
			inet_pton(type == 1 ? AF_INET : AF_INET6, zone[i].addr, a);
			/* The name by pointer to the question, type, IN, TTL. */
			const uint32_t t = zone[i].ttl;
			const uint8_t head[] = {0xc0,
			                        12,
			                        0,
			                        (uint8_t)type,
			                        0,
			                        1,
			                        (uint8_t)(t >> 24),
			                        (uint8_t)(t >> 16),
			                        (uint8_t)(t >> 8),
			                        (uint8_t)t,
			                        0,
			                        (uint8_t)al};
			memcpy(r + rn, head, sizeof(head));
			memcpy(r + rn + sizeof(head), a, al);
			rn += sizeof(head) + al;
			an++;
		}
		r[3] = nx ? 3 : 0;
		r[6] = 0, r[7] = (uint8_t)an;
		if (!strcmp(name, "spoofed.test")) {
			/* First an answer to another question id, with an address of
			 * its own: the resolver must not take it. */
			uint8_t f[512];
			const uint8_t bad[] = {6, 6, 6, 6};

			memcpy(f, r, rn);
			f[1] ^= 0x55;
			if (type == 1)
				memcpy(f + rn - 4, bad, 4);
			sendto(s, f, rn, 0, (struct sockaddr *)&from, fl);
		}
		sendto(s, r, rn, 0, (struct sockaddr *)&from, fl);
	}
}

/* ---- the files ------------------------------------------------------------ */

static void put_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* What the nameserver was asked since the last call. */
static const char *asked(void)
{
	static char buf[4096];
	ssize_t r = read(ns_log, buf, sizeof(buf) - 1);

	buf[r > 0 ? r : 0] = '\0';
	return buf;
}

static bool setup_world(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
	                        .sin_port = htons(53),
	                        .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int fd, s, lp[2];

	strcpy(hosts_file, "/tmp/aj-resolver-hosts.XXXXXX");
	strcpy(resolv_file, "/tmp/aj-resolver-resolv.XXXXXX");
	if ((fd = mkstemp(hosts_file)) < 0 || close(fd) || (fd = mkstemp(resolv_file)) < 0 ||
	    close(fd)) {
		why_skip = "no temporary files";
		return false;
	}
	/* As root too: the files are read by whoever the test runs as. */
	chmod(hosts_file, 0644), chmod(resolv_file, 0644);
	if (!netns_enter(&why_skip))
		return false;
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount(hosts_file, "/etc/hosts", NULL, MS_BIND, NULL) ||
	    mount(resolv_file, "/etc/resolv.conf", NULL, MS_BIND, NULL)) {
		why_skip = "no mount namespace of the test's own to put its /etc/hosts in";
		return false;
	}
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) ||
	    pipe2(lp, O_CLOEXEC | O_NONBLOCK)) {
		why_skip = "no nameserver of the test's own on 127.0.0.1:53";
		return false;
	}
	ns_pid = fork();
	if (!ns_pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(lp[0]);
		nameserver(s, lp[1]);
	}
	close(s);
	close(lp[1]);
	ns_log = lp[0];
	return ns_pid > 0;
}

static int reset(void **state)
{
	(void)state;
	if (why_skip)
		return 0;
	put_file(hosts_file, "");
	put_file(resolv_file, "nameserver 127.0.0.1\n");
	resolver_forget();
	(void)asked();
	return 0;
}

static void skip_without_world(void)
{
	if (why_skip) {
		print_message("SKIP: %s\n", why_skip);
		skip();
	}
}

/* ---- checks --------------------------------------------------------------- */

static void addr_text(const struct px_addrs *k, unsigned i, char *out, unsigned *port)
{
	const struct sockaddr_storage *s = &k->a[i];

	if (s->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const void *)s;

		assert_int_equal(k->len[i], sizeof(*a));
		inet_ntop(AF_INET, &a->sin_addr, out, 64);
		*port = ntohs(a->sin_port);
	} else {
		const struct sockaddr_in6 *a = (const void *)s;

		assert_int_equal(s->ss_family, AF_INET6);
		assert_int_equal(k->len[i], sizeof(*a));
		inet_ntop(AF_INET6, &a->sin6_addr, out, 64);
		*port = ntohs(a->sin6_port);
	}
}

/* The addresses, as "ADDR ADDR …", in the order they are tried; every
 * one at port. */
static const char *addrs(const struct px_addrs *k, unsigned port)
{
	static char buf[1024];

	buf[0] = '\0';
	for (unsigned i = 0; i < k->n; i++) {
		char t[64];
		unsigned p;

		addr_text(k, i, t, &p);
		assert_int_equal(p, port);
		if (i)
			strcat(buf, " ");
		strcat(buf, t);
	}
	return buf;
}

/* A literal is its own address, and nothing is read or asked. */
static void literal(void **state)
{
	struct px_addrs k;

	(void)state;
	skip_without_world();
	put_file(hosts_file, "198.51.100.1 192.0.2.7\n");
	resolver_lookup(&k, "192.0.2.7", 443, true);
	assert_string_equal(addrs(&k, 443), "192.0.2.7");
	resolver_lookup(&k, "2001:db8::5", 8443, true);
	assert_string_equal(addrs(&k, 8443), "2001:db8::5");
	/* Not an address: nothing, rather than a lookup. */
	resolver_lookup(&k, "dns.test", 443, true);
	assert_int_equal(k.n, 0);
	assert_string_equal(asked(), "");
}

/* /etc/hosts first, every line that names it, whatever the case; the
 * nameserver is not asked then. */
static void from_etc_hosts(void **state)
{
	struct px_addrs k;

	(void)state;
	skip_without_world();
	put_file(hosts_file, "127.0.0.1 localhost\n"
	                     "# 192.0.2.99 hosted.test\n"
	                     "192.0.2.10\tother.test  Hosted.Test # here\n"
	                     "2001:db8::10 hosted.test\n"
	                     "192.0.2.11 hosted.testing\n");
	resolver_lookup(&k, "hosted.test", 80, false);
	assert_string_equal(addrs(&k, 80), "192.0.2.10 2001:db8::10");
	assert_string_equal(asked(), "");
}

/* Else the nameserver: A and AAAA, both asked, all kept. */
static void from_nameserver(void **state)
{
	struct px_addrs k;
	const char *a, *q;

	(void)state;
	skip_without_world();
	put_file(hosts_file, "192.0.2.10 hosted.test\n");
	resolver_lookup(&k, "dns.test", 443, false);
	a = addrs(&k, 443);
	assert_int_equal(k.n, 3);
	assert_non_null(strstr(a, "93.184.216.34"));
	assert_non_null(strstr(a, "93.184.216.35"));
	assert_non_null(strstr(a, "2606:2800::1"));
	q = asked();
	assert_non_null(strstr(q, "dns.test 1\n"));
	assert_non_null(strstr(q, "dns.test 28\n"));
	resolver_lookup(&k, "v4only.test", 443, false);
	assert_string_equal(addrs(&k, 443), "198.51.100.9");
}

/* No such name; and no nameserver line: 127.0.0.1 is asked. */
static void no_name_and_default_server(void **state)
{
	struct px_addrs k;

	(void)state;
	skip_without_world();
	resolver_lookup(&k, "gone.test", 443, false);
	assert_int_equal(k.n, 0);
	assert_non_null(strstr(asked(), "gone.test 1\n"));
	put_file(resolv_file, "search example.org\noptions ndots:1\n");
	resolver_lookup(&k, "v4only.test", 443, false);
	assert_string_equal(addrs(&k, 443), "198.51.100.9");
}

/* An answer to a question it did not ask (another id) is not taken. */
static void spoofed_answer_ignored(void **state)
{
	struct px_addrs k;

	(void)state;
	skip_without_world();
	resolver_lookup(&k, "spoofed.test", 443, false);
	assert_string_equal(addrs(&k, 443), "93.184.216.40");
}

/* A name that cannot be asked at all (a label over 63 bytes). */
static void unaskable_name(void **state)
{
	struct px_addrs k;
	char name[80];

	(void)state;
	skip_without_world();
	memset(name, 'a', 70);
	strcpy(name + 70, ".test");
	resolver_lookup(&k, name, 443, false);
	assert_int_equal(k.n, 0);
	assert_string_equal(asked(), "");
}

/* A nameserver's answer is kept for the least TTL of its records (the
 * AAAA's 30 s here), at the port asked each time; past it the nameserver
 * is asked again. */
static void kept_for_its_ttl(void **state)
{
	struct px_addrs k;
	char first[1024];

	(void)state;
	skip_without_world();
	resolver_lookup(&k, "dns.test", 443, false);
	strcpy(first, addrs(&k, 443));
	assert_non_null(strstr(asked(), "dns.test 1\n"));
	now_ms += 29999;
	resolver_lookup(&k, "DNS.test", 8443, false);
	assert_string_equal(addrs(&k, 8443), first);
	assert_string_equal(asked(), "");
	now_ms += 1;
	resolver_lookup(&k, "dns.test", 443, false);
	assert_string_equal(addrs(&k, 443), first);
	assert_non_null(strstr(asked(), "dns.test 1\n"));
}

/* However long a nameserver says, an answer is kept 300 s at most; a
 * TTL of 0 is not kept; nor is a name that does not exist. */
static void kept_at_most_300_s(void **state)
{
	struct px_addrs k;

	(void)state;
	skip_without_world();
	resolver_lookup(&k, "long.test", 443, false);
	assert_non_null(strstr(asked(), "long.test 1\n"));
	now_ms += 299999;
	resolver_lookup(&k, "long.test", 443, false);
	assert_string_equal(asked(), "");
	now_ms += 1;
	resolver_lookup(&k, "long.test", 443, false);
	assert_string_equal(addrs(&k, 443), "198.51.100.30");
	assert_non_null(strstr(asked(), "long.test 1\n"));
	for (int i = 0; i < 2; i++) {
		resolver_lookup(&k, "nottl.test", 443, false);
		assert_string_equal(addrs(&k, 443), "198.51.100.20");
		assert_non_null(strstr(asked(), "nottl.test 1\n"));
		resolver_lookup(&k, "gone.test", 443, false);
		assert_int_equal(k.n, 0);
		assert_non_null(strstr(asked(), "gone.test 1\n"));
	}
}

/* /etc/hosts comes before what is kept: an edit to it counts at once. */
static void etc_hosts_before_kept(void **state)
{
	struct px_addrs k;

	(void)state;
	skip_without_world();
	resolver_lookup(&k, "v4only.test", 443, false);
	assert_string_equal(addrs(&k, 443), "198.51.100.9");
	(void)asked();
	put_file(hosts_file, "192.0.2.77 v4only.test\n");
	resolver_lookup(&k, "v4only.test", 443, false);
	assert_string_equal(addrs(&k, 443), "192.0.2.77");
	put_file(hosts_file, "");
	resolver_lookup(&k, "v4only.test", 443, false);
	assert_string_equal(addrs(&k, 443), "198.51.100.9");
	assert_string_equal(asked(), "");
}

/* More names than the table holds: each lookup still answers right. */
static void table_full(void **state)
{
	struct px_addrs k;

	(void)state;
	skip_without_world();
	for (int round = 0; round < 3; round++)
		for (int i = 0; i < 20; i++) {
			resolver_lookup(&k, i % 2 ? "dns.test" : "v4only.test", 443, false);
			assert_int_equal(k.n, i % 2 ? 3u : 1u);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(literal, reset),
	    cmocka_unit_test_setup(from_etc_hosts, reset),
	    cmocka_unit_test_setup(from_nameserver, reset),
	    cmocka_unit_test_setup(no_name_and_default_server, reset),
	    cmocka_unit_test_setup(spoofed_answer_ignored, reset),
	    cmocka_unit_test_setup(unaskable_name, reset),
	    cmocka_unit_test_setup(kept_for_its_ttl, reset),
	    cmocka_unit_test_setup(kept_at_most_300_s, reset),
	    cmocka_unit_test_setup(etc_hosts_before_kept, reset),
	    cmocka_unit_test_setup(table_full, reset),
	};
	int rc;

	if (!setup_world())
		print_message("SKIP: %s\n", why_skip);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	if (ns_pid > 0)
		kill(ns_pid, SIGKILL), waitpid(ns_pid, NULL, 0);
	unlink(hosts_file);
	unlink(resolv_file);
	return rc;
}
