/* test_record.c: the fallback's record of the project's secrets
 * (stub/fallback/record.c), each run in a process of its own as a stub's
 * is: a secret the walk found is known in the next run under any name
 * (renamed, moved, linked), and so is everything inside a denied
 * directory; the record lives in the caller's $XDG_RUNTIME_DIR/aijail,
 * never in a directory the jail may write (a project inside the runtime
 * directory sends it to ~/.cache/aijail), and one this stub did not write
 * is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fallback/fallback.h"

/* Stand-ins for what record.c asks of other rooms and files. */
noreturn void die(const char *step, int err, const char *hint)
{
	fprintf(stderr, "die: %s (%d) %s\n", step, err, hint ? hint : "");
	abort();
}
noreturn void diep(const char *step, const char *what, int err, const char *hint)
{
	fprintf(stderr, "diep: %s %s (%d) %s\n", step, what ? what : "", err, hint ? hint : "");
	abort();
}
void rp_t(const char *s)
{
	(void)s;
}
void rp_str(const char *k, const char *s)
{
	(void)k, (void)s;
}
void rp_jstr(const char *k, const char *s)
{
	(void)k, (void)s;
}
void rp_ju(const char *k, unsigned long long v)
{
	(void)k, (void)v;
}
void rp_u(const char *k, unsigned long long v)
{
	(void)k, (void)v;
}
bool run_in_fallback(const struct run *r)
{
	return r != NULL;
}
struct plan_entry *plan_entries(unsigned *n)
{
	*n = 0; /* no mount of the plan is writable */
	return NULL;
}
char private_dir[64];
static struct scan_result result;
struct scan_result *hits_now(void)
{
	return &result;
}
static bool (*recorded_hook)(int dfd, const char *name, uint64_t dev, uint64_t ino);
void scan_record_hook(bool (*recorded)(int dfd, const char *name, uint64_t dev, uint64_t ino))
{
	recorded_hook = recorded;
}

static char top[64], proj[96], xdg[128], home[96];

static void mk(char *buf, size_t n, const char *dir, const char *rel, bool isdir)
{
	int fd;

	snprintf(buf, n, "%s/%s", dir, rel);
	if (isdir) {
		assert_int_equal(mkdir(buf, 0700), 0);
		return;
	}
	fd = open(buf, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);
}

static int setup(void **state)
{
	char p[128];

	(void)state;
	strcpy(top, "/tmp/aj-record.XXXXXX");
	assert_non_null(mkdtemp(top));
	mk(proj, sizeof(proj), top, "proj", true);
	mk(xdg, sizeof(xdg), top, "xdg", true);
	mk(home, sizeof(home), top, "home", true);
	mk(p, sizeof(p), proj, "id_rsa", false);
	mk(p, sizeof(p), proj, "plain", false);
	mk(p, sizeof(p), proj, "keys", true);
	mk(p, sizeof(p), proj, "keys/inner", false);
	setenv("XDG_RUNTIME_DIR", xdg, 1);
	setenv("HOME", home, 1);
	unsetenv("XDG_CACHE_HOME"); /* the caller's own: ~/.cache is the second place */
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	return system(cmd) == 0 ? 0 : -1;
}

static void hit(const char *rel, bool isdir)
{
	struct scan_hit *h = &result.hits[result.n++];
	char p[160];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", proj, rel);
	assert_int_equal(lstat(p, &st), 0);
	*h = (struct scan_hit){.kind = AJ_PATTERN_DENY,
	                       .isdir = isdir,
	                       .why = SCAN_BY_NAME,
	                       .off = result.used,
	                       .dev = (uint64_t)st.st_dev,
	                       .ino = (uint64_t)st.st_ino};
	memcpy(result.arena + result.used, rel, strlen(rel) + 1);
	result.used += (uint32_t)strlen(rel) + 1;
}

/* One run: the record loaded (made), the walk's hits, the record saved. */
static int run_once(bool (*check)(void), const char *const *hits, const bool *dirs, unsigned n)
{
	const struct aj_variant v = {0};
	const struct run r = {.v = &v, .project = proj};
	int st;
	pid_t c = fork();

	if (c == 0) {
		if (chdir(proj))
			_exit(20);
		record_load(&r, true);
		if (!recorded_hook || record_why())
			_exit(21);
		if (check && !check())
			_exit(22);
		for (unsigned i = 0; i < n; i++)
			hit(hits[i], dirs[i]);
		record_save();
		_exit(0);
	}
	assert_int_equal(waitpid(c, &st, 0), c);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static bool known(const char *rel)
{
	char p[160];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", proj, rel);
	return !lstat(p, &st) &&
	       recorded_hook(AT_FDCWD, p, (uint64_t)st.st_dev, (uint64_t)st.st_ino);
}

static bool second_run(void)
{
	/* The first run's secrets, renamed, moved out of the denied
	 * directory and linked, are known; a file never found is not. */
	return known("renamed") && known("moved") && known("keys") && known("link") &&
	       !known("plain");
}

static void across_runs(void **state)
{
	static const char *const hits[] = {"id_rsa", "keys"};
	static const bool dirs[] = {false, true};
	char a[160], b[160], f[160];
	struct stat st;

	(void)state;
	assert_int_equal(run_once(NULL, hits, dirs, 2), 0);
	/* Where it went: the caller's runtime directory, made 0700. */
	snprintf(a, sizeof(a), "%s/aijail", xdg);
	assert_int_equal(lstat(a, &st), 0);
	assert_true(S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
	/* What a jailed run does between the two. */
	snprintf(a, sizeof(a), "%s/id_rsa", proj);
	snprintf(b, sizeof(b), "%s/renamed", proj);
	assert_int_equal(rename(a, b), 0);
	snprintf(a, sizeof(a), "%s/keys/inner", proj);
	snprintf(f, sizeof(f), "%s/moved", proj);
	assert_int_equal(rename(a, f), 0);
	snprintf(a, sizeof(a), "%s/link", proj);
	assert_int_equal(link(b, a), 0);
	assert_int_equal(run_once(second_run, NULL, NULL, 0), 0);
}

/* Files in dir, but . and .. (-1: no such directory). */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* A runtime directory inside the project: the jail could write a record
 * there, so none is kept there; it goes to ~/.cache/aijail. */
static void never_where_the_jail_writes(void **state)
{
	static const char *const hits[] = {"id_rsa"};
	static const bool dirs[] = {false};
	char p[160];

	(void)state;
	snprintf(xdg, sizeof(xdg), "%s/run", proj);
	assert_int_equal(mkdir(xdg, 0700), 0);
	setenv("XDG_RUNTIME_DIR", xdg, 1);
	assert_int_equal(run_once(NULL, hits, dirs, 1), 0);
	snprintf(p, sizeof(p), "%s/aijail", xdg);
	assert_true(entries(p) <= 0);
	snprintf(p, sizeof(p), "%s/.cache/aijail", home);
	assert_int_equal(entries(p), 1);
}

/* A record file this stub did not write (no magic): refused, not read
 * as empty, which would forget every secret. */
static void foreign_refused(void **state)
{
	static const char *const hits[] = {"id_rsa"};
	static const bool dirs[] = {false};
	char p[160], name[300];
	int fd;

	(void)state;
	assert_int_equal(run_once(NULL, hits, dirs, 1), 0);
	snprintf(p, sizeof(p), "%s/aijail", xdg);
	/* The one file there is the record: overwrite its head. */
	{
		DIR *d = opendir(p);
		struct dirent *e;

		assert_non_null(d);
		name[0] = '\0';
		while ((e = readdir(d)))
			if (e->d_name[0] != '.')
				snprintf(name, sizeof(name), "%s/%.64s", p, e->d_name);
		closedir(d);
		assert_true(name[0]);
	}
	fd = open(name, O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "notours!", 8), 8);
	close(fd);
	assert_int_equal(run_once(NULL, NULL, NULL, 0), 128 + SIGABRT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(across_runs, setup, teardown),
	    cmocka_unit_test_setup_teardown(never_where_the_jail_writes, setup, teardown),
	    cmocka_unit_test_setup_teardown(foreign_refused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
