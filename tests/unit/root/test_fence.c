/* test_fence.c: the fence (stub/root/fence.c), on a real directory tree:
 * which entries get a rule of their own, which are left out (the targets,
 * the directories on the way to them, symlinks), and why a project gets
 * no fence.  The plan and the scan's results are tables of this file;
 * landlock_rule() records instead of calling the kernel. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "root/root.h"

/* ---- what fence.c reads -------------------------------------------------- */

struct plan_entry plan[AJ_PLAN_MAX];
unsigned plan_n;
static struct scan_result result;
struct scan_result *hits_cur = &result;
struct scan_result *hits_now(void)
{
	return hits_cur;
}

static jmp_buf died;
static char death[512];

noreturn void diep(const char *step, const char *what, int err, const char *hint)
{
	snprintf(death, sizeof(death), "%s %s: %d: %s", step, what ? what : "", err,
	         hint ? hint : "");
	longjmp(died, 1);
}

noreturn void die(const char *step, int err, const char *hint)
{
	diep(step, NULL, err, hint);
}

#define MAX_RULES 128
static struct {
	char path[AJ_PATH_MAX];
	uint64_t access;
	int isdir;
} rules[MAX_RULES];
static unsigned n_rules;

/* The mounts' own rules are test_plan.c's. */
void plan_landlock(int ruleset, const struct plan_entry *skip)
{
	(void)ruleset;
	(void)skip;
}

void landlock_rule(int ruleset, int fd, uint64_t access, int isdir, const char *path)
{
	assert_int_equal(ruleset, 7);
	assert_true(fd >= 0);
	assert_true(n_rules < MAX_RULES);
	snprintf(rules[n_rules].path, AJ_PATH_MAX, "%s", path);
	rules[n_rules].access = access;
	rules[n_rules++].isdir = isdir;
}

/* ---- the fixture ----------------------------------------------------------- */

static char project[64];

static void make(const char *rel, bool dir)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", project, rel);
	if (dir)
		assert_int_equal(mkdir(p, 0755), 0);
	else
		assert_int_equal(close(open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644)), 0);
}

static void hit(uint8_t kind, bool isdir, const char *rel)
{
	struct scan_hit *h = &hits_cur->hits[hits_cur->n++];

	*h = (struct scan_hit){.kind = kind, .isdir = isdir, .off = hits_cur->used};
	if (!kind)
		h->why = SCAN_BY_GUARD;
	memcpy(hits_cur->arena + hits_cur->used, rel, strlen(rel) + 1);
	hits_cur->used += (uint32_t)strlen(rel) + 1;
}

static const struct aj_mount usr = {.op = AJ_MOUNT_RO, .landlock = AJ_LL_RIGHTS_READ};
static const struct aj_mount proj_ro = {.op = AJ_MOUNT_RO, .landlock = AJ_LL_RIGHTS_READ};
static const struct aj_mount proj_rw = {.op = AJ_MOUNT_RW, .landlock = AJ_LL_RIGHTS_ALL};
static const struct aj_mount scratch = {.op = AJ_MOUNT_SCRATCH, .landlock = AJ_LL_RIGHTS_ALL};
static const struct aj_landlock_rule root_rule = {.path = {"/", AJ_VAR_NONE, ""},
                                                  .access = AJ_LL_READ_DIR};
static struct aj_variant variant = {
    .landlock = AJ_LANDLOCK_ON, .landlock_rules = &root_rule, .n_landlock_rules = 1};

static void entry(const struct aj_mount *m, const char *path)
{
	plan[plan_n++] = (struct plan_entry){.m = m, .path = path, .fd = -1};
}

/* .env (masked), x, y, secrets/ (denied), a/c, a/b/d, a/b/key (denied),
 * a/b/.env guarded and absent, l -> x; the project read-only, below /usr's
 * sibling. */
static int setup(void **state)
{
	char link[96];

	(void)state;
	strcpy(project, "/tmp/aj-fence-XXXXXX");
	assert_non_null(mkdtemp(project));
	make(".env", false);
	make("x", false);
	make("y", false);
	make("secrets", true);
	make("secrets/k", false);
	make("a", true);
	make("a/c", false);
	make("a/b", true);
	make("a/b/d", false);
	make("a/b/key", false);
	snprintf(link, sizeof(link), "%s/l", project);
	assert_int_equal(symlink("x", link), 0);
	memset(&result, 0, sizeof(result));
	hit(AJ_PATTERN_DENY, true, "secrets");
	hit(AJ_PATTERN_DENY, false, "a/b/key");
	hit(AJ_PATTERN_MASK, false, ".env");
	hit(0, false, "a/b/.env");
	plan_n = 0;
	entry(&usr, "/usr");
	entry(&proj_ro, project);
	variant.landlock = AJ_LANDLOCK_ON;
	vars_set(AJ_VAR_PROJECT, project);
	n_rules = 0;
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", project);
	return system(cmd);
}

static const char *why_not(void)
{
	const char *why, *where;

	assert_null(fence_plan(&variant, &why, &where));
	return why;
}

/* ---- which entries get rules -------------------------------------------------- */

static int find(const char *rel)
{
	char p[256];

	snprintf(p, sizeof(p), "%s%s%s", project, *rel ? "/" : "", rel);
	for (unsigned i = 0; i < n_rules; i++)
		if (!strcmp(rules[i].path, p))
			return (int)i;
	return -1;
}

static void siblings_get_the_rights(void **state)
{
	const char *why, *where;
	const struct plan_entry *e = fence_plan(&variant, &why, &where);
	int i;

	(void)state;
	assert_ptr_equal(e, &plan[1]);
	assert_null(why);
	/* The project's own rule, then each directory on the way once: the
	 * root (.env x y), a (c), a/b (d); the guard's way is a/b/key's. */
	assert_int_equal(fence_count(e), 6);
	plan[1].fd = open(project, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(plan[1].fd >= 0);
	assert_ptr_equal(fence_apply(7, &variant), &plan[1]);
	assert_int_equal(n_rules, 6);
	/* The project keeps only what is not reading: listing. */
	i = find("");
	assert_true(i >= 0);
	assert_int_equal(rules[i].access, AJ_LL_READ_DIR);
	assert_int_equal(rules[i].isdir, 1);
	static const char *const granted[] = {".env", "x", "y", "a/c", "a/b/d"};
	for (unsigned k = 0; k < 5; k++) {
		i = find(granted[k]);
		assert_true(i >= 0);
		assert_int_equal(rules[i].access, AJ_LL_RIGHTS_READ);
		assert_int_equal(rules[i].isdir, 0);
	}
	close(plan[1].fd);
}

static void targets_and_the_way_left_out(void **state)
{
	(void)state;
	plan[1].fd = open(project, O_PATH | O_DIRECTORY | O_CLOEXEC);
	fence_apply(7, &variant);
	close(plan[1].fd);
	assert_int_equal(find("secrets"), -1);
	assert_int_equal(find("secrets/k"), -1);
	assert_int_equal(find("a"), -1);
	assert_int_equal(find("a/b"), -1);
	assert_int_equal(find("a/b/key"), -1);
	assert_int_equal(find("a/b/.env"), -1);
	assert_int_equal(find("l"), -1); /* what a link leads to has its own */
}

/* A directory granted as a whole gets the directory's rights. */
static void a_directory_sibling_is_a_directory(void **state)
{
	int i;

	(void)state;
	make("dir", true);
	plan[1].fd = open(project, O_PATH | O_DIRECTORY | O_CLOEXEC);
	fence_apply(7, &variant);
	close(plan[1].fd);
	i = find("dir");
	assert_true(i >= 0);
	assert_int_equal(rules[i].isdir, 1);
}

/* A guarded path that is absent is a target of its own: what appears there
 * during the run gets no right. */
static void a_guard_alone_is_fenced(void **state)
{
	const char *why, *where;

	(void)state;
	memset(&result, 0, sizeof(result));
	hit(0, false, "a/.env");
	assert_ptr_equal(fence_plan(&variant, &why, &where), &plan[1]);
	plan[1].fd = open(project, O_PATH | O_DIRECTORY | O_CLOEXEC);
	fence_apply(7, &variant);
	close(plan[1].fd);
	assert_int_equal(find("a"), -1);
	assert_true(find("a/b") >= 0);
	assert_true(find("a/c") >= 0);
	assert_true(find("secrets") >= 0);
}

/* ---- why there is none ---------------------------------------------------------- */

static void nothing_denied(void **state)
{
	(void)state;
	memset(&result, 0, sizeof(result));
	hit(AJ_PATTERN_MASK, false, ".env");
	assert_string_equal(why_not(), "nothing is denied or guarded here");
}

static void landlock_off(void **state)
{
	(void)state;
	variant.landlock = AJ_LANDLOCK_OFF;
	assert_string_equal(why_not(), "Landlock is off");
}

static void project_not_a_mount(void **state)
{
	(void)state;
	plan_n = 1;
	assert_string_equal(why_not(), "the project is not a mount of its own");
}

static void project_writable(void **state)
{
	(void)state;
	plan[1].m = &proj_rw;
	assert_non_null(strstr(why_not(), "the project is writable"));
}

/* A tmpfs above the project (a project in /tmp), or a read-only mount
 * on the way to a target, reaches what the fence would keep. */
static void a_mount_above_reaches_it(void **state)
{
	const char *why, *where;
	static char below[96];

	(void)state;
	entry(&scratch, "/tmp");
	assert_null(fence_plan(&variant, &why, &where));
	assert_string_equal(where, "/tmp");
	plan_n = 2;
	snprintf(below, sizeof(below), "%s/a", project);
	entry(&usr, below);
	assert_null(fence_plan(&variant, &why, &where));
	assert_string_equal(where, below);
	assert_non_null(strstr(why, "reaches it"));
}

static void a_variant_rule_that_reads(void **state)
{
	const char *why, *where;
	static const struct aj_landlock_rule reads = {.path = {"/", AJ_VAR_NONE, ""},
	                                              .access = AJ_LL_RIGHTS_READ};

	(void)state;
	variant.landlock_rules = &reads;
	assert_null(fence_plan(&variant, &why, &where));
	variant.landlock_rules = &root_rule;
	assert_string_equal(where, "/");
}

static void too_many_entries(void **state)
{
	char name[16];

	(void)state;
	for (int i = 0; i < 64; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		make(name, false);
	}
	assert_non_null(strstr(why_not(), "too many entries on the way"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(siblings_get_the_rights, setup, teardown),
	    cmocka_unit_test_setup_teardown(targets_and_the_way_left_out, setup, teardown),
	    cmocka_unit_test_setup_teardown(a_directory_sibling_is_a_directory, setup, teardown),
	    cmocka_unit_test_setup_teardown(a_guard_alone_is_fenced, setup, teardown),
	    cmocka_unit_test_setup_teardown(nothing_denied, setup, teardown),
	    cmocka_unit_test_setup_teardown(landlock_off, setup, teardown),
	    cmocka_unit_test_setup_teardown(project_not_a_mount, setup, teardown),
	    cmocka_unit_test_setup_teardown(project_writable, setup, teardown),
	    cmocka_unit_test_setup_teardown(a_mount_above_reaches_it, setup, teardown),
	    cmocka_unit_test_setup_teardown(a_variant_rule_that_reads, setup, teardown),
	    cmocka_unit_test_setup_teardown(too_many_entries, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
