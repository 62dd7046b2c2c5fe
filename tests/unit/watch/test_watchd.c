/* test_watchd.c: the watcher's daemon (stub/watch/watchd.c), forked as a
 * launch's spawn() forks it, with a project and a runtime directory of the
 * test's own, and asked over its socket as a launch asks.  A good question
 * gets the project's hits from the index, and the index follows the
 * project (a new secret, one removed); a request with a bad magic, cut
 * short, for another key or another project, with a table past the
 * bound, or from another uid gets no answer at all; a table it cannot
 * read gets "walk"; a new table gets "walk", then is indexed, listed in
 * the state file with the labels that used it, and answered from its own
 * index; another watcher's "give way" ends it, its files removed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "watch/watch.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

/* mask .env and *.pem; the second table masks *.key too. */
static const struct aj_step steps1[] = {
    {AJ_NAME_EXACT, 0, AJ_PATTERN_MASK, '.', 4, 4, 4, 0, ".env", "", 0, 0},
    {AJ_NAME_SUFFIX, 0, AJ_PATTERN_MASK, 0, 4, 255, 0, 4, "", ".pem", 0, 1},
};
static const struct aj_step steps2[] = {
    {AJ_NAME_EXACT, 0, AJ_PATTERN_MASK, '.', 4, 4, 4, 0, ".env", "", 0, 0},
    {AJ_NAME_SUFFIX, 0, AJ_PATTERN_MASK, 0, 4, 255, 0, 4, "", ".pem", 0, 1},
    {AJ_NAME_SUFFIX, 0, AJ_PATTERN_MASK, 0, 4, 255, 0, 4, "", ".key", 0, 2},
};
static const struct aj_scan scan1 = {
    .floating = steps1, .n_floating = 2, .depth = 12, .bound = AJ_SCAN_BOUND_DENY};
static const struct aj_scan scan2 = {
    .floating = steps2, .n_floating = 3, .depth = 12, .bound = AJ_SCAN_BOUND_DENY};
static const struct aj_variant v1 = {.scan = &scan1, .network = AJ_NET_NONE};
static const struct aj_variant v2 = {.scan = &scan2, .network = AJ_NET_NONE};

static const struct aj_policy fake_policy = {.progname = "test"};
const struct aj_policy *const aj_the_policy = &fake_policy;

static char top[] = "/tmp/aj-watchd-XXXXXX";
static char proj[64], run[64];
static pid_t watcher = -1;
static uint8_t blob1[WATCH_TABLE_MAX], blob2[WATCH_TABLE_MAX];
static uint32_t len1, len2;

static void touch(const char *name)
{
	char p[128];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", proj, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x\n", 2), 2);
	close(fd);
}

static bool exists(const char *suffix)
{
	char n[64];

	watchtab_key_name(n, watchtab_key, suffix);
	return !faccessat(watchtab_rdir, n, F_OK, AT_SYMLINK_NOFOLLOW);
}

/* The watcher's state file, once cond holds of it: it is rewritten as
 * the watcher goes, so the test waits for what it expects rather than
 * for a time; a bound (a minute) only keeps a broken watcher from hanging
 * the run. */
static bool state_has(const char *what, char *st, size_t size)
{
	char n[64];

	watchtab_key_name(n, watchtab_key, ".state");
	for (unsigned i = 0; i < 6000; i++) {
		if (watch_state_read(watchtab_rdir, n, st, size) > 0 && strstr(st, what))
			return true;
		usleep(10000);
	}
	return false;
}

static int connect_watcher(void)
{
	struct sockaddr_un a;
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(s >= 0);
	watchtab_sun_of(&a, watchtab_key);
	assert_int_equal(connect(s, (struct sockaddr *)&a, sizeof(a)), 0);
	return s;
}

/* All the watcher sends until it closes. */
static size_t read_all(int s, uint8_t *buf, size_t size)
{
	size_t got = 0;
	ssize_t r;

	while (got < size && (r = read(s, buf + got, size - got)) > 0)
		got += (size_t)r;
	return got;
}

static struct watch_req req(const char *label, uint32_t tlen)
{
	struct watch_req q = {.magic = WATCH_MAGIC,
	                      .op = OP_ASK,
	                      .dev = watchtab_proj_dev,
	                      .ino = watchtab_proj_ino,
	                      .tlen = tlen};

	memcpy(q.key, watchtab_key, sizeof(q.key));
	snprintf(q.label, sizeof(q.label), "%s", label);
	return q;
}

static uint8_t ans[sizeof(struct watch_ans) + sizeof(struct scan_result) + AJ_SCAN_MAX];

/* Sends q and send bytes of table (then the end of the request), and
 * returns how many bytes came back (the answer in ans). */
static size_t ask_raw(const void *q, size_t qlen, const uint8_t *table, size_t send)
{
	int s = connect_watcher();
	size_t got;

	/* The watcher may close as soon as it has seen enough to refuse:
	 * what it did not read is not a failure of the test. */
	if (write(s, q, qlen) == (ssize_t)qlen && send)
		(void)!write(s, table, send);
	shutdown(s, SHUT_WR);
	got = read_all(s, ans, sizeof(ans));
	close(s);
	return got;
}

/* A good question; the answer's header, its hits' names joined by ' '. */
static struct watch_ans ask(const uint8_t *table, uint32_t tlen, const char *label, char *names,
                            size_t size)
{
	struct watch_req q = req(label, tlen);
	struct watch_ans h;
	size_t got = ask_raw(&q, sizeof(q), table, tlen);
	const struct scan_hit *hits = (const void *)(ans + sizeof(h));
	const char *arena;

	assert_true(got >= sizeof(h));
	memcpy(&h, ans, sizeof(h));
	assert_int_equal(h.magic, WATCH_MAGIC);
	assert_true(h.dev == watchtab_proj_dev && h.ino == watchtab_proj_ino);
	names[0] = '\0';
	if (h.status != ANS_OK) {
		assert_int_equal(got, sizeof(h));
		return h;
	}
	assert_int_equal(got, sizeof(h) + h.n * sizeof(*hits) + h.used + h.n);
	arena = (const char *)(hits + h.n);
	for (unsigned i = 0; i < h.n; i++) {
		assert_true(hits[i].off < h.used);
		snprintf(names + strlen(names), size - strlen(names), "%s%s", i ? " " : "",
		         arena + hits[i].off);
	}
	return h;
}

static bool has_name(const char *names, const char *n)
{
	size_t l = strlen(n);

	for (const char *p = names; (p = strstr(p, n)); p += l)
		if ((p == names || p[-1] == ' ') && (p[l] == ' ' || !p[l]))
			return true;
	return false;
}

static int setup(void **state)
{
	char st[WATCH_STATE_SIZE];

	if (!mkdtemp(top))
		return -1;
	snprintf(proj, sizeof(proj), "%s/proj", top);
	snprintf(run, sizeof(run), "%s/run", top);
	if (mkdir(proj, 0755) || mkdir(run, 0700) || chdir(proj))
		return -1;
	touch(".env");
	touch("a.pem");
	touch("id.key");
	touch("readme.txt");
	vars_set(AJ_VAR_PROJECT, proj);
	watchtab_rdir = open(run, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (watchtab_rdir < 0 || !watchtab_make_key() || !watchtab_flatten(&v2))
		return -1;
	memcpy(blob2, watchtab_flat, len2 = watchtab_flat_len);
	if (!watchtab_flatten(&v1)) /* the table the watcher starts with */
		return -1;
	memcpy(blob1, watchtab_flat, len1 = watchtab_flat_len);
	snprintf(watchtab_label, sizeof(watchtab_label), "jail/normal");
	setenv("AIJAIL_WATCH_IDLE", "3600", 1);
	fflush(NULL);
	watcher = fork();
	if (watcher < 0)
		return -1;
	if (!watcher)
		watchd_main();    /* its descriptors 0-2 become /dev/null: nothing of cmocka's */
	signal(SIGPIPE, SIG_IGN); /* a refusal closes the socket under a write */
	/* Its first table is walked before it takes a question; the state
	 * file says when. */
	if (!state_has("\ntable jail/normal", st, sizeof(st))) {
		fprintf(stderr, "the watcher published no indexed table: %s\n", st);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	if (watcher > 0 && !waitpid(watcher, NULL, WNOHANG)) {
		kill(watcher, SIGKILL);
		waitpid(watcher, NULL, 0);
	}
	char cmd[96];

	if (chdir("/"))
		return -1;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	return system(cmd);
}

static void good_question_gets_the_hits(void **state)
{
	char names[512];
	struct watch_ans h = ask(blob1, len1, "jail/normal", names, sizeof(names));

	assert_int_equal(h.status, ANS_OK);
	assert_int_equal(h.n, 2);
	assert_true(has_name(names, ".env"));
	assert_true(has_name(names, "a.pem"));
	assert_false(has_name(names, "id.key")); /* not this table's */
}

static void index_follows_the_project(void **state)
{
	char names[512], p[128];
	struct watch_ans h;

	/* inotify queues the events before these calls return: the watcher
	 * drains them before it answers. */
	touch("b.pem");
	h = ask(blob1, len1, "jail/normal", names, sizeof(names));
	assert_int_equal(h.status, ANS_OK);
	assert_true(has_name(names, "b.pem"));
	assert_int_equal(h.n, 3);
	snprintf(p, sizeof(p), "%s/a.pem", proj);
	assert_int_equal(unlink(p), 0);
	h = ask(blob1, len1, "jail/normal", names, sizeof(names));
	assert_int_equal(h.status, ANS_OK);
	assert_false(has_name(names, "a.pem"));
	assert_true(has_name(names, "b.pem") && has_name(names, ".env"));
	assert_int_equal(h.n, 2);
}

static void bad_requests_get_no_answer(void **state)
{
	struct watch_req q;

	q = req("x", len1);
	q.magic ^= 1;
	assert_int_equal(ask_raw(&q, sizeof(q), blob1, len1), 0);
	q = req("x", len1); /* cut short, within the header */
	assert_int_equal(ask_raw(&q, 10, NULL, 0), 0);
	q = req("x", len1); /* cut short, within the table */
	assert_int_equal(ask_raw(&q, sizeof(q), blob1, len1 / 2), 0);
	q = req("x", len1); /* another project's key */
	q.key[5] ^= 1;
	assert_int_equal(ask_raw(&q, sizeof(q), blob1, len1), 0);
	q = req("x", len1); /* the key, but another project */
	q.ino++;
	assert_int_equal(ask_raw(&q, sizeof(q), blob1, len1), 0);
	q = req("x", WATCH_TABLE_MAX + 1);
	assert_int_equal(ask_raw(&q, sizeof(q), blob1, len1), 0);
	q = req("x", len1);
	q.op = 7;
	assert_int_equal(ask_raw(&q, sizeof(q), blob1, len1), 0);
}

/* A table whose first step names a step that is not there. */
static void unreadable_table_gets_walk(void **state)
{
	static uint8_t bad[WATCH_TABLE_MAX];
	struct watch_req q = req("jail/bad", len1);
	struct watch_ans h;
	struct watchtab_step w;
	char st[WATCH_STATE_SIZE];

	memcpy(bad, blob1, len1);
	memcpy(&w, bad + sizeof(struct watchtab_hdr), sizeof(w));
	w.next = 1ULL << 40;
	memcpy(bad + sizeof(struct watchtab_hdr), &w, sizeof(w));
	assert_int_equal(ask_raw(&q, sizeof(q), bad, len1), sizeof(h));
	memcpy(&h, ans, sizeof(h));
	assert_int_equal(h.magic, WATCH_MAGIC);
	assert_int_equal(h.status, ANS_WALK);
	assert_int_equal(h.n, 0);
	assert_true(state_has("\ntables 1\n", st, sizeof(st))); /* not kept */
	assert_null(strstr(st, "jail/bad"));
}

static void new_table_is_walked_then_served(void **state)
{
	char names[512], st[WATCH_STATE_SIZE];
	struct watch_ans h = ask(blob2, len2, "jail-npm/lockdown", names, sizeof(names));

	assert_int_equal(h.status, ANS_WALK); /* new: walked after this answer */
	assert_true(state_has("\ntable jail-npm/lockdown\n", st, sizeof(st)));
	assert_non_null(strstr(st, "\ntables 2\n"));
	h = ask(blob2, len2, "jail-npm/lockdown", names, sizeof(names));
	assert_int_equal(h.status, ANS_OK);
	assert_true(has_name(names, "id.key"));
	assert_int_equal(h.n, 3);
	/* The first table again, by another stub: one table, two labels. */
	h = ask(blob1, len1, "jail-python/normal", names, sizeof(names));
	assert_int_equal(h.status, ANS_OK);
	assert_false(has_name(names, "id.key"));
	assert_true(state_has("\ntable jail/normal jail-python/normal\n", st, sizeof(st)));
	assert_non_null(strstr(st, "\ntables 2\n"));
}

/* Another uid gets nothing, even where the socket lets it in (as root:
 * the directory and socket opened to it for this case). */
static void another_uid_gets_no_answer(void **state)
{
	char sock[64], p[128];
	struct watch_req q = req("x", len1);
	int pipefd[2], status;
	size_t got = 1;
	pid_t pid;

	if (getuid() != 0)
		skip();
	watchtab_key_name(sock, watchtab_key, ".sock");
	snprintf(p, sizeof(p), "%s/%s", run, sock);
	assert_int_equal(chmod(run, 0711), 0);
	assert_int_equal(chmod(p, 0666), 0);
	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(pipefd[0]);
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(2);
		got = ask_raw(&q, sizeof(q), blob1, len1);
		_exit(write(pipefd[1], &got, sizeof(got)) == sizeof(got) ? 0 : 3);
	}
	close(pipefd[1]);
	assert_int_equal(read(pipefd[0], &got, sizeof(got)), sizeof(got));
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(chmod(run, 0700), 0);
	assert_int_equal(got, 0);
}

/* A watcher checks who asks it to give way by the asker's pidfd
 * (SO_PEERPIDFD, Linux 6.5). */
static bool peer_pidfd(void)
{
	int sv[2], pidfd = -1;
	socklen_t l = sizeof(pidfd);
	bool ok;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return false;
	ok = !getsockopt(sv[0], SOL_SOCKET, SO_PEERPIDFD, &pidfd, &l) && pidfd >= 0;
	if (pidfd >= 0)
		close(pidfd);
	close(sv[0]);
	close(sv[1]);
	return ok;
}

static void give_way_ends_it(void **state)
{
	struct watch_req q = req("", 0);
	int status;

	if (!peer_pidfd())
		skip(); /* no SO_PEERPIDFD: no watcher gives way here */
	q.op = OP_YIELD;
	assert_true(exists(".sock") && exists(".state") && exists(".lock"));
	assert_int_equal(ask_raw(&q, sizeof(q), NULL, 0), 0);
	assert_int_equal(waitpid(watcher, &status, 0), watcher);
	watcher = -1;
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_false(exists(".sock"));
	assert_false(exists(".state"));
	assert_false(exists(".lock"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(good_question_gets_the_hits),
	    cmocka_unit_test(index_follows_the_project),
	    cmocka_unit_test(bad_requests_get_no_answer),
	    cmocka_unit_test(unreadable_table_gets_walk),
	    cmocka_unit_test(new_table_is_walked_then_served),
	    cmocka_unit_test(another_uid_gets_no_answer),
	    cmocka_unit_test(give_way_ends_it),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
