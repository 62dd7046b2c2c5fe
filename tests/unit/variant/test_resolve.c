/* test_resolve.c: the one rule for every mount source (stub/variant/resolve.c),
 * in a scratch tree of our own: "at or below" asked of names and of the
 * objects (a link does not make one place two), a source in the project
 * opened beneath it with no symlink at all, a link elsewhere followed only
 * when asked and when the jail cannot have made it, and what the host has
 * at a place (a link with its target, a directory, nothing).  The cases
 * hold for any caller, root or not: the ones that would differ by uid
 * (a root-owned link in a root-only directory) are not asked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "variant/variant.h"

static char top[64];
static char proj[64], out[64], cwd[4096];

static void path_of(char *buf, size_t n, const char *dir, const char *rel)
{
	assert_true((size_t)snprintf(buf, n, "%s/%s", dir, rel) < n);
}

static void mkdir_in(const char *dir, const char *rel, mode_t mode)
{
	char p[128];

	path_of(p, sizeof(p), dir, rel);
	assert_int_equal(mkdir(p, mode), 0);
	assert_int_equal(chmod(p, mode), 0); /* past the umask */
}

static void link_in(const char *dir, const char *rel, const char *target)
{
	char p[128];

	path_of(p, sizeof(p), dir, rel);
	assert_int_equal(symlink(target, p), 0);
}

static void file_in(const char *dir, const char *rel)
{
	char p[128];
	int fd;

	path_of(p, sizeof(p), dir, rel);
	fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);
}

/* top/proj: the project (the working directory, as for pid 1), with
 * in/file, a link to outside and one to inside; top/out: elsewhere, with
 * real/file, a link to real and a world-writable dir holding a link. */
static int setup(void **state)
{
	char p[128];

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	strcpy(top, "/tmp/aj-resolve.XXXXXX");
	assert_non_null(mkdtemp(top));
	snprintf(proj, sizeof(proj), "%s/proj", top);
	snprintf(out, sizeof(out), "%s/out", top);
	mkdir_in(top, "proj", 0700);
	mkdir_in(top, "out", 0700);
	mkdir_in(proj, "in", 0700);
	file_in(proj, "in/file");
	path_of(p, sizeof(p), out, "real");
	link_in(proj, "away", p);
	link_in(proj, "here", "in");
	mkdir_in(out, "real", 0700);
	file_in(out, "real/file");
	link_in(out, "alias", "real");
	mkdir_in(out, "open", 0777);
	link_in(out, "open/l", p);
	vars_set(AJ_VAR_PROJECT, proj);
	vars_set(AJ_VAR_HOME, "/nonexistent-home");
	assert_int_equal(chdir(proj), 0);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	assert_int_equal(chdir(cwd), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	return system(cmd) == 0 ? 0 : -1;
}

static void within_by_name(void **state)
{
	(void)state;
	assert_true(resolve_within("/a/b", "/a"));
	assert_true(resolve_within("/a", "/a"));
	assert_true(resolve_within("/anything", "/"));
	assert_false(resolve_within("/ab", "/a")); /* a prefix, not a parent */
	assert_false(resolve_within("/a", "/a/b"));
}

/* The chain is of the objects: top/out/alias (a link to real) has real's
 * chain, which holds out and top, and not proj. */
static void within_by_identity(void **state)
{
	struct ident a[AJ_IDENT_DEPTH], r[AJ_IDENT_DEPTH];
	char p[128];
	struct stat st;
	int na, nr;

	(void)state;
	path_of(p, sizeof(p), out, "alias");
	na = resolve_ident_chain_at(p, a, AJ_IDENT_DEPTH);
	path_of(p, sizeof(p), out, "real");
	nr = resolve_ident_chain_at(p, r, AJ_IDENT_DEPTH);
	assert_true(na > 3);
	assert_int_equal(na, nr);
	assert_memory_equal(a, r, (size_t)na * sizeof(a[0]));
	assert_int_equal(stat(out, &st), 0);
	assert_true(resolve_ident_in(a, (unsigned)na, &st));
	assert_int_equal(stat(top, &st), 0);
	assert_true(resolve_ident_in(a, (unsigned)na, &st));
	assert_int_equal(stat("/", &st), 0);
	assert_true(resolve_ident_in(a, (unsigned)na, &st));
	assert_int_equal(stat(proj, &st), 0);
	assert_false(resolve_ident_in(a, (unsigned)na, &st));
	/* Too deep for the room given: refused, not cut short. */
	assert_int_equal(resolve_ident_chain_at(p, r, 2), -1);
}

static void same_object(int fd, const char *path)
{
	struct stat a, b;

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &a), 0);
	assert_int_equal(stat(path, &b), 0);
	assert_true(a.st_dev == b.st_dev && a.st_ino == b.st_ino);
	close(fd);
}

static void project_source_beneath(void **state)
{
	const char *why;
	char p[128];

	(void)state;
	path_of(p, sizeof(p), proj, "in/file");
	same_object(resolve_source(p, true, &why), p);
	assert_null(why);
	same_object(resolve_source(proj, true, &why), proj);
	/* A link in the project, to outside or inside, whatever follow says:
	 * a jailed run may have planted either. */
	path_of(p, sizeof(p), proj, "away");
	assert_int_equal(resolve_source(p, true, &why), -1);
	assert_string_equal(why, "a symlink is on the way, inside the project");
	path_of(p, sizeof(p), proj, "here/file");
	assert_int_equal(resolve_source(p, true, &why), -1);
	assert_string_equal(why, "a symlink is on the way, inside the project");
	/* Out of the project by "..", though the name starts with it. */
	path_of(p, sizeof(p), proj, "../out/real");
	assert_int_equal(resolve_source(p, true, &why), -1);
	assert_string_equal(why, "it leads out of the project");
}

static void elsewhere(void **state)
{
	const char *why;
	char p[128], q[128];

	(void)state;
	path_of(p, sizeof(p), out, "real/file");
	same_object(resolve_source(p, false, &why), p);
	assert_null(why);
	/* A link, and the caller asked not to follow any (a map). */
	path_of(p, sizeof(p), out, "alias/file");
	assert_int_equal(resolve_source(p, false, &why), -1);
	assert_string_equal(why, "a symlink is on the way; map the place it leads to");
	/* The source itself a link in a directory anyone may write: whoever
	 * made it, the jail could have, so it is not followed. */
	path_of(q, sizeof(q), out, "open/l");
	assert_int_equal(resolve_source(q, true, &why), -1);
	/* Nothing there: the kernel's errno, no reason of ours. */
	path_of(p, sizeof(p), out, "missing");
	assert_int_equal(resolve_source(p, true, &why), -1);
	assert_int_equal(errno, ENOENT);
	assert_null(why);
}

static void host_layout(void **state)
{
	char p[128], target[128], want[128];

	(void)state;
	path_of(p, sizeof(p), out, "alias");
	assert_int_equal(resolve_host_layout(p, target, sizeof(target)), S_IFLNK);
	assert_string_equal(target, "real");
	path_of(p, sizeof(p), out, "real");
	assert_int_equal(resolve_host_layout(p, target, sizeof(target)), S_IFDIR);
	path_of(p, sizeof(p), out, "real/file");
	assert_int_equal(resolve_host_layout(p, target, sizeof(target)), S_IFREG);
	path_of(p, sizeof(p), out, "missing");
	assert_int_equal(resolve_host_layout(p, target, sizeof(target)), 0);
	/* A target longer than the room: nothing, not a cut target. */
	path_of(p, sizeof(p), out, "open/l");
	path_of(want, sizeof(want), out, "real");
	assert_int_equal(resolve_host_layout(p, target, 8), 0);
	assert_int_equal(resolve_host_layout(p, target, sizeof(target)), S_IFLNK);
	assert_string_equal(target, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(within_by_name),
	    cmocka_unit_test_setup_teardown(within_by_identity, setup, teardown),
	    cmocka_unit_test_setup_teardown(project_source_beneath, setup, teardown),
	    cmocka_unit_test_setup_teardown(elsewhere, setup, teardown),
	    cmocka_unit_test_setup_teardown(host_layout, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
