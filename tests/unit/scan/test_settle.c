/* test_settle.c: the index the watcher keeps (stub/scan/settle.c's watches
 * and events over scan.c's walk, scanidx.c's records and hits.c's hits),
 * event by event, on a real tree under /tmp.  Each test walks a small
 * project into an index with a watch on every directory, as watchd.c's
 * rebuild() does, changes the tree once, applies what inotify queued as
 * watchd.c's follow() does (settle_events_read, settle_events_apply,
 * settle_events_done), and compares the index's hits with a fresh walk of
 * the same tree into a second index: an index that drifted from the walk
 * is a secret the watcher would leave uncovered. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scan/scan.h"

/* A walk that would end a launch ends the test, saying why. */
noreturn void diep(const char *step, const char *what, int err, const char *hint)
{
	fail_msg("died: %s %s: %d: %s", step, what ? what : "", err, hint ? hint : "");
	abort();
}

noreturn void die(const char *step, int err, const char *hint)
{
	diep(step, NULL, err, hint);
}

/* settle.c's settle_project() hands the walk to git's index; no test here
 * takes that path. */
void git_tracked_scan(struct scan_result *res, int project_fd, const char *project)
{
	(void)res, (void)project_fd, (void)project;
}

const char *vars_value(unsigned var)
{
	(void)var;
	return NULL;
}

/* ---- the policy: mask .env, deny secrets/, prune node_modules/, mask
 * config/ ** /prod.yml (anchored: steps 0..2, step 0 active at the top) -- */

static const struct aj_step floating[] = {
    {AJ_NAME_EXACT, 0, AJ_PATTERN_MASK, '.', 4, 4, 4, 0, ".env", "", 0, 0},
    {AJ_NAME_EXACT, AJ_NAME_DIR, AJ_PATTERN_DENY, 's', 7, 7, 7, 0, "secrets", "", 0, 1},
    {AJ_NAME_EXACT, AJ_NAME_DIR, AJ_PATTERN_PRUNE, 'n', 12, 12, 12, 0, "node_modules", "", 0, 2},
};
static const struct aj_step anchored[] = {
    {AJ_NAME_EXACT, AJ_NAME_DIR, 0, 'c', 6, 6, 6, 0, "config", "", 0x6, 3},
    {AJ_NAME_GLOBSTAR, 0, 0, 0, 0, 255, 0, 0, "", "", 0x6, 3},
    {AJ_NAME_EXACT, 0, AJ_PATTERN_MASK, 'p', 8, 8, 8, 0, "prod.yml", "", 0, 3},
};
static const struct aj_scan table = {
    .floating = floating,
    .steps = anchored,
    .start = 0x1,
    .n_floating = 3,
    .n_steps = 3,
    .depth = 16,
    .bound = AJ_SCAN_BOUND_DENY,
};
static const struct aj_variant variant = {.scan = &table, .network = AJ_NET_HOST};

/* ---- the tree --------------------------------------------------------------- */

static char top[64]; /* mkdtemp: proj/ (the project) and out/ (elsewhere) */
static int tfd = -1, pfd = -1;
static void *kept, *fresh; /* the watcher's index, and a fresh walk's */

static void mk(const char *p)
{
	assert_int_equal(mkdirat(tfd, p, 0755), 0);
}

static void put(const char *p)
{
	int fd = openat(tfd, p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x\n", 2), 2);
	close(fd);
}

static void mv(const char *from, const char *to)
{
	assert_int_equal(renameat(tfd, from, tfd, to), 0);
}

static uint64_t ino_of(const char *p)
{
	struct stat st;

	assert_int_equal(fstatat(tfd, p, &st, AT_SYMLINK_NOFOLLOW), 0);
	return st.st_ino;
}

static void rm_tree(int dfd, const char *p)
{
	struct stat st;

	if (fstatat(dfd, p, &st, AT_SYMLINK_NOFOLLOW))
		return;
	if (S_ISDIR(st.st_mode)) {
		char cmd[256];

		/* Under our own mkdtemp directory only. */
		snprintf(cmd, sizeof(cmd), "rm -rf -- '%s/%s'", top, p);
		assert_int_equal(system(cmd), 0);
		return;
	}
	assert_int_equal(unlinkat(dfd, p, 0), 0);
}

/* proj/ holds one of each kind of hit, a pruned tree with a secret the
 * walk must not see, and harmless files; out/ holds what moves in. */
static int setup(void **state)
{
	static const char *const dirs_[] = {
	    "proj",
	    "proj/src",
	    "proj/docs",
	    "proj/data",
	    "proj/lib",
	    "proj/lib/secrets",
	    "proj/config",
	    "proj/config/x",
	    "proj/node_modules",
	    "out",
	    "out/pkg",
	    "out/pkg/sub",
	    "out/pkg/sub/secrets",
	    "out/cfg",
	    "out/cfg/a",
	    "out/cfg2",
	};
	static const char *const files[] = {
	    "proj/src/a.c",           "proj/src/.env",          "proj/data/notes.txt",
	    "proj/lib/secrets/key",   "proj/config/x/prod.yml", "proj/config/dev.yml",
	    "proj/node_modules/.env", "out/pkg/.env",           "out/pkg/sub/secrets/key",
	    "out/pkg/sub/b.c",        "out/cfg/prod.yml",       "out/cfg/a/prod.yml",
	    "out/cfg2/prod.yml",
	};

	(void)state;
	strcpy(top, "/tmp/aj-settle-XXXXXX");
	if (!mkdtemp(top))
		return -1;
	tfd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (size_t i = 0; i < sizeof(dirs_) / sizeof(dirs_[0]); i++)
		mk(dirs_[i]);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		put(files[i]);
	pfd = openat(tfd, "proj", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!kept)
		kept = calloc(1, scanidx_size());
	if (!fresh)
		fresh = calloc(1, scanidx_size());
	if (!kept || !fresh || pfd < 0)
		return -1;
	/* The watcher's rebuild(): one instance, the walk watching every
	 * directory it reads. */
	settle_watch_budget = 0;
	if (settle_watch_begin() < 0)
		return -1;
	scan_index_use(kept, &variant);
	return scan_walk(pfd, &variant) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	settle_watch_end();
	settle_watch_budget = 0;
	scan_index_use(NULL, NULL);
	close(pfd);
	close(tfd);
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", top);
	return system(cmd);
}

/* ---- the index against a fresh walk ------------------------------------------ */

static int by_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *listing(char *buf, size_t size, uint8_t leave_out_why)
{
	char *rows[AJ_SCAN_MAX], *p = buf;
	static char tmp[1 << 16];
	size_t at = 0;
	unsigned n = 0;

	for (unsigned i = 0; i < hits_cur->n; i++) {
		const struct scan_hit *h = &hits_cur->hits[i];
		int l;

		if (h->why == leave_out_why)
			continue;
		l = snprintf(tmp + at, sizeof(tmp) - at,
		             "%s kind=%u why=%u dir=%u link=%u ino=%llu", hits_cur->arena + h->off,
		             h->kind, h->why, h->isdir, h->islink, (unsigned long long)h->ino);
		assert_true(l > 0 && (size_t)l < sizeof(tmp) - at);
		rows[n++] = tmp + at;
		at += (size_t)l + 1;
	}
	qsort(rows, n, sizeof(rows[0]), by_text);
	buf[0] = '\0';
	for (unsigned i = 0; i < n; i++) {
		size_t l = strlen(rows[i]);

		assert_true((size_t)(p - buf) + l + 2 < size);
		memcpy(p, rows[i], l);
		p += l;
		*p++ = '\n';
		*p = '\0';
	}
	return buf;
}

/* The hits of the index in use, one line each, sorted. */
static const char *hits_listing(void)
{
	static char b[1 << 16];

	return listing(b, sizeof(b), SCAN_BY_N);
}

/* The hits a fresh walk of the tree finds now, in the second index (no
 * watch added: the kept index's instance is left as it is). */
static const char *hits_fresh(uint8_t leave_out_why)
{
	static char b[1 << 16];
	int (*on_dir)(int, unsigned) = walk_on_dir;

	walk_on_dir = NULL;
	scan_index_use(fresh, &variant);
	assert_true(scan_walk(pfd, &variant));
	listing(b, sizeof(b), leave_out_why);
	scan_index_use(kept, &variant);
	walk_on_dir = on_dir;
	return b;
}

/* What inotify queued, applied to the kept index as the watcher's
 * follow() does; the worst answer (SCAN_EV_NONE: nothing queued). */
static int follow(void)
{
	static _Alignas(struct inotify_event) char buf[1 << 16];
	int worst = SCAN_EV_NONE;

	for (;;) {
		long n = settle_events_read(buf, sizeof(buf));
		int r;

		if (n <= 0)
			return n < 0 ? SCAN_EV_LOST : worst;
		r = settle_events_apply(pfd, buf, n);
		settle_events_done(buf, n);
		if (worst == SCAN_EV_NONE || r < worst)
			worst = r;
	}
}

static void follow_and_compare(void)
{
	char now[1 << 16];

	assert_int_equal(follow(), SCAN_EV_SOME);
	strcpy(now, hits_listing());
	assert_string_equal(now, hits_fresh(SCAN_BY_N));
}

static bool has_hit(const char *path)
{
	for (unsigned i = 0; i < hits_cur->n; i++)
		if (!strcmp(hits_cur->arena + hits_cur->hits[i].off, path))
			return true;
	return false;
}

/* ---- the tests --------------------------------------------------------------- */

/* The walk: one hit of each kind, nothing of the pruned tree, a watch on
 * every directory read; no event queued by the walk itself. */
static void walk_watches_every_dir(void **state)
{
	char want[512];

	(void)state;
	snprintf(want, sizeof(want),
	         "config/x/prod.yml kind=%u why=0 dir=0 link=0 ino=%llu\n"
	         "lib/secrets kind=%u why=0 dir=1 link=0 ino=%llu\n"
	         "src/.env kind=%u why=0 dir=0 link=0 ino=%llu\n",
	         AJ_PATTERN_MASK, (unsigned long long)ino_of("proj/config/x/prod.yml"),
	         AJ_PATTERN_DENY, (unsigned long long)ino_of("proj/lib/secrets"), AJ_PATTERN_MASK,
	         (unsigned long long)ino_of("proj/src/.env"));
	assert_string_equal(hits_listing(), want);
	assert_int_equal(hits_cur->n_pruned, 1);
	/* proj src docs data lib config config/x: secrets/ is covered and
	 * node_modules/ pruned, neither read nor watched. */
	assert_int_equal(scan_dirs(), 7);
	assert_int_equal(settle_watches, 7);
	assert_int_equal(follow(), SCAN_EV_NONE);
	assert_string_equal(hits_listing(), hits_fresh(SCAN_BY_N));
}

/* A secret made: its directory's IN_CREATE adds the hit. */
static void secret_created(void **state)
{
	(void)state;
	put("proj/docs/.env");
	follow_and_compare();
	assert_true(has_hit("docs/.env"));
	/* And in a directory made after the walk: watched when it is
	 * walked on its IN_CREATE, so what is made in it is seen too. */
	mk("proj/docs/new");
	follow_and_compare();
	put("proj/docs/new/.env");
	follow_and_compare();
	assert_true(has_hit("docs/new/.env"));
}

/* A secret renamed to a harmless name, then out of the project: the
 * IN_MOVED_FROM drops its hit; back under its name, IN_MOVED_TO adds it. */
static void secret_renamed_away(void **state)
{
	(void)state;
	mv("proj/src/.env", "proj/src/env.bak");
	follow_and_compare();
	assert_false(has_hit("src/.env"));
	mv("proj/src/env.bak", "proj/docs/.env");
	follow_and_compare();
	assert_true(has_hit("docs/.env"));
	mv("proj/docs/.env", "out/.env");
	follow_and_compare();
	assert_int_equal(hits_cur->n, 2);
}

/* A directory holding secrets moved in: walked where it lands (with the
 * anchored steps of its new parent) and watched, so what is made in it
 * afterwards is seen. */
static void dir_with_secret_moved_in(void **state)
{
	unsigned watches = settle_watches;

	(void)state;
	mv("out/pkg", "proj/src/pkg");
	follow_and_compare();
	assert_true(has_hit("src/pkg/.env"));
	assert_true(has_hit("src/pkg/sub/secrets"));
	assert_int_equal(settle_watches, watches + 2); /* pkg, pkg/sub */
	put("proj/src/pkg/sub/.env");
	follow_and_compare();
	assert_true(has_hit("src/pkg/sub/.env"));
	/* Under config/: config/ ** /prod.yml now matches inside it. */
	mv("out/cfg", "proj/config/cfg");
	follow_and_compare();
	assert_true(has_hit("config/cfg/prod.yml"));
	assert_true(has_hit("config/cfg/a/prod.yml"));
	/* Outside config/ prod.yml is nothing; renamed under it, a hit. */
	mv("out/cfg2", "proj/cfg2");
	follow_and_compare();
	assert_false(has_hit("cfg2/prod.yml"));
	mv("proj/cfg2", "proj/config/cfg2");
	follow_and_compare();
	assert_true(has_hit("config/cfg2/prod.yml"));
	/* And config/ renamed: its anchored hits are gone with the name. */
	mv("proj/config", "proj/conf");
	follow_and_compare();
	assert_false(has_hit("conf/x/prod.yml"));
}

/* A directory removed: its hit and the hits below it dropped, its
 * records dead. */
static void dir_removed(void **state)
{
	uint64_t x = ino_of("proj/config/x");

	(void)state;
	assert_true(scanidx_by_ino(x) > 0);
	rm_tree(tfd, "proj/lib/secrets");
	follow_and_compare();
	assert_false(has_hit("lib/secrets"));
	rm_tree(tfd, "proj/config");
	follow_and_compare();
	assert_false(has_hit("config/x/prod.yml"));
	assert_int_equal(scanidx_by_ino(x), -1);
}

/* A subtree moved out: its hits dropped, its records dead, and its
 * directories' watches (still there: a watch follows its inode) no
 * longer change the index. */
static void subtree_moved_out(void **state)
{
	uint64_t x = ino_of("proj/config/x");
	int rec = scanidx_by_ino(x);

	(void)state;
	assert_true(rec > 0);
	mv("proj/config", "out/config");
	follow_and_compare();
	assert_false(has_hit("config/x/prod.yml"));
	assert_false(scanidx_live((unsigned)rec));
	assert_int_equal(scanidx_by_ino(x), -1);
	put("out/config/x/.env");
	mk("out/config/x/secrets");
	assert_int_equal(follow(), SCAN_EV_SOME); /* queued by the old watch */
	assert_string_equal(hits_listing(), hits_fresh(SCAN_BY_N));
	assert_int_equal(hits_cur->n, 2);
}

/* A secret replaced by a harmless file under its name (the hit is the
 * new object's), two folders exchanged in one call, symlinks by name. */
static void replaced_and_exchanged(void **state)
{
	(void)state;
	mv("proj/src/a.c", "proj/src/.env");
	follow_and_compare();
	assert_true(has_hit("src/.env"));
	assert_int_equal(renameat2(tfd, "proj/src", tfd, "proj/docs", RENAME_EXCHANGE), 0);
	follow_and_compare();
	assert_true(has_hit("docs/.env"));
	assert_false(has_hit("src/.env"));
	assert_int_equal(renameat2(tfd, "proj/config", tfd, "out/cfg", RENAME_EXCHANGE), 0);
	follow_and_compare();
	assert_true(has_hit("config/a/prod.yml"));
	assert_false(has_hit("config/x/prod.yml"));
	assert_int_equal(symlinkat("/etc", tfd, "proj/data/secrets"), 0);
	assert_int_equal(symlinkat("x", tfd, "proj/data/.env"), 0);
	follow_and_compare();
	assert_true(has_hit("data/secrets"));
	assert_true(has_hit("data/.env"));
}

/* A folder moved in at the depth bound: redone at its parent's depth,
 * so denied whole as the walk would ('scan depth 16 deny'). */
static void moved_in_at_depth(void **state)
{
	char p[256] = "out/d";

	(void)state;
	mk(p);
	for (int i = 0; i < 15; i++) {
		strcat(p, "/d");
		mk(p);
	}
	put("out/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/.env"); /* 17 components below proj */
	mv("out/d", "proj/d");
	follow_and_compare();
	assert_false(has_hit("d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/.env"));
	assert_true(has_hit("d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d"));
}

/* Moved in and on again before the events were read: nothing to cover,
 * and counted (settle() refuses a tree where that keeps happening). */
static void moved_in_and_gone(void **state)
{
	unsigned before = settle_unresolved;

	(void)state;
	mv("out/pkg", "proj/pkg");
	mv("proj/pkg", "out/pkg2");
	follow_and_compare();
	assert_false(has_hit("pkg/.env"));
	assert_int_equal(settle_unresolved, before + 1);
}

/* A hard link to a masked file: the events re-classify names, and the
 * new name matches nothing, so the index does not hold it; the walk's
 * second pass does.  (The count's change is no event of the directory:
 * the kernel reports a link count's IN_ATTRIB to the file's own watches
 * only, so the new name's IN_CREATE is all the watcher hears.)  What keeps it covered is the
 * watcher's check_hits() (watchd.c), which sends every launch to the walk while a masked file has
 * more than one link: asserted here as the index holding that file with st_nlink 2, and differing
 * from the walk by the link alone. */
static void hard_link_to_masked(void **state)
{
	char now[1 << 16];
	bool linked = false;

	(void)state;
	assert_int_equal(linkat(tfd, "proj/src/.env", tfd, "proj/data/innocent", 0), 0);
	assert_int_equal(follow(), SCAN_EV_SOME);
	assert_false(has_hit("data/innocent"));
	for (unsigned i = 0; i < hits_cur->n; i++) {
		struct stat st;

		if (!fstatat(pfd, hits_cur->arena + hits_cur->hits[i].off, &st,
		             AT_SYMLINK_NOFOLLOW) &&
		    S_ISREG(st.st_mode) && st.st_nlink > 1 && st.st_ino == hits_cur->hits[i].ino)
			linked = true;
	}
	assert_true(linked);
	strcpy(now, hits_listing());
	assert_string_equal(now, hits_fresh(SCAN_BY_HARDLINK));
	assert_string_not_equal(now, hits_fresh(SCAN_BY_N));
	hits_fresh(SCAN_BY_N);
	/* The fresh walk found it by the link: */
	scan_index_use(fresh, &variant);
	assert_true(has_hit("data/innocent"));
	scan_index_use(kept, &variant);
	/* The link removed: index and walk agree again. */
	assert_int_equal(unlinkat(tfd, "proj/data/innocent", 0), 0);
	follow_and_compare();
}

/* scan_drop() and scan_redo() by hand: a directory's record dropped with
 * its hits, and redone as a new record; a directory re-listed whole
 * (name NULL); a name gone (1); a record whose directory moved (1). */
static void drop_and_redo(void **state)
{
	uint64_t cfg = ino_of("proj/config"), src = ino_of("proj/src");
	int rc = scanidx_by_ino(cfg), rs = scanidx_by_ino(src);
	char before[1 << 16];

	(void)state;
	assert_true(rc > 0 && rs > 0);
	strcpy(before, hits_listing());
	scan_drop(0, "config", true);
	assert_false(has_hit("config/x/prod.yml"));
	assert_false(scanidx_live((unsigned)rc));
	assert_int_equal(scanidx_by_ino(cfg), -1);
	assert_int_equal(scanidx_by_ino(ino_of("proj/config/x")), -1);
	assert_int_equal(scan_redo(pfd, 0, "config"), 0);
	assert_string_equal(hits_listing(), before);
	assert_true(scanidx_by_ino(cfg) > rc); /* a new record */
	assert_true(scanidx_by_ino(ino_of("proj/config/x")) > 0);
	/* A file's hit alone (tree false), redone by re-listing its
	 * directory. */
	scan_drop((unsigned)rs, ".env", false);
	assert_false(has_hit("src/.env"));
	assert_true(scanidx_live((unsigned)rs));
	assert_int_equal(scan_redo(pfd, (unsigned)rs, NULL), 0);
	assert_string_equal(hits_listing(), before);
	/* Nothing there by that name. */
	assert_int_equal(scan_redo(pfd, (unsigned)rs, "nothing"), 1);
	assert_string_equal(hits_listing(), before);
	/* A dead record is not redone. */
	scan_drop(0, "config", true);
	assert_int_equal(scan_redo(pfd, (unsigned)rc, NULL), 0);
	assert_int_equal(scan_redo(pfd, 0, "config"), 0);
	/* src/ renamed and its events not read yet: its record's path leads
	 * nowhere, redo says so; the events then put the index right. */
	mv("proj/src", "proj/src2");
	assert_int_equal(scan_redo(pfd, (unsigned)rs, ".env"), 1);
	follow_and_compare();
	assert_true(has_hit("src2/.env"));
	assert_false(scanidx_live((unsigned)rs));
}

/* The launch's loop (settle_events): nothing queued, then one change. */
static void launch_loop(void **state)
{
	(void)state;
	assert_int_equal(settle_events(pfd, 0), SCAN_EV_NONE);
	put("proj/data/.env");
	assert_int_equal(settle_events(pfd, 0), SCAN_EV_SOME);
	assert_true(has_hit("data/.env"));
	assert_string_equal(hits_listing(), hits_fresh(SCAN_BY_N));
}

/* A directory moved in that the watch budget cannot watch: the index
 * cannot follow it and says so (SCAN_EV_LOST), as does an overflowed
 * queue and a change of the project's own mode; the watcher then walks
 * again (its rebuild()), which agrees with a fresh walk. */
static void lost(void **state)
{
	_Alignas(struct inotify_event) char ev[sizeof(struct inotify_event)] = {0};
	struct inotify_event *e = (struct inotify_event *)ev;
	char now[1 << 16];

	(void)state;
	settle_watch_budget = settle_watches;
	mv("out/pkg", "proj/pkg");
	assert_int_equal(follow(), SCAN_EV_LOST);
	assert_true(settle_over_budget);
	settle_watch_budget = 0;
	assert_true(settle_watch_begin() >= 0);
	assert_true(scan_walk(pfd, &variant));
	assert_false(settle_over_budget);
	strcpy(now, hits_listing());
	assert_string_equal(now, hits_fresh(SCAN_BY_N));
	assert_true(has_hit("pkg/.env"));

	e->wd = -1;
	e->mask = IN_Q_OVERFLOW;
	assert_int_equal(settle_events_apply(pfd, ev, sizeof(ev)), SCAN_EV_LOST);

	assert_int_equal(fchmod(pfd, 0700), 0);
	assert_int_equal(follow(), SCAN_EV_LOST);
}

/* The project removed: SCAN_EV_GONE (the watcher gives way).  Its
 * IN_DELETE_SELF comes when the last reference to the directory goes,
 * so the descriptor is closed first; the event is the first thing
 * settle_events_apply() looks at, before any redo would need it. */
static void project_gone(void **state)
{
	(void)state;
	close(pfd);
	pfd = -1;
	rm_tree(tfd, "proj");
	assert_int_equal(follow(), SCAN_EV_GONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(walk_watches_every_dir, setup, teardown),
	    cmocka_unit_test_setup_teardown(secret_created, setup, teardown),
	    cmocka_unit_test_setup_teardown(secret_renamed_away, setup, teardown),
	    cmocka_unit_test_setup_teardown(dir_with_secret_moved_in, setup, teardown),
	    cmocka_unit_test_setup_teardown(dir_removed, setup, teardown),
	    cmocka_unit_test_setup_teardown(subtree_moved_out, setup, teardown),
	    cmocka_unit_test_setup_teardown(replaced_and_exchanged, setup, teardown),
	    cmocka_unit_test_setup_teardown(moved_in_at_depth, setup, teardown),
	    cmocka_unit_test_setup_teardown(moved_in_and_gone, setup, teardown),
	    cmocka_unit_test_setup_teardown(hard_link_to_masked, setup, teardown),
	    cmocka_unit_test_setup_teardown(drop_and_redo, setup, teardown),
	    cmocka_unit_test_setup_teardown(launch_loop, setup, teardown),
	    cmocka_unit_test_setup_teardown(lost, setup, teardown),
	    cmocka_unit_test_setup_teardown(project_gone, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
