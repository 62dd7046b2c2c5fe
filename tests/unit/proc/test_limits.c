/* test_limits.c: where the jail's memory and task bounds go
 * (stub/proc/limits.c): a cgroup v2 beside the caller's, at the root, under
 * /unified, a v1 hierarchy, or the rlimits, on fake trees in a temporary
 * directory (limits_paths points the kernel's files there).  Only the
 * file system's magic is faked (statfs, by path), as are uname() and
 * sysinfo() for the kernel's version and the memory's size; the rlimits
 * are recorded, not set.  A fake cgroup is made the way the kernel would
 * show it: a directory whose bound's files exist (mkdir makes them in a
 * real one). */
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
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <linux/capability.h>

#include "proc/proc.h"

#define CGROUP_SUPER_MAGIC  0x27e0eb
#define CGROUP2_SUPER_MAGIC 0x63677270

/* ---- fakes ---------------------------------------------------------------- */

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

void (*die_undo)(void);

static int raised = -1;

void privs_caps_raise(int cap)
{
	raised = cap;
}

/* The rlimits pid 1 would take, "RESOURCE=VALUE " each. */
static char tightened[256];

void privs_rlimit_tighten(int resource, uint64_t v)
{
	snprintf(tightened + strlen(tightened), sizeof(tightened) - strlen(tightened), "%s=%llu ",
	         resource == RLIMIT_DATA    ? "DATA"
	         : resource == RLIMIT_NPROC ? "NPROC"
	                                    : "?",
	         (unsigned long long)v);
}

/* The mounts of the fake tree: a path and its file system's magic. */
static struct {
	char path[256];
	unsigned long magic;
} fs[4];

int statfs(const char *path, struct statfs *buf)
{
	memset(buf, 0, sizeof(*buf));
	buf->f_type = 0x01021994; /* tmpfs */
	for (unsigned i = 0; i < 4; i++)
		if (fs[i].path[0] && !strcmp(path, fs[i].path))
			buf->f_type = (__fsword_t)fs[i].magic;
	return 0;
}

static const char *release = "6.1.0-18-amd64";

int uname(struct utsname *u)
{
	memset(u, 0, sizeof(*u));
	strcpy(u->sysname, "Linux");
	snprintf(u->release, sizeof(u->release), "%s", release);
	return 0;
}

static unsigned long ram = 1000;

int sysinfo(struct sysinfo *si)
{
	memset(si, 0, sizeof(*si));
	si->totalram = ram;
	si->mem_unit = 4096;
	return 0;
}

static uid_t uid;

uid_t getuid(void)
{
	return uid;
}

/* ---- the fake tree -------------------------------------------------------- */

static char root[64];
static char path_self[128], path_map[128], path_v2[128], path_unified[128], path_v1[2][128];

static const char *at(const char *rel)
{
	static char p[4][512];
	static unsigned n;
	char *o = p[n++ % 4];

	snprintf(o, 512, "%s%s", root, rel);
	return o;
}

static void mkdirs(const char *rel)
{
	char p[512], *s;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	for (s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
}

static void put(const char *rel, const char *text)
{
	int fd = open(at(rel), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static const char *get(const char *rel)
{
	static char buf[256];
	int fd = open(at(rel), O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

static bool exists(const char *rel)
{
	struct stat st;

	return !lstat(at(rel), &st);
}

/* A cgroup as the kernel would show it once made: its files. */
static void cgroup_dir(const char *rel, bool v2)
{
	mkdirs(rel);
	if (v2) {
		put(strcat(strcpy((char[256]){0}, rel), "/memory.max"), "");
		put(strcat(strcpy((char[256]){0}, rel), "/pids.max"), "");
		put(strcat(strcpy((char[256]){0}, rel), "/cgroup.procs"), "");
	} else {
		put(strcat(strcpy((char[256]){0}, rel), "/memory.limit_in_bytes"), "");
		put(strcat(strcpy((char[256]){0}, rel), "/pids.max"), "");
		put(strcat(strcpy((char[256]){0}, rel), "/tasks"), "");
	}
}

static void mount_as(const char *rel, unsigned long magic)
{
	for (unsigned i = 0; i < 4; i++)
		if (!fs[i].path[0]) {
			snprintf(fs[i].path, sizeof(fs[i].path), "%s%s", root, rel);
			fs[i].magic = magic;
			return;
		}
	fail();
}

/* "/aijail.PID" with the test's pid: the parent's, whose cgroup it is. */
static const char *jail_name(void)
{
	static char n[32];

	snprintf(n, sizeof(n), "/aijail.%d", (int)getpid());
	return n;
}

static const char *in(const char *dir, const char *tail)
{
	static char p[4][256];
	static unsigned n;
	char *o = p[n++ % 4];

	snprintf(o, 256, "%s%s", dir, tail);
	return o;
}

/* DIR/aijail.PID/FILE */
static const char *jf(const char *dir, const char *file)
{
	static char p[4][256];
	static unsigned n;
	char *o = p[n++ % 4];

	snprintf(o, 256, "%s%s%s", dir, jail_name(), file);
	return o;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(p);
}

static int fresh(void **state)
{
	(void)state;
	strcpy(root, "/tmp/aj-limits.XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(path_self, sizeof(path_self), "%s/proc-self-cgroup", root);
	snprintf(path_map, sizeof(path_map), "%s/proc-self-uid_map", root);
	snprintf(path_v2, sizeof(path_v2), "%s/cg", root);
	snprintf(path_unified, sizeof(path_unified), "%s/cg/unified", root);
	snprintf(path_v1[0], sizeof(path_v1[0]), "%s/cg/memory", root);
	snprintf(path_v1[1], sizeof(path_v1[1]), "%s/cg/pids", root);
	limits_paths = (struct limits_paths){.self = path_self,
	                                     .uid_map = path_map,
	                                     .v2 = {path_v2, path_unified},
	                                     .v1 = {path_v1[0], path_v1[1]}};
	mkdirs("/cg");
	memset(fs, 0, sizeof(fs));
	memset(limits, 0, sizeof(limits));
	limits_how = (struct limits_how){0};
	tightened[0] = '\0';
	raised = -1;
	release = "6.1.0-18-amd64";
	die_undo = NULL;
	return 0;
}

static int drop(void **state)
{
	(void)state;
	nftw(root, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	return 0;
}

static void bounds(uint64_t memory, uint32_t processes)
{
	const struct aj_variant v = {.memory = memory, .processes = processes};

	limits_resolve(&v);
}

/* A user's delegated subtree, as systemd gives it: the caller's cgroup
 * has processes, so the jail's goes beside it. */
#define SCOPE "/user.slice/user-1000.slice/user@1000.service/app.slice"

static void delegated_v2_tree(const char *controllers)
{
	mount_as("/cg", CGROUP2_SUPER_MAGIC);
	put("/proc-self-cgroup", "0::" SCOPE "/run-1.scope\n");
	mkdirs("/cg" SCOPE "/run-1.scope");
	put("/cg" SCOPE "/run-1.scope/cgroup.controllers", controllers);
}

/* ---- where ---------------------------------------------------------------- */

/* Both controllers delegated: one cgroup beside the caller's holds both
 * bounds, pid 1 is moved there, and no rlimit stands in for the memory. */
static void v2_beside_the_callers(void **state)
{
	char dir[256];

	(void)state;
	strcpy(dir, at("/cg" SCOPE));
	delegated_v2_tree("cpuset cpu io memory pids\n");
	bounds(1 << 30, 100);
	limits_probe();
	for (unsigned i = 0; i < LIMIT_N; i++) {
		assert_true(limits[i].by_cgroup);
		assert_true(limits[i].v2);
		assert_string_equal(limits[i].cgroup, in(dir, "/aijail.PID"));
	}
	assert_string_equal(limits[LIMIT_MEMORY].file, "memory.max");
	assert_string_equal(limits[LIMIT_TASKS].file, "pids.max");

	cgroup_dir(in("/cg" SCOPE, jail_name()), true);
	limits_place(4242);
	assert_string_equal(limits[0].cgroup, in(dir, jail_name()));
	assert_string_equal(limits[1].cgroup, limits[0].cgroup);
	assert_string_equal(get(jf("/cg" SCOPE, "/memory.max")), "1073741824");
	assert_string_equal(get(jf("/cg" SCOPE, "/pids.max")), "100");
	assert_string_equal(get(jf("/cg" SCOPE, "/cgroup.procs")), "4242");
	assert_int_equal(limits_how.cgroup[0], 1);
	assert_int_equal(limits_how.cgroup[1], 1);
	assert_int_equal(limits_how.join[0] | limits_how.join[1], 0);
	assert_int_equal(limits_join_fds((int[2]){0}), 0);
	assert_int_equal(limits_keep(), CAP_DAC_OVERRIDE);
	assert_ptr_equal(die_undo, limits_release);

	limits_apply();
	assert_string_equal(tightened, "NPROC=100 ");

	/* Once pid 1 is gone the kernel's files go with the tasks; then the
	 * cgroup is removed, with the capability raised for it. */
	unlink(at(jf("/cg" SCOPE, "/memory.max")));
	unlink(at(jf("/cg" SCOPE, "/pids.max")));
	unlink(at(jf("/cg" SCOPE, "/cgroup.procs")));
	limits_release();
	assert_int_equal(raised, CAP_DAC_OVERRIDE);
	assert_false(exists(in("/cg" SCOPE, jail_name())));
}

/* The memory controller is not delegated: the memory falls to
 * RLIMIT_DATA, the tasks still go to the cgroup. */
static void v2_without_memory(void **state)
{
	(void)state;
	delegated_v2_tree("cpu io pids\n");
	bounds(1 << 30, 100);
	limits_probe();
	assert_false(limits[LIMIT_MEMORY].by_cgroup);
	assert_string_equal(limits[LIMIT_MEMORY].why,
	                    "no delegated cgroup v2 with the memory controller, nor a cgroup v1 "
	                    "memory hierarchy");
	assert_true(limits[LIMIT_TASKS].by_cgroup);

	cgroup_dir(in("/cg" SCOPE, jail_name()), true);
	limits_place(4242);
	assert_int_equal(limits_how.cgroup[LIMIT_MEMORY], 0);
	assert_int_equal(limits_how.cgroup[LIMIT_TASKS], 1);
	assert_string_equal(get(jf("/cg" SCOPE, "/memory.max")), "");
	assert_string_equal(get(jf("/cg" SCOPE, "/pids.max")), "100");
	limits_apply();
	assert_string_equal(tightened, "DATA=1073741824 NPROC=100 ");
}

/* A controller word must be whole: "memoryx" is not "memory". */
static void v2_controller_words(void **state)
{
	(void)state;
	delegated_v2_tree("memoryx xpids mem\n");
	bounds(1 << 20, 10);
	limits_probe();
	assert_false(limits[LIMIT_MEMORY].by_cgroup);
	assert_false(limits[LIMIT_TASKS].by_cgroup);
}

/* In the root cgroup: the jail's goes below it, if the root hands the
 * controller to its children (cgroup.subtree_control). */
static void v2_at_the_root(void **state)
{
	(void)state;
	mount_as("/cg", CGROUP2_SUPER_MAGIC);
	put("/proc-self-cgroup", "0::/\n");
	put("/cg/cgroup.controllers", "memory pids\n");
	put("/cg/cgroup.subtree_control", "pids\n");
	bounds(1 << 20, 10);
	limits_probe();
	assert_false(limits[LIMIT_MEMORY].by_cgroup);
	assert_true(limits[LIMIT_TASKS].by_cgroup);
	assert_string_equal(limits[LIMIT_TASKS].cgroup, at("/cg/aijail.PID"));
}

/* A hybrid host: v2 under /unified. */
static void v2_unified(void **state)
{
	(void)state;
	mount_as("/cg/unified", CGROUP2_SUPER_MAGIC);
	put("/proc-self-cgroup", "12:pids:/x\n0::/a/b\n");
	mkdirs("/cg/unified/a/b");
	put("/cg/unified/a/b/cgroup.controllers", "memory pids\n");
	bounds(1 << 20, 10);
	limits_probe();
	assert_true(limits[LIMIT_MEMORY].by_cgroup);
	assert_string_equal(limits[LIMIT_MEMORY].cgroup, at("/cg/unified/a/aijail.PID"));
}

/* No v2 with the controllers, v1 hierarchies: a child of the caller's
 * own cgroup in each, whose "tasks" pid 1 writes itself, through an fd
 * sent to it. */
static void v1_hierarchies(void **state)
{
	int fds[2], fd;

	(void)state;
	mount_as("/cg/memory", CGROUP_SUPER_MAGIC);
	mount_as("/cg/pids", CGROUP_SUPER_MAGIC);
	put("/proc-self-cgroup", "7:cpu,cpuacct:/user/1000\n"
	                         "5:memory:/user/1000\n"
	                         "3:pids:/user/1000/p\n"
	                         "0::/user/1000\n");
	cgroup_dir(in("/cg/memory/user/1000", jail_name()), false);
	cgroup_dir(in("/cg/pids/user/1000/p", jail_name()), false);
	bounds(1 << 20, 10);
	limits_probe();
	assert_true(limits[LIMIT_MEMORY].by_cgroup);
	assert_false(limits[LIMIT_MEMORY].v2);
	assert_string_equal(limits[LIMIT_MEMORY].file, "memory.limit_in_bytes");
	assert_string_equal(limits[LIMIT_MEMORY].cgroup, at("/cg/memory/user/1000/aijail.PID"));
	assert_string_equal(limits[LIMIT_TASKS].cgroup, at("/cg/pids/user/1000/p/aijail.PID"));

	limits_place(4242);
	assert_string_equal(get(jf("/cg/memory/user/1000", "/memory.limit_in_bytes")), "1048576");
	assert_string_equal(get(jf("/cg/pids/user/1000/p", "/pids.max")), "10");
	assert_int_equal(limits_how.join[0], 1);
	assert_int_equal(limits_how.join[1], 1);
	assert_int_equal(limits_join_fds(fds), 2);

	/* pid 1's side: the fds as they arrive, then its own move. */
	limits_joined(fds, 2);
	limits_apply();
	assert_string_equal(get(jf("/cg/memory/user/1000", "/tasks")), "0");
	assert_string_equal(get(jf("/cg/pids/user/1000/p", "/tasks")), "0");
	assert_string_equal(tightened, "NPROC=10 ");

	/* An fd lost on the way: that bound falls to the rlimit. */
	limits_how = (struct limits_how){.cgroup = {1, 1}, .join = {1, 1}};
	tightened[0] = '\0';
	fd = open(at(jf("/cg/pids/user/1000/p", "/tasks")), O_WRONLY);
	limits_joined(&fd, 1);
	assert_int_equal(limits_how.cgroup[LIMIT_TASKS], 0);
	limits_apply();
	assert_int_equal(limits_how.cgroup[LIMIT_MEMORY], 1);
	assert_string_equal(tightened, "NPROC=10 ");
}

/* The cgroup that will not take the bound (here: a directory without the
 * kernel's files) is removed again, and the rlimits hold. */
static void refused_falls_back(void **state)
{
	(void)state;
	delegated_v2_tree("memory pids\n");
	bounds(1 << 20, 10);
	limits_place(4242);
	assert_false(limits[0].by_cgroup);
	assert_string_equal(limits[0].why, "the cgroup refused the bound or pid 1");
	assert_int_equal(limits_how.cgroup[0] | limits_how.cgroup[1], 0);
	assert_false(exists(in("/cg" SCOPE, jail_name())));
	assert_int_equal(limits_keep(), -1);
	assert_null(die_undo);
	limits_apply();
	assert_string_equal(tightened, "DATA=1048576 NPROC=10 ");
}

/* Nowhere at all: no cgroup file is read or made, rlimits only. */
static void nothing_to_use(void **state)
{
	(void)state;
	put("/proc-self-cgroup", "0::/a/b\n");
	bounds(4096, 0);
	limits_place(1);
	assert_false(limits[LIMIT_MEMORY].by_cgroup);
	assert_null(limits[LIMIT_TASKS].why); /* unbounded: not looked for */
	limits_apply();
	assert_string_equal(tightened, "DATA=4096 ");
}

/* The cgroups of stubs that are gone are removed; a live stub's, ours,
 * and anything not named so are left. */
static void tidy_dead_stubs(void **state)
{
	pid_t dead = fork(), alive;
	char d[256], a[256];

	(void)state;
	if (!dead)
		_exit(0);
	waitpid(dead, NULL, 0);
	alive = fork();
	if (!alive) {
		pause();
		_exit(0);
	}
	delegated_v2_tree("memory pids\n");
	snprintf(d, sizeof(d), "/cg" SCOPE "/aijail.%d", (int)dead);
	snprintf(a, sizeof(a), "/cg" SCOPE "/aijail.%d", (int)alive);
	mkdirs(d);
	mkdirs(a);
	mkdirs("/cg" SCOPE "/aijail.12x");
	mkdirs("/cg" SCOPE "/other.1");
	cgroup_dir(in("/cg" SCOPE, jail_name()), true);
	bounds(0, 10);
	limits_place(4242);
	kill(alive, SIGKILL);
	waitpid(alive, NULL, 0);
	assert_int_equal(limits_how.cgroup[LIMIT_TASKS], 1);
	assert_false(exists(d));
	assert_true(exists(a));
	assert_true(exists("/cg" SCOPE "/aijail.12x"));
	assert_true(exists("/cg" SCOPE "/other.1"));
	assert_true(exists(in("/cg" SCOPE, jail_name())));
}

/* ---- which rlimits -------------------------------------------------------- */

/* RLIMIT_NPROC counts per user namespace from 5.14 on only. */
static void nproc_by_kernel(void **state)
{
	static const struct {
		const char *release;
		bool here;
	} k[] = {
	    {"5.13.19", false},       {"5.14.0", true}, {"5.4.0-150", false}, {"4.19.0", false},
	    {"6.1.0-18-amd64", true}, {"10.0", true},   {"5.140", true},      {"5", false}};

	(void)state;
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		release = k[i].release;
		if (limits_nproc_here() != k[i].here)
			fail_msg("%s: %d", k[i].release, !k[i].here);
	}
	release = "5.10.0";
	bounds(0, 10);
	limits_apply();
	assert_string_equal(tightened, "");
}

/* A percentage of the memory: of what sysinfo says, capped at 100, and
 * never 0 (which would mean unbounded). */
static void percent_of_memory(void **state)
{
	(void)state;
	ram = 1000;
	bounds(AJ_MEMORY_PERCENT | 50, 0);
	assert_int_equal(limits[LIMIT_MEMORY].total, 4096000);
	assert_int_equal(limits[LIMIT_MEMORY].percent, 50);
	assert_int_equal(limits[LIMIT_MEMORY].value, 2048000);
	bounds(AJ_MEMORY_PERCENT | 250, 0);
	assert_int_equal(limits[LIMIT_MEMORY].percent, 100);
	assert_int_equal(limits[LIMIT_MEMORY].value, 4096000);
	bounds(AJ_MEMORY_PERCENT | 0, 0);
	assert_int_equal(limits[LIMIT_MEMORY].value, 1);
	bounds(12345, 7);
	assert_int_equal(limits[LIMIT_MEMORY].value, 12345);
	assert_int_equal(limits[LIMIT_MEMORY].percent, 0);
	assert_int_equal(limits[LIMIT_TASKS].value, 7);
}

/* copy_process() exempts only the host's root from RLIMIT_NPROC: uid 0
 * with the initial namespace's identity map. */
static void host_root(void **state)
{
	(void)state;
	uid = 0;
	put("/proc-self-uid_map", "         0          0 4294967295\n");
	assert_true(limits_host_root());
	put("/proc-self-uid_map", "         0     100000      65536\n");
	assert_false(limits_host_root());
	put("/proc-self-uid_map", "         0          0 4294967294\n");
	assert_false(limits_host_root());
	uid = 1000;
	put("/proc-self-uid_map", "         0          0 4294967295\n");
	assert_false(limits_host_root());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(v2_beside_the_callers, fresh, drop),
	    cmocka_unit_test_setup_teardown(v2_without_memory, fresh, drop),
	    cmocka_unit_test_setup_teardown(v2_controller_words, fresh, drop),
	    cmocka_unit_test_setup_teardown(v2_at_the_root, fresh, drop),
	    cmocka_unit_test_setup_teardown(v2_unified, fresh, drop),
	    cmocka_unit_test_setup_teardown(v1_hierarchies, fresh, drop),
	    cmocka_unit_test_setup_teardown(refused_falls_back, fresh, drop),
	    cmocka_unit_test_setup_teardown(nothing_to_use, fresh, drop),
	    cmocka_unit_test_setup_teardown(tidy_dead_stubs, fresh, drop),
	    cmocka_unit_test_setup_teardown(nproc_by_kernel, fresh, drop),
	    cmocka_unit_test_setup_teardown(percent_of_memory, fresh, drop),
	    cmocka_unit_test_setup_teardown(host_root, fresh, drop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
