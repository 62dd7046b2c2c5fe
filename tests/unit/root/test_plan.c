/* test_plan.c: the mount plan's resolution (stub/root/plan.c,
 * plan_resolve and plan_scratch_dir), with stub/variant/vars.c for the variables
 * and stub/variant/resolve.c for resolve_within.  Everything that would touch the
 * kernel is a fake below; die() returns here through a longjmp. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "root/root.h"

/* ---- fakes ---------------------------------------------------------------- */

static jmp_buf died;
static char death[512];
static int abi = 6;

noreturn void diep(const char *step, const char *what, int err, const char *hint)
{
	snprintf(death, sizeof(death), "%s%s%s: %d: %s", step, what ? " " : "", what ? what : "",
	         err, hint ? hint : "");
	longjmp(died, 1);
}

noreturn void die(const char *step, int err, const char *hint)
{
	diep(step, NULL, err, hint);
}

int landlock_abi(void)
{
	return abi;
}

const char *nscause_mount_hint(int err, bool proc)
{
	(void)err, (void)proc;
	return NULL;
}

void fs_mkdir_p(const char *path)
{
	(void)path;
}

void fs_mkfile_p(const char *path)
{
	(void)path;
}

void fs_link(const char *path, const char *target)
{
	(void)path, (void)target;
}

void dev_build(const char *path, bool as_dir)
{
	(void)path, (void)as_dir;
}

unsigned dev_match(const char *prefix, const char *path, bool bind)
{
	(void)prefix, (void)path, (void)bind;
	return 0;
}

/* The rules plan_landlock() adds, recorded. */
static struct {
	uint64_t access;
	int isdir;
} rules[8];
static unsigned n_rules;

void landlock_rule(int ruleset, int fd, uint64_t access, int isdir, const char *path)
{
	(void)ruleset, (void)fd, (void)path;
	if (n_rules < 8)
		rules[n_rules].access = access, rules[n_rules++].isdir = isdir;
}

/* landlock.c's, on a kernel with ABI 9: resolve_unix on a socket. */
#define RESOLVE_UNIX (1ULL << 16)
uint64_t landlock_socket_right(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISSOCK(st.st_mode) ? RESOLVE_UNIX : 0;
}

void reflog_guard(int fd, const char *path)
{
	(void)fd, (void)path;
}

bool reflog_named(void)
{
	return false; /* no --jail-log: plan_log_check() has nothing to check */
}

/* ---- tables ----------------------------------------------------------------- */

/* An entry as emit.c writes it: a fixed path's whole rank, a variable's 1
 * when the path starts with it. */
#define FIXED(o, p, r)                                                                             \
	{                                                                                          \
		.op = (o), .rank = (r), .path = {(p), AJ_VAR_NONE, "" }                            \
	}
#define VAR(o, fl, v, t)                                                                           \
	{                                                                                          \
		.op = (o), .flags = (fl), .rank = 1, .path = { "", (v), (t) }                      \
	}
#define MID(o, h, v, t)                                                                            \
	{                                                                                          \
		.op = (o), .rank = 0, .path = {(h), (v), (t) }                                     \
	}

static struct aj_variant variant(const struct aj_mount_span *spans, unsigned n)
{
	return (struct aj_variant){
	    .mount_spans = spans, .n_mount_spans = (uint8_t)n, .landlock = AJ_LANDLOCK_ON};
}

static int setup(void **state)
{
	(void)state;
	plan_n = 0;
	abi = 6;
	vars_set(AJ_VAR_HOME, "/home/u");
	vars_set(AJ_VAR_PROJECT, "/home/u/src/p");
	vars_set(AJ_VAR_UID, "1000");
	vars_set(AJ_VAR_XAUTHORITY, NULL);
	return 0;
}

static const char *at(unsigned i)
{
	return plan[i].path ? plan[i].path : "(unresolved)";
}

/* ---- resolution --------------------------------------------------------------- */

static void variables_are_substituted(void **state)
{
	static const struct aj_mount m[] = {
	    VAR(AJ_MOUNT_SCRATCH, 0, AJ_VAR_HOME, ""),
	    VAR(AJ_MOUNT_RW, AJ_MOUNT_CREATE, AJ_VAR_HOME, "/.cache/pip"),
	    MID(AJ_MOUNT_RO, "/run/user/", AJ_VAR_UID, "/bus"),
	};
	static const struct aj_mount_span s[] = {{m, 3}};
	struct aj_variant v = variant(s, 1);

	(void)state;
	plan_resolve(&v);
	assert_int_equal(plan_n, 3);
	assert_string_equal(at(0), "/home/u");
	assert_string_equal(at(1), "/run/user/1000/bus");
	assert_string_equal(at(2), "/home/u/.cache/pip");
	assert_ptr_equal(plan[2].m, &m[1]);
	assert_int_equal(plan[0].rank, 2 * 2 + 1);
	assert_int_equal(plan[1].rank, 2 * 4);
	assert_int_equal(plan[2].rank, 2 * 4 + 1);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(plan[i].fd, -1);
}

/* Parents first, whatever span they come from; between equal ranks the
 * table's order; a fixed path before a variable one of the same depth. */
static void ordered_by_rank_across_spans(void **state)
{
	static const struct aj_mount common[] = {
	    FIXED(AJ_MOUNT_RO, "/usr", 2),
	    FIXED(AJ_MOUNT_SCRATCH, "/tmp", 2),
	    FIXED(AJ_MOUNT_RO, "/run/systemd/resolve", 6),
	    VAR(AJ_MOUNT_SCRATCH, 0, AJ_VAR_HOME, ""),
	    VAR(AJ_MOUNT_RW, 0, AJ_VAR_PROJECT, ""),
	};
	static const struct aj_mount mode[] = {
	    FIXED(AJ_MOUNT_SCRATCH, "/run", 2),
	    FIXED(AJ_MOUNT_SCRATCH, "/var/tmp", 4),
	    FIXED(AJ_MOUNT_RO, "/home/x", 4),
	};
	static const struct aj_mount_span s[] = {{common, 5}, {mode, 3}};
	static const char *const want[] = {"/usr",
	                                   "/tmp",
	                                   "/run",
	                                   "/var/tmp",
	                                   "/home/x",
	                                   "/home/u",
	                                   "/run/systemd/resolve",
	                                   "/home/u/src/p"};
	struct aj_variant v = variant(s, 2);

	(void)state;
	plan_resolve(&v);
	assert_int_equal(plan_n, 8);
	for (unsigned i = 0; i < 8; i++)
		assert_string_equal(at(i), want[i]);
}

/* A project resolved shallower than $HOME's caches comes before them: the
 * order is the resolved one, not the table's. */
static void variables_placed_by_resolved_depth(void **state)
{
	static const struct aj_mount m[] = {
	    VAR(AJ_MOUNT_RW, 0, AJ_VAR_HOME, "/.cache/a/b"),
	    FIXED(AJ_MOUNT_RO, "/opt/x/y", 6),
	    VAR(AJ_MOUNT_RW, 0, AJ_VAR_PROJECT, ""),
	};
	static const struct aj_mount_span s[] = {{m, 3}};
	struct aj_variant v = variant(s, 1);

	(void)state;
	vars_set(AJ_VAR_PROJECT, "/p");
	plan_resolve(&v);
	assert_string_equal(at(0), "/p");
	assert_string_equal(at(1), "/opt/x/y");
	assert_string_equal(at(2), "/home/u/.cache/a/b");
}

/* An optional entry whose variable is unset stays in the plan without a
 * path, after every resolved one (--jail-explain says why); a required
 * one ends the run, naming the variable. */
static void unresolved_optional_goes_last(void **state)
{
	static const struct aj_mount m[] = {
	    VAR(AJ_MOUNT_RO, AJ_MOUNT_OPTIONAL, AJ_VAR_XAUTHORITY, ""),
	    FIXED(AJ_MOUNT_RO, "/usr/share/a/b/c/d", 12),
	};
	static const struct aj_mount_span s[] = {{m, 2}};
	struct aj_variant v = variant(s, 1);

	(void)state;
	plan_resolve(&v);
	assert_int_equal(plan_n, 2);
	assert_string_equal(at(0), "/usr/share/a/b/c/d");
	assert_null(plan[1].path);
	assert_ptr_equal(plan[1].m, &m[0]);
}

static void unresolved_required_dies(void **state)
{
	static const struct aj_mount m[] = {VAR(AJ_MOUNT_RO, 0, AJ_VAR_XAUTHORITY, "")};
	static const struct aj_mount_span s[] = {{m, 1}};
	struct aj_variant v = variant(s, 1);

	(void)state;
	if (!setjmp(died)) {
		plan_resolve(&v);
		fail_msg("an unset variable of a required mount was accepted");
	}
	assert_string_equal(death, "resolve the variable XAUTHORITY: 0: it is not set");
}

/* An --ro or --rw map (extra.c writes rank 0) is ranked by its whole path. */
static void maps_ranked_by_their_path(void **state)
{
	static const struct aj_mount m[] = {
	    {.op = AJ_MOUNT_RO, .flags = AJ_MOUNT_MAP, .path = {"/srv/data/sets", AJ_VAR_NONE, ""}},
	    FIXED(AJ_MOUNT_RO, "/srv/data", 4),
	    FIXED(AJ_MOUNT_RO, "/srv/data/sets/big/one", 10),
	};
	static const struct aj_mount_span s[] = {{m + 1, 2}, {m, 1}};
	struct aj_variant v = variant(s, 2);

	(void)state;
	plan_resolve(&v);
	assert_string_equal(at(0), "/srv/data");
	assert_string_equal(at(1), "/srv/data/sets");
	assert_int_equal(plan[1].rank, 6);
	assert_string_equal(at(2), "/srv/data/sets/big/one");
}

/* The resolved paths share one arena (AJ_PLAN_ARENA): a run whose paths
 * do not fit fails closed. */
static void arena_full_dies(void **state)
{
	static char home[4000];
	static const struct aj_mount m[] = {
	    VAR(AJ_MOUNT_RW, 0, AJ_VAR_HOME, "/a"), VAR(AJ_MOUNT_RW, 0, AJ_VAR_HOME, "/b"),
	    VAR(AJ_MOUNT_RW, 0, AJ_VAR_HOME, "/c"), VAR(AJ_MOUNT_RW, 0, AJ_VAR_HOME, "/d"),
	    VAR(AJ_MOUNT_RW, 0, AJ_VAR_HOME, "/e"),
	};
	static const struct aj_mount_span s[] = {{m, 5}};
	struct aj_variant v = variant(s, 1);

	(void)state;
	memset(home, 'h', sizeof(home) - 1);
	home[0] = '/';
	vars_set(AJ_VAR_HOME, home);
	if (!setjmp(died)) {
		plan_resolve(&v);
		fail_msg("paths over the plan's arena were accepted");
	}
	assert_string_equal(death, "resolve a mount path: 36: ");
}

static void too_many_entries_die(void **state)
{
	static struct aj_mount m[AJ_MAX_MOUNTS];
	static struct aj_mount_span s[3];
	struct aj_variant v;

	(void)state;
	for (unsigned i = 0; i < AJ_MAX_MOUNTS; i++)
		m[i] = (struct aj_mount)FIXED(AJ_MOUNT_RO, "/usr", 2);
	s[0] = s[1] = (struct aj_mount_span){m, AJ_MAX_MOUNTS / 2};
	s[2] = (struct aj_mount_span){m, AJ_MAX_EXTRA + 1};
	v = variant(s, 3);
	if (!setjmp(died)) {
		plan_resolve(&v);
		fail_msg("more entries than the plan holds were accepted");
	}
	assert_non_null(strstr(death, "read the mount table"));
}

/* ---- scratch entries ------------------------------------------------------------- */

/* Directories of the root where Landlock is enforced and the path is on
 * the root (or in a tmpfs of ours); a tmpfs of its own below a bind (a
 * host's tree: nothing is made there), without Landlock, or with the
 * policy's Landlock off. */
static void scratch_on_the_root_only(void **state)
{
	static const struct aj_mount m[] = {
	    FIXED(AJ_MOUNT_RO, "/opt", 2),
	    FIXED(AJ_MOUNT_SCRATCH, "/tmp", 2),
	    {.op = AJ_MOUNT_DEV, .rank = 2, .path = {"/dev", AJ_VAR_NONE, ""}},
	    VAR(AJ_MOUNT_SCRATCH, 0, AJ_VAR_HOME, ""),
	    FIXED(AJ_MOUNT_SCRATCH, "/tmp/x", 4),
	};
	static const struct aj_mount_span s[] = {{m, 5}};
	struct aj_variant v = variant(s, 1);

	(void)state;
	vars_set(AJ_VAR_HOME, "/opt/home/u");
	plan_resolve(&v);
	assert_string_equal(at(1), "/tmp");
	assert_true(plan_scratch_dir(1));
	assert_string_equal(at(2), "/dev");
	assert_true(plan_scratch_dir(2));
	assert_string_equal(at(3), "/tmp/x");
	assert_true(plan_scratch_dir(3));
	assert_string_equal(at(4), "/opt/home/u");
	assert_false(plan_scratch_dir(4));
	/* The bind is missing on this host: $HOME is on the root again. */
	plan[0].missing = 1;
	assert_true(plan_scratch_dir(4));

	plan_n = 0;
	abi = 0;
	plan_resolve(&v);
	assert_false(plan_scratch_dir(1));
	assert_false(plan_scratch_dir(2));

	plan_n = 0;
	abi = 6;
	v.landlock = AJ_LANDLOCK_OFF;
	plan_resolve(&v);
	assert_false(plan_scratch_dir(1));
}

/* A mount a toggle brings is in the plan only while the run has the
 * toggle on (aj_variant.features, as extra.c completes it); its variable
 * is never resolved otherwise. */
static void toggle_mounts_follow_the_run(void **state)
{
	static const struct aj_mount m[] = {
	    FIXED(AJ_MOUNT_RO, "/usr", 2),
	    {.op = AJ_MOUNT_DEVICE,
	     .flags = AJ_MOUNT_OPTIONAL,
	     .toggle = 1 + AJ_TOGGLE_GPU,
	     .rank = 4,
	     .path = {"/dev/nvidiactl", AJ_VAR_NONE, ""}},
	    {.op = AJ_MOUNT_RO,
	     .toggle = 1 + AJ_TOGGLE_DISPLAY,
	     .rank = 1,
	     .path = {"", AJ_VAR_XAUTHORITY, ""}},
	};
	static const struct aj_mount_span s[] = {{m, 3}};
	struct aj_variant v = variant(s, 1);

	(void)state;
	v.features = AJ_FEATURE_GPU;
	plan_resolve(&v);
	assert_int_equal(plan_n, 2);
	assert_string_equal(at(1), "/dev/nvidiactl");

	/* Display on: its required entry, unset here, would stop the jail. */
	plan_n = 0;
	v.features = AJ_FEATURE_DISPLAY;
	if (!setjmp(died)) {
		plan_resolve(&v);
		fail();
	}
	assert_non_null(strstr(death, "XAUTHORITY"));

	plan_n = 0;
	v.features = 0;
	plan_resolve(&v);
	assert_int_equal(plan_n, 1);
	assert_string_equal(at(0), "/usr");
}

/* Landlock's resolve_unix (ABI 9) goes on the socket a file bind names
 * (a toggle's), never on a folder: a socket beneath a folder bind stays
 * unreachable. */
static void socket_bind_gets_resolve_unix(void **state)
{
	static const struct aj_mount m[] = {
	    {.op = AJ_MOUNT_RO, .landlock = AJ_LL_RIGHTS_READ, .path = {"/d", AJ_VAR_NONE, ""}},
	    {.op = AJ_MOUNT_RW,
	     .landlock = AJ_LL_RIGHTS_READ | AJ_LL_WRITE_FILE,
	     .toggle = 1,
	     .path = {"/d/s", AJ_VAR_NONE, ""}},
	    {.op = AJ_MOUNT_RO, .landlock = AJ_LL_RIGHTS_READ, .path = {"/d/f", AJ_VAR_NONE, ""}},
	};
	char dir[] = "/tmp/aj-test-XXXXXX", path[64];
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int s;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(a.sun_path, sizeof(a.sun_path), "%s/s", dir);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	snprintf(path, sizeof(path), "%s/f", dir);
	close(open(path, O_CREAT | O_WRONLY, 0600));

	plan_n = 3;
	for (unsigned i = 0; i < 3; i++)
		plan[i] = (struct plan_entry){.m = &m[i], .path = m[i].path.head, .isdir = i == 0};
	plan[0].fd = open(dir, O_PATH);
	plan[1].fd = open(a.sun_path, O_PATH);
	plan[2].fd = open(path, O_PATH);
	n_rules = 0;
	plan_landlock(7, NULL);
	assert_int_equal(n_rules, 3);
	assert_int_equal(rules[0].access, AJ_LL_RIGHTS_READ);
	assert_int_equal(rules[1].access, AJ_LL_RIGHTS_READ | AJ_LL_WRITE_FILE | RESOLVE_UNIX);
	assert_int_equal(rules[1].isdir, 0);
	assert_int_equal(rules[2].access, AJ_LL_RIGHTS_READ);
	for (unsigned i = 0; i < 3; i++)
		close(plan[i].fd);
	close(s);
	unlink(a.sun_path);
	unlink(path);
	rmdir(dir);
	plan_n = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(toggle_mounts_follow_the_run, setup),
	    cmocka_unit_test_setup(variables_are_substituted, setup),
	    cmocka_unit_test_setup(ordered_by_rank_across_spans, setup),
	    cmocka_unit_test_setup(variables_placed_by_resolved_depth, setup),
	    cmocka_unit_test_setup(unresolved_optional_goes_last, setup),
	    cmocka_unit_test_setup(unresolved_required_dies, setup),
	    cmocka_unit_test_setup(maps_ranked_by_their_path, setup),
	    cmocka_unit_test_setup(arena_full_dies, setup),
	    cmocka_unit_test_setup(too_many_entries_die, setup),
	    cmocka_unit_test_setup(scratch_on_the_root_only, setup),
	    cmocka_unit_test_setup(socket_bind_gets_resolve_unix, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
