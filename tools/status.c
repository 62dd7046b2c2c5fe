/* status.c: aijail-status without a report option: what is in force for
 * this process, measured from inside (main.c chooses the report).
 *
 * Every field is read from the kernel about this process (/proc/self, a
 * system call that answers or is refused), never from what a policy says
 * it would do; the one exception, AIJAIL_MODE, is printed as a claim.
 * "In a jail" means all of: a seccomp filter (mode 2, at least one filter),
 * no_new_privs, a user namespace that is not the host's, and the mode floor
 * that an aijail pid 1 writes into the NIS domain name of the jail's UTS
 * namespace ("aijail:MODE"), which nothing inside can change (it needs
 * CAP_SYS_ADMIN over that namespace, or a new one, and the jail refuses
 * both).  Exit status: 0 in a jail, 1 not in a jail, 2 usage.
 *
 * Static musl, like the stubs, so that it runs in any jail whatever the
 * jail mounts; fixed buffers, nothing allocated. */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "doctor.h"
#include "status.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#define LL_CREATE_RULESET_VERSION (1U << 0)

#define FLOOR_TAG     "aijail:"
#define FLOOR_TAG_LEN 7
#define MAX_IFACES    16

/* The initial namespaces have fixed inode numbers: user, pid, uts, ipc
 * since Linux 3.8, cgroup and time since they exist; mnt and net only
 * since 6.18 (0xEFFFFFF8, 0xEFFFFFF9).  Before that the host's mnt and net
 * namespaces have numbers like any other, and one number alone cannot tell
 * whose namespace it is. */
static const struct ns_kind {
	const char *name;
	uint32_t init_ino;
	bool fixed_since_6_18;
} kinds[] = {
    {"user", 0xEFFFFFFDu, false},   {"pid", 0xEFFFFFFCu, false},  {"mnt", 0xEFFFFFF8u, true},
    {"net", 0xEFFFFFF9u, true},     {"ipc", 0xEFFFFFFFu, false},  {"uts", 0xEFFFFFFEu, false},
    {"cgroup", 0xEFFFFFFBu, false}, {"time", 0xEFFFFFFAu, false},
};
#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))

enum tri { T_UNKNOWN = -1, T_NO = 0, T_YES = 1 };

struct iface {
	char name[IFNAMSIZ];
	int up; /* -1: unknown */
	bool loopback;
};

static struct {
	int seccomp, seccomp_filters, nnp;
	char cap_eff[24], cap_prm[24], cap_bnd[24], cap_amb[24];
	int ll_abi, ll_abi_errno;
	enum tri ll_restricted;
	char ll_how[160];
	unsigned long ns_ino[N_KINDS];
	enum tri ns_private[N_KINDS];
	char uid_map[96], gid_map[96];
	bool uid_identity;
	int pid;
	char pid1_comm[32];
	char root_fs[64], root_src[64];
	char hostname[65], domain[65];
	char floor[65];
	const char *claim_mode;
	struct iface ifaces[MAX_IFACES];
	unsigned n_ifaces;
	bool ifaces_read;
	bool kernel_6_18;
} st;

/* The first n-1 bytes of a small kernel file, NUL-terminated; -1 if it
 * cannot be read. */
ssize_t read_small(const char *path, char *buf, size_t n)
{
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (got + 1 < n) {
		ssize_t r = read(fd, buf + got, n - 1 - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = '\0';
	return (ssize_t)got;
}

/* The value after "Key:" in /proc/self/status, spaces skipped, up to the
 * end of the line. */
static bool status_field(const char *status, const char *key, char *out, size_t n)
{
	size_t kl = strlen(key);

	for (const char *p = status; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		if (strncmp(p, key, kl) || p[kl] != ':')
			continue;
		p += kl + 1;
		while (*p == ' ' || *p == '\t')
			p++;
		size_t l = strcspn(p, "\n");
		if (l >= n)
			l = n - 1;
		memcpy(out, p, l);
		out[l] = '\0';
		return true;
	}
	return false;
}

static int status_int(const char *status, const char *key)
{
	char v[24];

	return status_field(status, key, v, sizeof(v)) ? atoi(v) : -1;
}

static void measure_status(void)
{
	static char status[4096];

	st.seccomp = st.seccomp_filters = st.nnp = -1;
	if (read_small("/proc/self/status", status, sizeof(status)) < 0)
		return;
	st.seccomp = status_int(status, "Seccomp");
	st.seccomp_filters = status_int(status, "Seccomp_filters");
	st.nnp = status_int(status, "NoNewPrivs");
	status_field(status, "CapEff", st.cap_eff, sizeof(st.cap_eff));
	status_field(status, "CapPrm", st.cap_prm, sizeof(st.cap_prm));
	status_field(status, "CapBnd", st.cap_bnd, sizeof(st.cap_bnd));
	status_field(status, "CapAmb", st.cap_amb, sizeof(st.cap_amb));
	/* A kernel without the status line still answers the prctl. */
	if (st.nnp < 0)
		st.nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
}

static bool caps_zero(const char *hex)
{
	if (!*hex)
		return false;
	for (; *hex; hex++)
		if (*hex != '0')
			return false;
	return true;
}

static void measure_landlock(void)
{
	const char *probe;
	char name[64];

	st.ll_abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
	st.ll_abi_errno = st.ll_abi < 0 ? errno : 0;
	st.ll_restricted = T_UNKNOWN;

	/* Whether a ruleset restricts us, the kernel does not say (nothing in
	 * /proc, no query call).  So: an operation that DAC and the mount
	 * allow, that a Landlock domain refuses.  The jail's root is a
	 * writable tmpfs owned by the jail's root user, on which every
	 * shipped policy grants only read_dir: mkdir there is refused with
	 * EACCES by Landlock alone (access(2) asks DAC and the mount flags,
	 * never Landlock).  On the host's root it would create a directory,
	 * so it is never tried outside a user namespace of our own. */
	if (st.ns_private[0] != T_YES) {
		snprintf(st.ll_how, sizeof(st.ll_how),
		         "not probed: in the host's user namespace the probe would write to the "
		         "host's /");
		return;
	}
	if (access("/", W_OK)) {
		snprintf(st.ll_how, sizeof(st.ll_how),
		         "not probed: DAC or the mount refuses writing to / (access: %s)",
		         strerror(errno));
		return;
	}
	snprintf(name, sizeof(name), "/.aijail-status-probe.%d", (int)getpid());
	probe = name;
	if (!mkdir(probe, 0700)) {
		rmdir(probe);
		st.ll_restricted = T_NO;
		snprintf(st.ll_how, sizeof(st.ll_how),
		         "mkdir in / allowed (DAC and the mount allow it too): no ruleset here");
	} else if (errno == EACCES) {
		st.ll_restricted = T_YES;
		snprintf(st.ll_how, sizeof(st.ll_how),
		         "mkdir in / refused (EACCES) although DAC and the mount allow it");
	} else {
		snprintf(st.ll_how, sizeof(st.ll_how), "not decided: mkdir in / failed: %s",
		         strerror(errno));
	}
}

/* "0 0 4294967295": every id maps to itself, the host's user namespace. */
static bool identity_map(const char *map)
{
	unsigned long a, b, c;
	int n = 0;

	if (sscanf(map, " %lu %lu %lu %n", &a, &b, &c, &n) != 3)
		return false;
	return a == 0 && b == 0 && c == 4294967295UL && map[n] == '\0';
}

static void one_line(char *s)
{
	char *nl;

	/* A map's columns are padded with spaces; keep one between them. */
	for (char *r = s, *w = s;; r++) {
		if (*r == ' ' && (w == s || w[-1] == ' '))
			continue;
		*w++ = *r;
		if (!*r)
			break;
	}
	while ((nl = strchr(s, '\n')))
		*nl = nl[1] ? ';' : '\0';
	for (size_t l = strlen(s); l && (s[l - 1] == ' ' || s[l - 1] == ';'); l--)
		s[l - 1] = '\0';
}

static void measure_namespaces(void)
{
	struct utsname u;
	char path[48], link[64];

	for (unsigned i = 0; i < N_KINDS; i++) {
		ssize_t n;
		char *lb;

		st.ns_private[i] = T_UNKNOWN;
		snprintf(path, sizeof(path), "/proc/self/ns/%s", kinds[i].name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n < 0)
			continue;
		link[n] = '\0';
		lb = strchr(link, '[');
		if (!lb)
			continue;
		st.ns_ino[i] = strtoul(lb + 1, NULL, 10);
		if (st.ns_ino[i] == kinds[i].init_ino)
			st.ns_private[i] = T_NO;
		else if (!kinds[i].fixed_since_6_18 || st.kernel_6_18)
			st.ns_private[i] = T_YES;
	}
	if (read_small("/proc/self/uid_map", st.uid_map, sizeof(st.uid_map)) >= 0)
		one_line(st.uid_map);
	if (read_small("/proc/self/gid_map", st.gid_map, sizeof(st.gid_map)) >= 0)
		one_line(st.gid_map);
	st.uid_identity = identity_map(st.uid_map);
	/* Two measures of one thing: an identity map is the host's. */
	if (st.uid_identity)
		st.ns_private[0] = T_NO;
	st.pid = (int)getpid();
	if (read_small("/proc/1/comm", st.pid1_comm, sizeof(st.pid1_comm)) >= 0)
		one_line(st.pid1_comm);
	if (!uname(&u)) {
		memcpy(st.hostname, u.nodename, sizeof(st.hostname) - 1);
		memcpy(st.domain, u.domainname, sizeof(st.domain) - 1);
		if (!strncmp(st.domain, FLOOR_TAG, FLOOR_TAG_LEN))
			strcpy(st.floor, st.domain + FLOOR_TAG_LEN);
	}
	st.claim_mode = getenv("AIJAIL_MODE");
}

/* The last mount at "/" in mountinfo is the one we see. */
static void measure_root(void)
{
	static char mi[16384];
	const char *p;

	if (read_small("/proc/self/mountinfo", mi, sizeof(mi)) < 0)
		return;
	for (p = mi; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
		char mnt[8], fs[64], src[64];
		const char *sep = strstr(p, " - ");
		const char *eol = strchr(p, '\n');

		if (!sep || (eol && sep > eol))
			continue;
		if (sscanf(p, "%*s %*s %*s %*s %7s", mnt) != 1 || strcmp(mnt, "/"))
			continue;
		if (sscanf(sep + 3, "%63s %63s", fs, src) != 2)
			continue;
		strcpy(st.root_fs, fs);
		strcpy(st.root_src, src);
	}
}

static void measure_net(void)
{
	static char dev[8192];
	const char *p;
	int sock;

	if (read_small("/proc/net/dev", dev, sizeof(dev)) < 0)
		return;
	st.ifaces_read = true;
	sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	/* Two header lines, then "  NAME: counters…" per interface. */
	for (p = dev; (p = strchr(p, '\n')) && st.n_ifaces < MAX_IFACES;) {
		const char *colon, *name;
		struct iface *f;
		struct ifreq ifr;
		size_t l;

		p++;
		colon = strchr(p, ':');
		if (!colon || (strchr(p, '\n') && colon > strchr(p, '\n')))
			continue;
		name = p;
		while (*name == ' ')
			name++;
		l = (size_t)(colon - name);
		if (!l || l >= IFNAMSIZ || memchr(name, '|', l))
			continue;
		f = &st.ifaces[st.n_ifaces++];
		memcpy(f->name, name, l);
		f->name[l] = '\0';
		f->up = -1;
		if (sock < 0)
			continue;
		memset(&ifr, 0, sizeof(ifr));
		memcpy(ifr.ifr_name, f->name, l + 1);
		if (!ioctl(sock, SIOCGIFFLAGS, &ifr)) {
			f->up = !!(ifr.ifr_flags & IFF_UP);
			f->loopback = !!(ifr.ifr_flags & IFF_LOOPBACK);
		} else {
			f->loopback = !strcmp(f->name, "lo");
		}
	}
	if (sock >= 0)
		close(sock);
}

static void measure_kernel(void)
{
	struct utsname u;
	unsigned maj = 0, min = 0;

	if (!uname(&u) && sscanf(u.release, "%u.%u", &maj, &min) == 2)
		st.kernel_6_18 = maj > 6 || (maj == 6 && min >= 18);
}

/* Only loopback (up or down), or nothing at all. */
static bool net_none(void)
{
	for (unsigned i = 0; i < st.n_ifaces; i++)
		if (!st.ifaces[i].loopback)
			return false;
	return st.ifaces_read;
}

/* --- verdict ------------------------------------------------------------------ */

static const char *missing[4];
static unsigned n_missing;

static bool in_jail(void)
{
	n_missing = 0;
	if (st.seccomp != 2 || st.seccomp_filters < 1)
		missing[n_missing++] = "no seccomp filter";
	if (st.nnp != 1)
		missing[n_missing++] = "no_new_privs is off";
	if (st.ns_private[0] != T_YES)
		missing[n_missing++] = "the user namespace is the host's";
	if (!st.floor[0])
		missing[n_missing++] = "no aijail mode floor in the UTS namespace";
	return n_missing == 0;
}

/* --- output ------------------------------------------------------------------- */

void status_json_str(const char *s)
{
	if (!s) {
		fputs("null", stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void json_tri(enum tri t)
{
	fputs(t == T_YES ? "true" : t == T_NO ? "false" : "null", stdout);
}

static void json_int(int v)
{
	if (v < 0)
		fputs("null", stdout);
	else
		printf("%d", v);
}

static void print_json(bool jailed)
{
	printf("{\n  \"in_jail\": %s,\n  \"missing\": [", jailed ? "true" : "false");
	for (unsigned i = 0; i < n_missing; i++) {
		fputs(i ? ", " : "", stdout);
		status_json_str(missing[i]);
	}
	fputs("],\n  \"seccomp\": {\"mode\": ", stdout);
	json_int(st.seccomp);
	fputs(", \"filters\": ", stdout);
	json_int(st.seccomp_filters);
	fputs(", \"measured\": \"/proc/self/status Seccomp, Seccomp_filters\"},\n", stdout);
	fputs("  \"no_new_privs\": ", stdout);
	fputs(st.nnp == 1 ? "true" : st.nnp == 0 ? "false" : "null", stdout);
	fputs(",\n  \"capabilities\": {\"effective\": ", stdout);
	status_json_str(st.cap_eff);
	fputs(", \"permitted\": ", stdout);
	status_json_str(st.cap_prm);
	fputs(", \"bounding\": ", stdout);
	status_json_str(st.cap_bnd);
	fputs(", \"ambient\": ", stdout);
	status_json_str(st.cap_amb);
	printf(", \"none\": %s},\n",
	       caps_zero(st.cap_eff) && caps_zero(st.cap_prm) ? "true" : "false");
	fputs("  \"landlock\": {\"abi\": ", stdout);
	json_int(st.ll_abi);
	fputs(", \"abi_error\": ", stdout);
	status_json_str(st.ll_abi_errno ? strerror(st.ll_abi_errno) : NULL);
	fputs(", \"restricted\": ", stdout);
	json_tri(st.ll_restricted);
	fputs(", \"measured\": ", stdout);
	status_json_str(st.ll_how);
	fputs("},\n  \"namespaces\": {\n", stdout);
	for (unsigned i = 0; i < N_KINDS; i++) {
		printf("    \"%s\": {\"inode\": %lu, \"private\": ", kinds[i].name, st.ns_ino[i]);
		json_tri(st.ns_private[i]);
		if (i == 0) {
			fputs(", \"uid_map\": ", stdout);
			status_json_str(st.uid_map);
			fputs(", \"gid_map\": ", stdout);
			status_json_str(st.gid_map);
		} else if (!strcmp(kinds[i].name, "pid")) {
			printf(", \"pid\": %d, \"pid1\": ", st.pid);
			status_json_str(st.pid1_comm);
		} else if (!strcmp(kinds[i].name, "mnt")) {
			fputs(", \"root_fs\": ", stdout);
			status_json_str(st.root_fs);
			fputs(", \"root_source\": ", stdout);
			status_json_str(st.root_src);
		} else if (!strcmp(kinds[i].name, "uts")) {
			fputs(", \"hostname\": ", stdout);
			status_json_str(st.hostname);
			fputs(", \"domainname\": ", stdout);
			status_json_str(st.domain);
		}
		fputs(i + 1 < N_KINDS ? "},\n" : "}\n", stdout);
	}
	fputs("  },\n  \"network\": {\"interfaces\": [", stdout);
	for (unsigned i = 0; i < st.n_ifaces; i++) {
		const struct iface *f = &st.ifaces[i];

		fputs(i ? ", " : "", stdout);
		fputs("{\"name\": ", stdout);
		status_json_str(f->name);
		fputs(", \"up\": ", stdout);
		json_tri(f->up < 0 ? T_UNKNOWN : f->up ? T_YES : T_NO);
		printf(", \"loopback\": %s}", f->loopback ? "true" : "false");
	}
	printf("], \"none\": %s, \"measured\": \"/proc/net/dev, SIOCGIFFLAGS\"},\n",
	       net_none() ? "true" : "false");
	fputs("  \"mode\": {\"floor\": ", stdout);
	status_json_str(st.floor[0] ? st.floor : NULL);
	fputs(", \"floor_measured\": \"the UTS namespace's NIS domain name, set by the jail's pid "
	      "1\", "
	      "\"claimed\": ",
	      stdout);
	status_json_str(st.claim_mode);
	fputs(", \"claimed_from\": \"the environment variable AIJAIL_MODE, which any process can "
	      "set\"}\n}\n",
	      stdout);
}

static const char *tri_word(enum tri t, const char *yes, const char *no)
{
	return t == T_YES ? yes : t == T_NO ? no : "unknown";
}

static void print_text(bool jailed)
{
	if (jailed) {
		printf(
		    "in a jail: yes (seccomp filter, no_new_privs, own user namespace, mode floor "
		    "%s)\n",
		    st.floor);
	} else {
		fputs("in a jail: no:", stdout);
		for (unsigned i = 0; i < n_missing; i++)
			printf("%s %s", i ? "," : "", missing[i]);
		putchar('\n');
	}
	printf("seccomp:      mode %d, %d filter%s (/proc/self/status)\n", st.seccomp,
	       st.seccomp_filters, st.seccomp_filters == 1 ? "" : "s");
	printf("no_new_privs: %s\n", st.nnp == 1 ? "on" : st.nnp == 0 ? "off" : "unknown");
	printf("capabilities: effective %s, permitted %s, bounding %s, ambient %s%s\n", st.cap_eff,
	       st.cap_prm, st.cap_bnd, st.cap_amb,
	       caps_zero(st.cap_eff) && caps_zero(st.cap_prm) ? " (none)" : "");
	if (st.ll_abi > 0)
		printf("landlock:     kernel ABI %d; ", st.ll_abi);
	else
		printf("landlock:     not available (%s); ", strerror(st.ll_abi_errno));
	printf("restricts this process: %s (%s)\n", tri_word(st.ll_restricted, "yes", "no"),
	       st.ll_how);
	fputs("namespaces:\n", stdout);
	for (unsigned i = 0; i < N_KINDS; i++) {
		printf("  %-7s %s [%lu]", kinds[i].name,
		       tri_word(st.ns_private[i], "private", "the host's"), st.ns_ino[i]);
		if (i == 0)
			printf(", uid_map \"%s\"", st.uid_map);
		else if (!strcmp(kinds[i].name, "pid"))
			printf(", our pid %d, pid 1 is %s", st.pid, st.pid1_comm);
		else if (!strcmp(kinds[i].name, "mnt"))
			printf(", root: %s %s", st.root_fs, st.root_src);
		else if (!strcmp(kinds[i].name, "uts"))
			printf(", hostname %s", st.hostname);
		putchar('\n');
	}
	fputs("network:     ", stdout);
	if (!st.ifaces_read)
		fputs(" unknown (/proc/net/dev unreadable)", stdout);
	for (unsigned i = 0; i < st.n_ifaces; i++)
		printf(" %s (%s)", st.ifaces[i].name,
		       st.ifaces[i].up < 0 ? "?"
		       : st.ifaces[i].up   ? "up"
		                           : "down");
	printf("%s\n", net_none() ? "; no interface but loopback" : "");
	printf("mode floor:   %s (the UTS domain name, set by the jail's pid 1)\n",
	       st.floor[0] ? st.floor : "none");
	printf("mode claimed: %s (AIJAIL_MODE, a claim: any process can set it)\n",
	       st.claim_mode ? st.claim_mode : "unset");
}

/* Measured, judged, printed: status.h. */
int status_main(bool json)
{
	bool jailed;

	measure_kernel();
	measure_status();
	measure_namespaces();
	measure_root();
	measure_net();
	measure_landlock();
	jailed = in_jail();
	if (json)
		print_json(jailed);
	else
		print_text(jailed);
	if (fflush(stdout) || ferror(stdout))
		return 2;
	return jailed ? 0 : 1;
}
