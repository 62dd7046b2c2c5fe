/* limits.c: 'limit memory' and 'limit processes', the bounds that contain
 * a runaway.
 *
 * The whole jail's bound, through a cgroup of its own where the caller may
 * make one: the parent makes it while pid 1 builds the root and removes it
 * once pid 1 is gone.  pid 1 is in it before it starts the target: the
 * parent moves it there (v2) before it hands pid 1 the scan, which pid 1
 * waits for, or sends with the scan the fd pid 1 moves itself through
 * (v1).  No cgroup work at all for a variant without bounds.  Else per
 * process: RLIMIT_DATA for the memory, RLIMIT_NPROC for the tasks, which
 * Linux counts per user namespace since 5.14, so per jail, but never for
 * the host's root (copy_process() exempts it).  RLIMIT_NPROC is set in
 * either case: it costs one call.
 *
 * Where: cgroup v2 first.  A cgroup that has processes (the caller's own)
 * cannot hand the memory controller to children, so the jail's is made
 * beside it, in the parent the caller was delegated (systemd gives each
 * user's manager its subtree); in the root cgroup, below it.  Else, for a
 * root caller on a host that still mounts v1 hierarchies, a child of its
 * own cgroup in the memory and pids ones.  A stub killed by SIGKILL leaves
 * its empty cgroup behind: the next run removes those whose stub is gone.
 * None of this fails closed: the rlimits are the floor, and --jail-explain
 * says which bound applies. */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <linux/capability.h>

#include "proc/proc.h"

#define CGROUP_SUPER_MAGIC  0x27e0eb
#define CGROUP2_SUPER_MAGIC 0x63677270
#define JAIL_PREFIX         "aijail."

struct limit limits[LIMIT_N];

const struct limit *limits_at(unsigned i)
{
	return &limits[i];
}
struct limits_how limits_how;

static const struct {
	const char *name;    /* the controller */
	const char *file[2]; /* the bound's file, v1 then v2 */
} res[LIMIT_N] = {
    [LIMIT_MEMORY] = {"memory", {"memory.limit_in_bytes", "memory.max"}},
    [LIMIT_TASKS] = {"pids", {"pids.max", "pids.max"}},
};

/* Where the kernel shows them; the unit tests point these at a fake tree. */
struct limits_paths limits_paths = {
    .self = "/proc/self/cgroup",
    .uid_map = "/proc/self/uid_map",
    .v2 = {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"},
    .v1 = {[LIMIT_MEMORY] = "/sys/fs/cgroup/memory", [LIMIT_TASKS] = "/sys/fs/cgroup/pids"},
};

static char own[2048]; /* /proc/self/cgroup */
static const char *v2_mount;
static char dirs[LIMIT_N][AJ_PATH_MAX];
static int join_fd[LIMIT_N] = {-1, -1};

void limits_resolve(const struct aj_variant *v)
{
	limits[LIMIT_MEMORY].value = v->memory;
	limits[LIMIT_TASKS].value = v->processes;
	if (v->memory & AJ_MEMORY_PERCENT) {
		struct sysinfo si;
		uint64_t pct = v->memory & ~AJ_MEMORY_PERCENT;

		if (sysinfo(&si))
			die("read the size of memory", errno, NULL);
		limits[LIMIT_MEMORY].total = (uint64_t)si.totalram * si.mem_unit;
		limits[LIMIT_MEMORY].percent = (unsigned)(pct > 100 ? 100 : pct);
		limits[LIMIT_MEMORY].value =
		    limits[LIMIT_MEMORY].total / 100 * limits[LIMIT_MEMORY].percent;
		if (!limits[LIMIT_MEMORY].value) /* a 0% policy still bounds */
			limits[LIMIT_MEMORY].value = 1;
	}
}

static bool is_fs(const char *path, unsigned long magic)
{
	struct statfs s;

	return !statfs(path, &s) && (unsigned long)s.f_type == magic;
}

/* The path of our cgroup in a hierarchy: v2's "0::", or v1's line whose
 * controller list names ctl; NULL when there is none. */
static const char *own_path(const char *ctl, char *out)
{
	size_t cl = ctl ? strlen(ctl) : 0;

	for (const char *l = own; *l;) {
		const char *end = strchrnul(l, '\n');
		const char *c = strchr(l, ':'), *p = c ? strchr(c + 1, ':') : NULL;

		if (c && c > end)
			c = p = NULL;
		if (p && p > end)
			p = NULL;

		if (p && p[1] == '/' && (size_t)(end - p) < AJ_PATH_MAX / 2) {
			bool match = !ctl && p == c + 1 && !strncmp(l, "0:", 2);

			for (const char *w = c + 1; ctl && w < p; w++)
				if ((w == c + 1 || w[-1] == ',') && !strncmp(w, ctl, cl) &&
				    (w[cl] == ',' || w + cl == p))
					match = true;
			if (match) {
				memcpy(out, p + 1, (size_t)(end - p - 1));
				out[end - p - 1] = '\0';
				return out;
			}
		}
		l = *end ? end + 1 : end;
	}
	return NULL;
}

/* A small kernel file, whole and NUL-terminated: its length, or -1. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

static bool lists(const char *file, const char *word)
{
	char buf[256];
	size_t wl = strlen(word);

	if (read_small(file, buf, sizeof(buf)) <= 0)
		return false;
	/* Word by word: strstr would bring musl's two-way search, 1.3 KiB. */
	for (char *w = buf; *w;) {
		size_t l = strcspn(w, " \n");

		if (l == wl && !strncmp(w, word, wl))
			return true;
		w += l + (w[l] != '\0');
	}
	return false;
}

static void read_own(void)
{
	(void)read_small(limits_paths.self, own, sizeof(own));
	/* Mounted there alone, or there beside the v1 hierarchies. */
	v2_mount = is_fs(limits_paths.v2[0], CGROUP2_SUPER_MAGIC)   ? limits_paths.v2[0]
	           : is_fs(limits_paths.v2[1], CGROUP2_SUPER_MAGIC) ? limits_paths.v2[1]
	                                                            : NULL;
}

/* Where the jail's cgroup for resource i would go: dirs[i] is the
 * directory it is made in; false (with why) when there is none. */
static bool locate(unsigned i)
{
	struct limit *l = &limits[i];
	char path[AJ_PATH_MAX / 2], ctl[AJ_PATH_MAX];
	char *d = dirs[i];

	l->v2 = false;
	if (v2_mount && own_path(NULL, path)) {
		bool top = !path[1];

		strcpy(ctl, v2_mount);
		strcat(ctl, top ? "" : path);
		strcat(ctl, top ? "/cgroup.subtree_control" : "/cgroup.controllers");
		if (lists(ctl, res[i].name)) {
			strcpy(d, v2_mount);
			if (!top) {
				*strrchr(path, '/') = '\0';
				strcat(d, path);
			}
			return l->v2 = true;
		}
	}
	if (own_path(res[i].name, path) && is_fs(limits_paths.v1[i], CGROUP_SUPER_MAGIC)) {
		strcpy(d, limits_paths.v1[i]);
		strcat(d, path[1] ? path : "");
		return true;
	}
	l->why = i == LIMIT_MEMORY
	             ? "no delegated cgroup v2 with the memory controller, nor a cgroup "
	               "v1 memory hierarchy"
	             : "no delegated cgroup v2 with the pids controller, nor a cgroup v1 "
	               "pids hierarchy";
	return false;
}

static const char *not_ours(unsigned i)
{
	if (limits[i].v2)
		return "the cgroup v2 directory beside the caller's is not the caller's (not "
		       "delegated)";
	return i == LIMIT_MEMORY ? "no delegated cgroup v2 with the memory controller, and the v1 "
	                           "hierarchy is root's"
	                         : "no delegated cgroup v2 with the pids controller, and the v1 "
	                           "hierarchy is root's";
}

/* DIR/aijail.PID, PID the parent's (0: the word, for --jail-explain). */
static void cgroup_name(unsigned i, pid_t self)
{
	char *p = limits[i].cgroup;

	strcpy(p, dirs[i]);
	strcat(p, "/" JAIL_PREFIX);
	if (self)
		out_fmt_u(p + strlen(p), (unsigned long long)self);
	else
		strcat(p, "PID");
}

/* --jail-explain: what a run would use here, nothing made. */
void limits_probe(void)
{
	bool any = false;

	for (unsigned i = 0; i < LIMIT_N; i++)
		any |= limits[i].value != 0;
	if (!any)
		return;
	read_own();
	for (unsigned i = 0; i < LIMIT_N; i++) {
		struct limit *l = &limits[i];

		if (!l->value || !locate(i))
			continue;
		if (access(dirs[i], W_OK | X_OK)) {
			l->why = not_ours(i);
			continue;
		}
		cgroup_name(i, 0);
		l->file = res[i].file[l->v2];
		l->by_cgroup = true;
	}
}

static int open_in(const char *dir, const char *file, int flags)
{
	char path[AJ_PATH_MAX + 32];

	strcpy(path, dir);
	strcat(path, "/");
	strcat(path, file);
	return open(path, flags | O_CLOEXEC);
}

static bool write_num(const char *dir, const char *file, unsigned long long v)
{
	char s[24];
	int fd = open_in(dir, file, O_WRONLY);
	bool ok;

	out_fmt_u(s, v);
	if (fd < 0)
		return false;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok;
}

/* The cgroups of stubs that were killed before they could remove theirs.
 * rmdir succeeds only on an empty cgroup, and one whose stub lives may
 * still be on its way to hold pid 1: those are left alone.  Before the
 * scan is sent: a failure here still comes before the target runs. */
static void tidy(void)
{
	char buf[2048];

	for (unsigned i = 0; i < LIMIT_N; i++) {
		struct dir_iter it = {.buf = buf, .size = sizeof(buf)};
		struct aj_dirent *d;

		if (!limits_how.cgroup[i] ||
		    (i && limits_how.cgroup[0] && !strcmp(dirs[0], dirs[i])))
			continue;
		it.fd = open(dirs[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (it.fd < 0)
			continue;
		while ((d = dir_next(&it, "read the cgroup directory", dirs[i]))) {
			const char *p = d->d_name;
			unsigned long pid = 0;

			if (strncmp(p, JAIL_PREFIX, strlen(JAIL_PREFIX)))
				continue;
			for (p += strlen(JAIL_PREFIX); *p >= '0' && *p <= '9' && pid < 1UL << 32;
			     p++)
				pid = pid * 10 + (unsigned long)(*p - '0');
			if (*p || !pid || (pid_t)pid == getpid())
				continue;
			if (kill((pid_t)pid, 0) && errno == ESRCH)
				unlinkat(it.fd, d->d_name, AT_REMOVEDIR);
		}
		close(it.fd);
	}
}

/* The parent, while pid 1 builds the root.  Every failure leaves the
 * bound to pid 1's rlimits (limits_how, sent with the scan). */
void limits_place(pid_t init)
{
	pid_t self = getpid();

	limits_how = (struct limits_how){0};
	if (!limits[LIMIT_MEMORY].value && !limits[LIMIT_TASKS].value)
		return;
	read_own();
	for (unsigned i = 0; i < LIMIT_N; i++) {
		struct limit *l = &limits[i];
		bool shared;

		join_fd[i] = -1;
		if (!l->value || !locate(i))
			continue;
		cgroup_name(i, self);
		/* One v2 cgroup holds both bounds. */
		shared =
		    i && limits_how.cgroup[0] && l->v2 && limits[0].v2 && !strcmp(dirs[0], dirs[i]);
		if (!shared && mkdir(l->cgroup, 0755) && errno != EEXIST) {
			l->why = not_ours(i);
			continue;
		}
		/* v1 lets a thread move itself without the lock that makes
		 * moving a process cost an RCU grace period (up to 10 ms here
		 * under load, 1 run in 4): pid 1 writes 0 to "tasks", on the fd
		 * it receives with the scan. */
		if (!l->v2)
			join_fd[i] = open_in(l->cgroup, "tasks", O_WRONLY);
		if (!write_num(l->cgroup, res[i].file[l->v2], l->value) ||
		    (l->v2 && !shared &&
		     !write_num(l->cgroup, "cgroup.procs", (unsigned long long)init)) ||
		    (!l->v2 && join_fd[i] < 0)) {
			if (join_fd[i] >= 0)
				close(join_fd[i]);
			join_fd[i] = -1;
			if (!shared)
				rmdir(l->cgroup);
			l->why = "the cgroup refused the bound or pid 1";
			continue;
		}
		l->file = res[i].file[l->v2];
		l->by_cgroup = true;
		limits_how.cgroup[i] = 1;
		limits_how.join[i] = join_fd[i] >= 0;
		die_undo = limits_release;
	}
	tidy();
}

/* The fds pid 1 joins its cgroups through, for ns_scan_send(). */
unsigned limits_join_fds(int *fds)
{
	unsigned n = 0;

	for (unsigned i = 0; i < LIMIT_N; i++)
		if (limits_how.join[i])
			fds[n++] = join_fd[i];
	return n;
}

/* pid 1: the fds the parent sent, in the order of limits_join_fds(), and
 * n of them arrived. */
void limits_joined(const int *fds, unsigned n)
{
	unsigned k = 0;

	for (unsigned i = 0; i < LIMIT_N; i++) {
		join_fd[i] = -1;
		if (limits_how.join[i] && k < n)
			join_fd[i] = fds[k++];
		else if (limits_how.join[i])
			limits_how.cgroup[i] = 0; /* lost on the way: the rlimit holds it */
	}
}

/* The capability the parent keeps for limits_release(), or -1. */
int limits_keep(void)
{
	return limits_how.cgroup[LIMIT_MEMORY] || limits_how.cgroup[LIMIT_TASKS] ? CAP_DAC_OVERRIDE
	                                                                         : -1;
}

/* The parent, once pid 1 is reaped: the jail's tasks are gone with it (a
 * pid namespace dies with its pid 1), so its cgroups are empty. */
void limits_release(void)
{
	if (limits_keep() >= 0)
		privs_caps_raise(CAP_DAC_OVERRIDE);
	for (unsigned i = 0; i < LIMIT_N; i++)
		if (limits_how.cgroup[i] &&
		    !(i && limits_how.cgroup[0] && !strcmp(limits[0].cgroup, limits[i].cgroup)))
			rmdir(limits[i].cgroup);
}

/* RLIMIT_NPROC counts per user namespace from Linux 5.14 on; before, per
 * user on the whole host, where the caller's other processes would eat
 * the jail's bound. */
bool limits_nproc_here(void)
{
	struct utsname u;
	unsigned major = 0, minor = 0;
	const char *p;

	if (uname(&u))
		return false;
	for (p = u.release; *p >= '0' && *p <= '9'; p++)
		major = major * 10 + (unsigned)(*p - '0');
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			minor = minor * 10 + (unsigned)(*p - '0');
	return major > 5 || (major == 5 && minor >= 14);
}

/* copy_process() lets the host's root past RLIMIT_NPROC; a root of
 * another user namespace (a container's) is bound by it. */
bool limits_host_root(void)
{
	static const char *const identity[] = {"0", "0", "4294967295"}; /* the initial namespace */
	char map[64];
	const char *p = map;
	if (getuid() || read_small(limits_paths.uid_map, map, sizeof(map)) <= 0)
		return false;
	for (unsigned i = 0; i < 3; i++) {
		size_t l = strlen(identity[i]);

		while (*p == ' ')
			p++;
		if (strncmp(p, identity[i], l) || (p[l] != ' ' && p[l] != '\n'))
			return false;
		p += l;
	}
	return true;
}

/* pid 1, with the policy's rlimits: the per-process floor, where the
 * parent placed no cgroup. */
void limits_apply(void)
{
	const struct limit *m = &limits[LIMIT_MEMORY], *t = &limits[LIMIT_TASKS];

	for (unsigned i = 0; i < LIMIT_N; i++) {
		if (join_fd[i] < 0)
			continue;
		if (write(join_fd[i], "0", 1) != 1)
			limits_how.cgroup[i] = 0;
		close(join_fd[i]);
	}
	if (m->value && !limits_how.cgroup[LIMIT_MEMORY])
		privs_rlimit_tighten(RLIMIT_DATA, m->value);
	if (t->value && limits_nproc_here())
		privs_rlimit_tighten(RLIMIT_NPROC, t->value);
}

/* A user namespace cannot raise a hard limit above the host's (that needs
 * CAP_SYS_RESOURCE in the initial namespace), so a limit the host already
 * keeps lower is kept as the host has it: the policy can only tighten. */
void limits_rlimits(const struct aj_variant *v)
{
	for (unsigned i = 0; i < v->n_rlimits; i++) {
		const struct aj_rlimit *r = &v->rlimits[i];
		struct rlimit rl = {.rlim_cur = r->soft, .rlim_max = r->hard};
		struct rlimit cur;

		/* prlimit, not setrlimit: musl's setrlimit synchronises
		 * threads we do not have, and brings their machinery along. */
		if (!syscall(SYS_prlimit64, 0, r->resource, &rl, &cur))
			continue;
		if (errno != EPERM || syscall(SYS_prlimit64, 0, r->resource, NULL, &cur))
			die("set a resource limit", errno, NULL);
		if (rl.rlim_max > cur.rlim_max)
			rl.rlim_max = cur.rlim_max;
		if (rl.rlim_cur > rl.rlim_max)
			rl.rlim_cur = rl.rlim_max;
		if (syscall(SYS_prlimit64, 0, r->resource, &rl, NULL))
			die("set a resource limit", errno, NULL);
	}
}

/* The jail's user.max_user_namespaces, in its own user namespace (the
 * value is per namespace, whichever procfs it is written through). */
static const char max_userns[] = "/proc/sys/user/max_user_namespaces";
static char userns_max[AJ_DEC_MAX + 1];
static size_t userns_len;

static int write_limit(void)
{
	int fd = openat(AT_FDCWD, max_userns, O_WRONLY | O_CLOEXEC);
	int ok = fd >= 0 && write(fd, userns_max, userns_len) == (ssize_t)userns_len;
	int e = errno;

	if (fd >= 0)
		close(fd);
	return ok ? 0 : e;
}

/* The caller, in its new user namespace (ns_enter): where the host's
 * /proc/sys is read-only (a container runtime covers it), the write is
 * left to pid 1, through the jail's own procfs (userns_late). */
void limits_userns(const struct aj_variant *v)
{
	int e;

	userns_len = out_fmt_u(userns_max, v->userns);
	userns_max[userns_len++] = '\n';
	e = write_limit();
	if (!e)
		userns_len = 0;
	else if (e != EROFS && e != EACCES)
		diep("limit the nested user namespaces through", max_userns, e, NULL);
}

/* pid 1, its own /proc mounted: the write left to it, or the jail does
 * not start. */
static void userns_late(void)
{
	int e;

	if (!userns_len || !(e = write_limit())) {
		userns_len = 0;
		return;
	}
	diep("limit the nested user namespaces through", max_userns, e,
	     "the host's /proc/sys is read-only and the policy mounts no writable /proc");
}

/* pid 1's bounds, in one call, the root built: the cgroups' fds that came
 * with the scan (n of them), the nested user namespaces, the policy's
 * rlimits, then the cgroups joined or the rlimits that stand for them. */
void limits_take(const struct aj_variant *v, const int *fds, unsigned n)
{
	limits_joined(fds, n);
	userns_late();
	TRACE_MARK("userns-limit");
	limits_rlimits(v);
	limits_apply();
	TRACE_MARK("rlimits");
}
