/* test_scan.c: the one walk of the project (stub/scan/scan.c, with
 * stub/scan/hits.c's table and stub/scan/match.c's matcher) on temporary trees,
 * with the tables the compiler emits for tests/unit/scan.aj: what is
 * masked and denied by name, a directory covered whole and not entered, a
 * pruned one not entered and counted, the depth bound (denied whole, or
 * the run refused), another hard link of a matched file (also of one
 * known by its listing alone, in a folder covered whole, and such a file
 * a mount hides), a socket, a
 * symlink named like a denied directory, and a directory of ours it
 * cannot read (not when the test runs as root, whom permissions do not
 * stop).  die() returns here through a longjmp. */
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
#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "scan/scan.h"

#include "test-scan.h" /* aijail-compile tests/unit/scan.aj */

static jmp_buf died;
static char death[512];

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

/* ---- the tree ------------------------------------------------------------- */

static char root[64];

static const char *at(const char *rel)
{
	static char p[4][512];
	static unsigned n;
	char *o = p[n++ % 4];

	snprintf(o, 512, "%s/%s", root, rel);
	return o;
}

/* rel, with its directories; a trailing '/' makes a directory. */
static void make(const char *rel)
{
	char p[512], *s;
	size_t l;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	l = strlen(p);
	if (p[l - 1] != '/') {
		int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

		assert_true(fd >= 0);
		assert_int_equal(write(fd, "x", 1), 1);
		close(fd);
	}
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	chmod(p, 0755);
	return remove(p);
}

static int fresh(void **state)
{
	(void)state;
	strcpy(root, "/tmp/aj-scan.XXXXXX");
	assert_non_null(mkdtemp(root));
	return 0;
}

static int drop(void **state)
{
	(void)state;
	chmod(at("mine"), 0755);
	nftw(root, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	return 0;
}

/* ---- the walk ------------------------------------------------------------- */

static const struct aj_variant *variant(void)
{
	return &aj_policy.variants[0];
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The hits, one "PATH KIND WHY" a line, sorted. */
static const char *walk(const struct aj_variant *v)
{
	static const char *const why[] = {"name",   "hardlink", "perm",  "depth", "guard",
	                                  "socket", "long",     "links", "count", "record"};
	static char lines[64][300], out[8192];
	char *sorted[64];
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	assert_true(fd >= 0);
	scan_index_use(NULL, NULL);
	assert_true(scan_walk(fd, v));
	close(fd);
	assert_true(hits_cur->n <= 64);
	for (unsigned i = 0; i < hits_cur->n; i++) {
		const struct scan_hit *h = &hits_cur->hits[i];

		snprintf(lines[i], sizeof(lines[i]), "%s%s %s %s", hits_cur->arena + h->off,
		         h->isdir ? "/" : "",
		         h->kind == AJ_PATTERN_MASK   ? "mask"
		         : h->kind == AJ_PATTERN_DENY ? "deny"
		                                      : "?",
		         h->why < 10 ? why[h->why] : "?");
		sorted[i] = lines[i];
	}
	qsort(sorted, hits_cur->n, sizeof(sorted[0]), cmp);
	out[0] = '\0';
	for (unsigned i = 0; i < hits_cur->n; i++)
		strcat(strcat(out, sorted[i]), "\n");
	return out;
}

/* ---- checks --------------------------------------------------------------- */

/* By name, at any depth and anchored; a denied directory is one hit and
 * not entered; a pruned one is not entered either, and counted. */
static void classification_and_prune(void **state)
{
	(void)state;
	make(".env");
	make("README");
	make("key.pem");
	make("app/config/.env");
	make("app/config/settings.yml");
	make("secrets/.env");
	make("secrets/deep/x.pem");
	make("sub/secrets"); /* a file: "secrets/" is for directories */
	make("top/only.key");
	make("other/top/only.key"); /* anchored: only at the root */
	make("node_modules/pkg/.env");
	make("node_modules/pkg/a.pem");
	assert_string_equal(walk(variant()), ".env mask name\n"
	                                     "app/config/.env mask name\n"
	                                     "key.pem mask name\n"
	                                     "secrets/ deny name\n"
	                                     "top/only.key deny name\n");
	assert_int_equal(hits_cur->n_pruned, 1);
	assert_string_equal(hits_cur->arena + hits_cur->pruned[0], "node_modules");
}

/* Paths of up to 4 components are checked; a directory that would hold
 * deeper ones is denied whole ('scan depth 4 deny'), or stops the run
 * ('fail'). */
static void depth_bound(void **state)
{
	struct aj_scan fail_scan = *variant()->scan;
	struct aj_variant v = *variant();

	(void)state;
	make("a/b/c/x.pem");   /* 4 components: checked */
	make("a/b/c/d/y.txt"); /* d is at the bound */
	make("a/b/c/d/e/.env");
	make("a/b/c.pem/");
	assert_string_equal(walk(variant()), "a/b/c.pem/ mask name\n"
	                                     "a/b/c/d/ deny depth\n"
	                                     "a/b/c/x.pem mask name\n");
	fail_scan.bound = AJ_SCAN_BOUND_FAIL;
	v.scan = &fail_scan;
	death[0] = '\0';
	if (!setjmp(died)) {
		walk(&v);
		fail_msg("a tree deeper than the bound was walked");
	}
	assert_non_null(strstr(death, "scan a/b/c/d: 0: the project is nested deeper"));
}

/* Another name of a matched file is covered too (a second walk, only
 * when a match has other links); a link of an unmatched file is not. */
static void hard_links(void **state)
{
	(void)state;
	make("key.pem");
	make("docs/notes.txt");
	make("plain.txt");
	assert_int_equal(link(at("key.pem"), at("docs/harmless.txt")), 0);
	assert_int_equal(link(at("plain.txt"), at("docs/plain2.txt")), 0);
	assert_string_equal(walk(variant()), "docs/harmless.txt mask hardlink\n"
	                                     "key.pem mask name\n");
}

/* The hit named path (NULL: none). */
static const struct scan_hit *hit(const char *path)
{
	for (unsigned i = 0; i < hits_cur->n; i++)
		if (!strcmp(hits_cur->arena + hits_cur->hits[i].off, path))
			return &hits_cur->hits[i];
	return NULL;
}

/* A folder pid 1 covers whole (SCAN_DIR_MIN denied files, most of its
 * entries): its files are known by their listing, not looked at one by
 * one; their other names are still found, in the folder itself and in
 * folders listed before and after it.  A folder of masks under
 * SCAN_STAND_IN_MAX keeps its look (its stand-ins show each mode). */
static void listed_links(void **state)
{
	char p[64];
	struct stat st;

	(void)state;
	for (int i = 0; i < 40; i++) {
		snprintf(p, sizeof(p), "vault/k%02d.sec", i);
		make(p);
	}
	make("vault/README");
	for (int i = 0; i < 17; i++) {
		snprintf(p, sizeof(p), "certs/c%02d.pem", i);
		make(p);
	}
	assert_int_equal(chmod(at("certs/c03.pem"), 0640), 0);
	make("a/");
	make("z/");
	assert_int_equal(link(at("vault/k01.sec"), at("vault/aa.txt")), 0);
	assert_int_equal(link(at("vault/k02.sec"), at("a/notes.txt")), 0);
	assert_int_equal(link(at("vault/k03.sec"), at("z/notes.txt")), 0);
	assert_int_equal(link(at("certs/c04.pem"), at("z/c.txt")), 0);
	const char *out = walk(variant());
	assert_non_null(strstr(out, "a/notes.txt deny hardlink\n"));
	assert_non_null(strstr(out, "vault/aa.txt deny hardlink\n"));
	assert_non_null(strstr(out, "z/notes.txt deny hardlink\n"));
	assert_non_null(strstr(out, "z/c.txt mask hardlink\n"));
	assert_non_null(strstr(out, "vault/k39.sec deny name\n"));
	assert_int_equal(hits_cur->n, 40 + 17 + 4);
	/* The shortcut was taken: the listing's identity, no mode. */
	assert_non_null(hit("vault/k10.sec"));
	assert_int_equal(hit("vault/k10.sec")->listed, 1);
	assert_int_equal(lstat(at("vault/k10.sec"), &st), 0);
	assert_int_equal(hit("vault/k10.sec")->ino, st.st_ino);
	assert_int_equal(hit("vault/k10.sec")->dev, st.st_dev);
	assert_non_null(hit("certs/c03.pem"));
	assert_int_equal(hit("certs/c03.pem")->listed, 0);
	assert_int_equal(hit("certs/c03.pem")->mode, 0640);
}

/* A file a mount hides, in a folder covered whole: its hit is what the
 * listing says (the inode below the mount, the folder's device), which is
 * what pid 1's listing shows when it covers the folder (mask.c); the
 * mount goes under that cover with the rest.  In a user and mount
 * namespace of the test's own; skipped where none can be made. */
static void listed_mount_point(void **state)
{
	char p[64];
	struct stat below;
	int st, fd;
	pid_t pid;

	(void)state;
	for (int i = 0; i < 20; i++) {
		snprintf(p, sizeof(p), "vault/k%02d.sec", i);
		make(p);
	}
	make("other.txt");
	assert_int_equal(lstat(at("vault/k05.sec"), &below), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		uid_t uid = getuid();
		char map[64];

		if (uid && unshare(CLONE_NEWUSER | CLONE_NEWNS))
			_exit(77);
		if (!uid && unshare(CLONE_NEWNS))
			_exit(77);
		if (uid) {
			snprintf(map, sizeof(map), "%u %u 1", (unsigned)uid, (unsigned)uid);
			fd = open("/proc/self/setgroups", O_WRONLY);
			if (fd >= 0 && (write(fd, "deny", 4) < 0 || close(fd)))
				_exit(77);
			fd = open("/proc/self/uid_map", O_WRONLY);
			if (fd < 0 || write(fd, map, strlen(map)) < 0 || close(fd))
				_exit(77);
		}
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount(at("other.txt"), at("vault/k05.sec"), NULL, MS_BIND, NULL))
			_exit(77);
		walk(variant());
		const struct scan_hit *h = hit("vault/k05.sec");
		_exit(!h                       ? 2
		      : !h->listed             ? 3
		      : h->ino != below.st_ino ? 4
		      : h->dev != below.st_dev ? 5
		                               : 0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77) {
		skip(); /* no namespace of our own here (a container's seccomp, a sysctl) */
		return;
	}
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* A socket, without the host's network, and a symlink named like a
 * denied directory (whatever it points at). */
static void sockets_and_symlinks(void **state)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	(void)state;
	make("run/");
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", at("run/agent.sock"));
	assert_true(s >= 0);
	assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	close(s);
	make("lib/");
	assert_int_equal(symlink("/etc", at("lib/secrets")), 0);
	assert_string_equal(walk(variant()), "lib/secrets deny name\n"
	                                     "run/agent.sock deny socket\n");
}

/* A directory of ours that cannot be read hides what is in it: denied
 * whole.  Root reads it anyway: nothing to see then. */
static void unreadable_dir(void **state)
{
	(void)state;
	make("mine/.env");
	make("mine/x");
	assert_int_equal(chmod(at("mine"), 0), 0);
	if (!geteuid()) {
		assert_string_equal(walk(variant()), "mine/.env mask name\n");
		print_message("(as root: the permission case is checked as a user only)\n");
		return;
	}
	assert_string_equal(walk(variant()), "mine/ deny perm\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(classification_and_prune, fresh, drop),
	    cmocka_unit_test_setup_teardown(depth_bound, fresh, drop),
	    cmocka_unit_test_setup_teardown(hard_links, fresh, drop),
	    cmocka_unit_test_setup_teardown(listed_links, fresh, drop),
	    cmocka_unit_test_setup_teardown(listed_mount_point, fresh, drop),
	    cmocka_unit_test_setup_teardown(sockets_and_symlinks, fresh, drop),
	    cmocka_unit_test_setup_teardown(unreadable_dir, fresh, drop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
