/* test_sockets.c: the host's named sockets beneath a bind
 * (stub/root/sockets.c), from this process's own /proc/net/unix: the
 * parent sends pid 1 each listening or datagram socket beneath a
 * directory bind (the bind named through a link, as connect(2) would
 * resolve it), as the path below the bind; pid 1 opens each beneath the
 * bind's descriptor and is given the sockets to cover, but not one a file
 * bind names (a toggle's), not a connected stream socket's path, not one
 * outside every bind, and not one listed through a link out of the bind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "root/root.h"

/* Stand-ins for the rooms sockets.c calls: a refusal is a failed test,
 * --jail-explain's writer is not asked, the kernel's Landlock has no
 * ABI 9 (so the covers are the way), and there is no GPU. */
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
int landlock_abi(void)
{
	return 0;
}
bool plan_has_devices(void)
{
	return false;
}
void rp_open(const char *key, char kind)
{
	(void)key;
	(void)kind;
}
void rp_close(void)
{
}
void rp_str(const char *key, const char *s)
{
	(void)key;
	(void)s;
}
void rp_t(const char *s)
{
	(void)s;
}
void rp_field(const char *name)
{
	(void)name;
}

struct plan_entry plan[AJ_PLAN_MAX];
unsigned plan_n;

static char top[64];

static void at(char *buf, const char *rel)
{
	snprintf(buf, 128, "%s/%s", top, rel);
}

/* A socket bound at top/rel: listening, datagram, or a stream one that
 * only connects (and so is listed but cannot be connected to). */
static int sock_at(const char *rel, int type, bool listening)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int s = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);

	assert_true(s >= 0);
	assert_true((size_t)snprintf(a.sun_path, sizeof(a.sun_path), "%s/%s", top, rel) <
	            sizeof(a.sun_path));
	assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	if (listening)
		assert_int_equal(listen(s, 1), 0);
	return s;
}

static void covers(void **state)
{
	static const struct aj_mount ro = {.op = AJ_MOUNT_RO};
	const struct aj_variant v = {.network = AJ_NET_NONE, .landlock = AJ_LANDLOCK_OFF};
	char p[128], alias[128], named[128], what[256], got[512] = "";
	int s[6], st;
	pid_t c;

	(void)state;
	strcpy(top, "/tmp/aj-sockets.XXXXXX");
	assert_non_null(mkdtemp(top));
	at(p, "bound");
	assert_int_equal(mkdir(p, 0700), 0);
	at(p, "bound/sub");
	assert_int_equal(mkdir(p, 0700), 0);
	at(p, "outside");
	assert_int_equal(mkdir(p, 0700), 0);
	at(alias, "alias");
	assert_int_equal(symlink("bound", alias), 0);
	at(p, "bound/lnk");
	assert_int_equal(symlink("../outside", p), 0);
	s[0] = sock_at("bound/l", SOCK_STREAM, true);
	s[1] = sock_at("bound/sub/d", SOCK_DGRAM, false);
	s[2] = sock_at("bound/c", SOCK_STREAM, false);
	s[3] = sock_at("outside/o", SOCK_STREAM, true);
	s[4] = sock_at("bound/lnk/via", SOCK_STREAM, true);
	s[5] = sock_at("bound/named", SOCK_STREAM, true);

	/* The plan: top/alias (top/bound) bound as a directory, and
	 * top/bound/named as a file of its own (a toggle's socket). */
	at(named, "bound/named");
	at(p, "bound");
	plan[0] = (struct plan_entry){
	    .m = &ro, .path = alias, .isdir = 1, .fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC)};
	plan[1] = (struct plan_entry){
	    .m = &ro, .path = named, .isdir = 0, .fd = open(named, O_PATH | O_CLOEXEC)};
	plan_n = 2;
	assert_true(plan[0].fd >= 0 && plan[1].fd >= 0);
	assert_true(sockets_covered(&v));

	sockets_prepare(&v);
	c = fork();
	if (c == 0) { /* the parent of the jail, in the host's namespace */
		sockets_send();
		_exit(0);
	}
	assert_true(c > 0);
	for (int fd; (fd = sockets_next(what, sizeof(what))) >= 0;) {
		struct stat sb;

		assert_int_equal(fstat(fd, &sb), 0);
		assert_true(S_ISSOCK(sb.st_mode));
		close(fd);
		strcat(got, what);
		strcat(got, ";");
	}
	assert_int_equal(waitpid(c, &st, 0), c);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* In the list's order (the kernel's hash), so as a set. */
	assert_non_null(strstr(got, "l;"));
	assert_non_null(strstr(got, "sub/d;"));
	assert_int_equal(strlen(got), strlen("l;sub/d;"));

	for (int i = 0; i < 6; i++)
		close(s[i]);
	close(plan[0].fd);
	close(plan[1].fd);
	snprintf(p, sizeof(p), "rm -rf '%s'", top);
	assert_int_equal(system(p), 0);
}

/* A network of the host's: nothing covered (the jail reaches the host's
 * services over it anyway); Landlock's own rule from ABI 9. */
static void when(void **state)
{
	const struct aj_variant host = {.network = AJ_NET_HOST, .landlock = AJ_LANDLOCK_OFF};
	const struct aj_variant none = {.network = AJ_NET_NONE, .landlock = AJ_LANDLOCK_ON};

	(void)state;
	assert_false(sockets_covered(&host));
	assert_false(sockets_by_landlock(&host));
	assert_true(sockets_covered(&none)); /* landlock_abi() is 0 here */
	assert_false(sockets_by_landlock(&none));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(covers),
	    cmocka_unit_test(when),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
