/* test_mask.c: the covers (stub/root/mask.c, and maskdir.c for a
 * directory full of hits), from the scan's answer.
 *
 * The mounting cases run in a child of their own, in a user and mount
 * namespace of its own, chrooted into a tmpfs it mounted there: nothing
 * is mounted on the host.  The child builds a project, records the
 * "scan" of it (as the walk would: device, inode, mode), lets the test
 * change it when the case is a race, calls mask_apply, and writes what
 * the project then shows to a pipe, one line per name; the parent
 * compares.  A refusal (die/diep) is a line too, and the child's exit
 * status 125.  Where the kernel or the user forbids the namespaces, the
 * case is skipped, saying why.
 *
 * The decisions themselves (which directory gets one cover for all its
 * hits, stand-ins or absent, whether names that appear are covered, the
 * warning for what the walk could not check) are asked directly. */
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
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "root/root.h"

static const struct aj_policy fake_policy = {.progname = "jail"};
const struct aj_policy *const aj_the_policy = &fake_policy;

struct plan_entry plan[AJ_PLAN_MAX];
unsigned plan_n;
static struct scan_result result;
struct scan_result *hits_cur = &result;
struct scan_result *hits_now(void)
{
	return hits_cur;
}

/* The report pipe of a child (-1 in the parent). */
static int report_fd = -1;

static void report(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (report_fd >= 0 && n > 0)
		(void)!write(report_fd, line, (size_t)n);
}

/* A refusal, as the stub's would end the launch: one line, exit 125. */
noreturn void diep(const char *step, const char *what, int err, const char *hint)
{
	report("died: %s %s (%d)%s\n", step, what ? what : "", err,
	       hint && strstr(hint, "changed") ? " changed" : "");
	if (report_fd < 0)
		fail_msg("die in the test process: %s", step);
	_exit(125);
}

noreturn void die(const char *step, int err, const char *hint)
{
	diep(step, NULL, err, hint);
}

/* The project is the child's /proj, opened as the plan would hand it. */
int plan_open_inside(const char *path, unsigned before)
{
	(void)before;
	return open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

int sockets_next(char *what, size_t size)
{
	(void)what;
	(void)size;
	return -1;
}

/* A hit as the walk records it: what is at rel under /proj now. */
static void hit(const char *rel, uint8_t kind, uint32_t dir_entries)
{
	struct scan_hit *h = &result.hits[result.n++];
	char path[AJ_PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "/proj/%s", rel);
	if (lstat(path, &st)) {
		report("no %s\n", path);
		return;
	}
	h->kind = kind;
	h->isdir = S_ISDIR(st.st_mode);
	h->islink = S_ISLNK(st.st_mode);
	h->dev = st.st_dev;
	h->ino = st.st_ino;
	h->mode = st.st_mode & 07777;
	h->dir_entries = dir_entries;
	h->off = result.used;
	memcpy(result.arena + result.used, rel, strlen(rel) + 1);
	result.used += (uint32_t)strlen(rel) + 1;
}

static void put(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		report("cannot write %s\n", path);
	fchmod(fd, mode);
	close(fd);
}

/* What a name shows now: its type and mode, and a file's text, a
 * directory's entries or a link's target. */
static void show(const char *rel)
{
	char path[AJ_PATH_MAX], text[64] = "";
	struct stat st;

	snprintf(path, sizeof(path), "/proj/%s", rel);
	if (lstat(path, &st)) {
		report("%s: absent\n", rel);
		return;
	}
	if (S_ISLNK(st.st_mode)) {
		ssize_t n = readlink(path, text, sizeof(text) - 1);

		text[n > 0 ? n : 0] = '\0';
		report("%s: link to %s\n", rel, text);
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		unsigned n = 0;

		for (struct dirent *e; d && (e = readdir(d));)
			n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
		if (d)
			closedir(d);
		report("%s: dir %04o, %u entries\n", rel, (unsigned)(st.st_mode & 07777), n);
		return;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;

	if (fd >= 0)
		close(fd);
	text[n > 0 ? n : 0] = '\0';
	report("%s: file %04o \"%s\"\n", rel, (unsigned)(st.st_mode & 07777), text);
}

static void ns_map(const char *file, const char *text)
{
	int fd = open(file, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		_exit(78);
	close(fd);
}

/* The child's own namespaces and root: a tmpfs over scratch, chrooted
 * into, with /proj and /usr (the covers' stage, as plan.c's stage_open
 * picks a top-level directory).  77: no user namespace; 78: no mount. */
static void enter(const char *scratch)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
		_exit(77);
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
	ns_map("/proc/self/uid_map", map);
	ns_map("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
	ns_map("/proc/self/gid_map", map);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("tmpfs", scratch, "tmpfs", 0, "mode=0755") || chroot(scratch) || chdir("/"))
		_exit(78);
	if (mkdir("/proj", 0755) || mkdir("/usr", 0755))
		_exit(78);
}

typedef void (*scene_fn)(void);

/* Runs scene in a child of its own; its report, and its exit status in
 * *status.  Skips (naming why) where the namespaces cannot be had. */
static const char *in_child(scene_fn scene, int *status)
{
	static char buf[65536];
	char scratch[] = "/tmp/aj-test-mask-XXXXXX";
	size_t got = 0;
	int p[2];
	pid_t pid;

	assert_non_null(mkdtemp(scratch));
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(p[0]);
		enter(scratch);
		report_fd = p[1];
		scene();
		_exit(0);
	}
	close(p[1]);
	for (ssize_t n; (n = read(p[0], buf + got, sizeof(buf) - 1 - got)) > 0;)
		got += (size_t)n;
	buf[got] = '\0';
	close(p[0]);
	assert_int_equal(waitpid(pid, status, 0), pid);
	rmdir(scratch);
	if (WIFEXITED(*status) && WEXITSTATUS(*status) == 77) {
		print_message("SKIP: no user and mount namespace of the test's own (unshare)\n");
		skip();
	}
	if (WIFEXITED(*status) && WEXITSTATUS(*status) == 78) {
		print_message("SKIP: the test's user namespace may not mount a tmpfs here\n");
		skip();
	}
	*status = WIFEXITED(*status) ? WEXITSTATUS(*status) : 128 + WTERMSIG(*status);
	return buf;
}

static void apply(void)
{
	static const struct aj_variant v = {.network = AJ_NET_HOST};
	struct plan_made made = {.stage_fd = open("/usr", O_PATH | O_DIRECTORY | O_CLOEXEC),
	                         .stage_under = "/usr"};

	mask_apply("/proj", &v, &made);
}

/* ---- one cover per hit ------------------------------------------------ */

static void few_tree(void)
{
	put("/proj/.env", "KEY=secret", 0640);
	put("/proj/ok.txt", "hello", 0644);
	mkdir("/proj/keys", 0750);
	put("/proj/keys/id", "private", 0600);
	hit(".env", AJ_PATTERN_MASK, 0);
	hit("keys", AJ_PATTERN_DENY, 0);
}

static void few(void)
{
	few_tree();
	apply();
	show(".env");
	show("ok.txt");
	show("keys");
	show("keys/id");
	/* The stage's nodes go where no mount hides them (no /.aj made). */
	show("../usr");
	show("../.aj");
}

/* A mask shows its original's mode and nothing in it; a deny is an empty
 * directory of mode 000; what matches nothing is untouched. */
static void covers(void **state)
{
	int status;
	const char *got = in_child(few, &status);

	(void)state;
	assert_string_equal(got, ".env: file 0640 \"\"\n"
	                         "ok.txt: file 0644 \"hello\"\n"
	                         "keys: dir 0000, 0 entries\n"
	                         "keys/id: absent\n"
	                         "../usr: dir 0755, 0 entries\n"
	                         "../.aj: absent\n");
	assert_int_equal(status, 0);
}

/* The covers are read-only: the masked file cannot be written through. */
static void readonly_scene(void)
{
	int fd;

	few_tree();
	apply();
	fd = open("/proj/.env", O_WRONLY | O_CLOEXEC);
	report("write .env: %s\n", fd < 0 ? "refused" : "allowed");
}

static void readonly(void **state)
{
	int status;

	(void)state;
	assert_string_equal(in_child(readonly_scene, &status), "write .env: refused\n");
	assert_int_equal(status, 0);
}

/* Renamed since the scan, another file in its place: the cover would go
 * on what the scan never saw, so the jail does not start. */
static void swapped_scene(void)
{
	few_tree();
	rename("/proj/.env", "/proj/.env.old");
	put("/proj/.env", "other", 0640);
	apply();
	report("applied\n");
}

/* A symlink in its place (to the file next to it): refused, not followed. */
static void linked_scene(void)
{
	few_tree();
	rename("/proj/.env", "/proj/.env.old");
	symlink("ok.txt", "/proj/.env");
	apply();
	report("applied\n");
}

static void swapped(void **state)
{
	int status;

	(void)state;
	assert_string_equal(in_child(swapped_scene, &status), "died: cover .env (0) changed\n");
	assert_int_equal(status, 125);
	assert_string_equal(in_child(linked_scene, &status), "died: cover .env (0) changed\n");
	assert_int_equal(status, 125);
}

/* ---- a directory full of hits: one cover (maskdir.c) ------------------ */

/* big/: 20 keys (f00..f19, f07 a directory) and two other files, one a
 * symlink; enough hits, and most of its entries, for one cover. */
static void big_tree(void)
{
	char p[64];

	mkdir("/proj/big", 0755);
	for (int i = 0; i < 20; i++) {
		snprintf(p, sizeof(p), "/proj/big/f%02d", i);
		if (i == 7)
			mkdir(p, 0700);
		else
			put(p, "key", 0600);
	}
	put("/proj/big/readme", "read me", 0644);
	symlink("readme", "/proj/big/link");
	for (int i = 0; i < 20; i++) {
		snprintf(p, sizeof(p), "big/f%02d", i);
		hit(p, AJ_PATTERN_MASK, 22);
	}
}

static void big(void)
{
	struct stat proj, dir;
	int fd;

	big_tree();
	apply();
	/* One mount over the directory, read-only: nothing new is made there. */
	fd = open("/proj/big/new", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (!stat("/proj", &proj) && !stat("/proj/big", &dir))
		report("big: %s, new names %s\n",
		       proj.st_dev != dir.st_dev ? "a mount of its own" : "the project's",
		       fd < 0 ? "refused" : "made");
	show("big");
	show("big/f00");
	show("big/f07");
	show("big/readme");
	show("big/link");
}

static void one_cover(void **state)
{
	int status;

	(void)state;
	assert_string_equal(in_child(big, &status), "big: a mount of its own, new names refused\n"
	                                            "big: dir 0755, 22 entries\n"
	                                            "big/f00: file 0600 \"\"\n"
	                                            "big/f07: dir 0700, 0 entries\n"
	                                            "big/readme: file 0644 \"read me\"\n"
	                                            "big/link: link to readme\n");
	assert_int_equal(status, 0);
}

/* A key moved out of the directory since the scan: the cover would not
 * be over what the scan saw, so the jail does not start. */
static void big_moved_scene(void)
{
	big_tree();
	rename("/proj/big/f03", "/proj/f03");
	apply();
	report("applied\n");
}

/* Another name of a key, made in the directory since the scan: it would
 * be bound in beside the stand-ins, so the jail does not start. */
static void big_linked_scene(void)
{
	big_tree();
	link("/proj/big/f03", "/proj/big/g03");
	apply();
	report("applied\n");
}

static void one_cover_changed(void **state)
{
	int status;

	(void)state;
	assert_string_equal(in_child(big_moved_scene, &status), "died: cover big (0) changed\n");
	assert_int_equal(status, 125);
	assert_string_equal(in_child(big_linked_scene, &status), "died: cover big (0) changed\n");
	assert_int_equal(status, 125);
}

/* Past STAND_IN_MAX (256) hits in one directory, the hits are absent. */
static void many(void)
{
	char p[64];

	mkdir("/proj/many", 0755);
	for (int i = 0; i < 300; i++) {
		snprintf(p, sizeof(p), "/proj/many/k%03d", i);
		put(p, "key", 0600);
	}
	put("/proj/many/keep", "kept", 0644);
	for (int i = 0; i < 300; i++) {
		snprintf(p, sizeof(p), "many/k%03d", i);
		hit(p, AJ_PATTERN_DENY, 301);
	}
	apply();
	show("many");
	show("many/k000");
	show("many/keep");
}

static void absent(void **state)
{
	int status;

	(void)state;
	assert_string_equal(in_child(many, &status), "many: dir 0755, 1 entries\n"
	                                             "many/k000: absent\n"
	                                             "many/keep: file 0644 \"kept\"\n");
	assert_int_equal(status, 0);
}

/* ---- the decisions, asked directly ------------------------------------ */

static const struct aj_step mask_step = {.kind = AJ_PATTERN_MASK};
static const struct aj_step prune_step = {.kind = AJ_PATTERN_PRUNE};

/* Names that appear are covered when the policy masks or denies any
 * name, floating or anchored, unless AIJAIL_APPEAR=0. */
static void appearing(void **state)
{
	struct aj_scan s = {0};
	struct aj_variant v = {0};

	(void)state;
	unsetenv("AIJAIL_APPEAR");
	assert_false(mask_appearing(&v));
	v.scan = &s;
	assert_false(mask_appearing(&v));
	s.floating = &prune_step, s.n_floating = 1;
	assert_false(mask_appearing(&v));
	s.steps = &mask_step, s.n_steps = 1;
	assert_true(mask_appearing(&v));
	s.steps = NULL, s.n_steps = 0;
	s.floating = &mask_step;
	assert_true(mask_appearing(&v));
	setenv("AIJAIL_APPEAR", "0", 1);
	assert_false(mask_appearing(&v));
	setenv("AIJAIL_APPEAR", "1", 1);
	assert_true(mask_appearing(&v));
	unsetenv("AIJAIL_APPEAR");
}

/* What the walk could not check is denied whole, and said once on stderr. */
static void unchecked(void **state)
{
	char buf[512];
	int p[2], saved = dup(2);
	ssize_t n;

	(void)state;
	memset(&result, 0, sizeof(result));
	result.hits[0] = (struct scan_hit){.kind = AJ_PATTERN_DENY, .why = SCAN_BY_NAME};
	result.hits[1] = (struct scan_hit){.kind = AJ_PATTERN_DENY, .why = SCAN_BY_DEPTH, .off = 0};
	result.hits[2] = (struct scan_hit){.kind = AJ_PATTERN_DENY, .why = SCAN_BY_LONG, .off = 6};
	memcpy(result.arena, "a/b/c\0d/e\0", 10);
	result.n = 3;
	assert_int_equal(pipe(p), 0);
	dup2(p[1], 2);
	mask_tell_unchecked();
	result.n = 1; /* nothing unchecked: nothing said */
	mask_tell_unchecked();
	dup2(saved, 2);
	close(saved);
	close(p[1]);
	n = read(p[0], buf, sizeof(buf) - 1);
	close(p[0]);
	buf[n > 0 ? n : 0] = '\0';
	assert_string_equal(buf, "jail: warning: 2 parts of the project could not be checked for "
	                         "secrets and are denied (deeper than 'scan depth': a/b/c, ...); "
	                         "--jail-explain lists them\n");
	memset(&result, 0, sizeof(result));
}

static void add(const char *rel, uint32_t dir_entries, uint64_t ino)
{
	struct scan_hit *h = &result.hits[result.n++];

	*h = (struct scan_hit){
	    .kind = AJ_PATTERN_MASK, .ino = ino, .dir_entries = dir_entries, .off = result.used};
	memcpy(result.arena + result.used, rel, strlen(rel) + 1);
	result.used += (uint32_t)strlen(rel) + 1;
}

/* Which hits share one cover: 16 or more in one directory, at least half
 * its entries; stand-ins up to 256, absent past them; a hit at the top,
 * or one whose inode the walk could not know, has a cover of its own.
 * Grouping is once per process (pid 1 groups once): this case runs last,
 * the children above start ungrouped. */
static void grouping(void **state)
{
	char p[64];
	unsigned first[6];

	(void)state;
	memset(&result, 0, sizeof(result));
	first[0] = result.n; /* 16 of 32: one cover */
	for (int i = 0; i < 16; i++)
		snprintf(p, sizeof(p), "a/k%02d", i), add(p, 32, 100 + (unsigned)i);
	first[1] = result.n; /* 16 of 33: a cover each */
	for (int i = 0; i < 16; i++)
		snprintf(p, sizeof(p), "b/k%02d", i), add(p, 33, 200 + (unsigned)i);
	first[2] = result.n; /* 15: a cover each */
	for (int i = 0; i < 15; i++)
		snprintf(p, sizeof(p), "a/c/k%02d", i), add(p, 15, 300 + (unsigned)i);
	first[3] = result.n; /* 257: absent */
	for (int i = 0; i < 257; i++)
		snprintf(p, sizeof(p), "d/k%03d", i), add(p, 257, 1000 + (unsigned)i);
	first[4] = result.n;
	add("top", 1, 5);
	first[5] = result.n;
	add("a/unknown", 32, 0);
	assert_string_equal(maskdir_note(first[0]), "stand-in");
	assert_string_equal(maskdir_note(first[0] + 15), "stand-in");
	assert_null(maskdir_note(first[1]));
	assert_null(maskdir_note(first[2]));
	assert_string_equal(maskdir_note(first[3] + 256), "absent");
	assert_null(maskdir_note(first[4]));
	assert_null(maskdir_note(first[5]));
	assert_true(maskdir_holds(first[0]));
	assert_false(maskdir_holds(first[1]));
	assert_true(maskdir_holds(first[3]));
	assert_false(maskdir_holds(first[4]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(covers),
	    cmocka_unit_test(readonly),
	    cmocka_unit_test(swapped),
	    cmocka_unit_test(one_cover),
	    cmocka_unit_test(one_cover_changed),
	    cmocka_unit_test(absent),
	    cmocka_unit_test(appearing),
	    cmocka_unit_test(unchecked),
	    cmocka_unit_test(grouping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
