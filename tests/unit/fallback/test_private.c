/* test_private.c: the fallback's private directory (stub/fallback/private.c):
 * explain's name is the form alone and makes nothing; a run's is
 * /tmp/aijail. and 16 hex digits, mode 0700, with home/ and tmp/; its
 * removal takes what the jail left, a directory it made unreadable too,
 * and never follows a link it planted there; a $HOME that is no
 * directory gets the private home, with why. */
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
#include <sys/wait.h>
#include <unistd.h>

#include "fallback/fallback.h"

/* Stand-ins for base/die.c: a refusal here is a failed test. */
void (*die_cleanup)(void);
noreturn void die(const char *step, int err, const char *hint)
{
	fprintf(stderr, "die: %s (%d) %s\n", step, err, hint ? hint : "");
	abort();
}
noreturn void diep(const char *step, const char *what, int err, const char *hint)
{
	fprintf(stderr, "diep: %s %s (%d) %s\n", step, what, err, hint ? hint : "");
	abort();
}

static bool is_dir(const char *p, mode_t mode)
{
	struct stat st;

	return !lstat(p, &st) && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == mode &&
	       st.st_uid == getuid();
}

/* In a child: private_dir is made once a process. */
static void name_only(void **state)
{
	int st;
	pid_t c;

	(void)state;
	c = fork();
	if (c == 0) {
		private_make(false);
		_exit(strcmp(private_dir, "/tmp/aijail.XXXXXXXXXXXXXXXX") ||
		              strcmp(private_home, "/tmp/aijail.XXXXXXXXXXXXXXXX/home") ||
		              strcmp(private_tmp, "/tmp/aijail.XXXXXXXXXXXXXXXX/tmp") ||
		              !access(private_dir, F_OK) || die_cleanup
		          ? 1
		          : 0);
	}
	assert_int_equal(waitpid(c, &st, 0), c);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void made_and_removed(void **state)
{
	char outside[] = "/tmp/aj-private-out.XXXXXX", p[256], keep[256];
	int fd;

	(void)state;
	assert_non_null(mkdtemp(outside));
	snprintf(keep, sizeof(keep), "%s/keep", outside);
	fd = open(keep, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);

	private_make(true);
	assert_int_equal(strlen(private_dir), strlen("/tmp/aijail.") + 16);
	assert_memory_equal(private_dir, "/tmp/aijail.", 12);
	assert_int_equal(strspn(private_dir + 12, "0123456789abcdef"), 16);
	assert_true(is_dir(private_dir, 0700));
	assert_true(is_dir(private_home, 0700));
	assert_true(is_dir(private_tmp, 0700));
	assert_ptr_equal(die_cleanup, private_release);

	/* What a jailed run leaves: files, a link out, a directory of its own
	 * made unreadable with a file in it (which only a caller that is not
	 * root, as the jails' users are, cannot read without the chmod). */
	snprintf(p, sizeof(p), "%s/out", private_home);
	assert_int_equal(symlink(outside, p), 0);
	snprintf(p, sizeof(p), "%s/deep", private_tmp);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/deep/f", private_tmp);
	fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);
	snprintf(p, sizeof(p), "%s/deep", private_tmp);
	assert_int_equal(chmod(p, 0), 0);

	die_cleanup();
	assert_int_equal(access(private_dir, F_OK), -1);
	assert_int_equal(errno, ENOENT);
	/* The link's target is not the jail's: untouched. */
	assert_int_equal(access(keep, F_OK), 0);
	die_cleanup(); /* twice: nothing left to do, nothing done */
	assert_int_equal(unlink(keep), 0);
	assert_int_equal(rmdir(outside), 0);
}

/* $HOME a directory: kept; a file: the private home, and why. */
static void home(void **state)
{
	char f[] = "/tmp/aj-private-home.XXXXXX";
	int fd;

	(void)state;
	vars_set(AJ_VAR_HOME, "/");
	assert_null(private_home_path(false));
	assert_string_equal(vars_value(AJ_VAR_HOME), "/");
	fd = mkstemp(f);
	assert_true(fd >= 0);
	close(fd);
	vars_set(AJ_VAR_HOME, f);
	assert_string_equal(private_home_path(false), "it is not a directory here");
	assert_string_equal(vars_value(AJ_VAR_HOME), private_home);
	unlink(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(name_only),
	    cmocka_unit_test(made_and_removed),
	    cmocka_unit_test(home),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
