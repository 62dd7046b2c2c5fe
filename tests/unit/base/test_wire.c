/* test_wire.c: the parent and pid 1's protocol (stub/base/wire.c) over the
 * stream socket pair proc/ns.c makes: every message goes round in the
 * protocol's order with its bytes and its fds (as new descriptors of the
 * same files, close-on-exec); a message that is not the one expected, cut
 * short, or missing because the peer is gone is refused, and the fds it
 * brought are closed, not left open in pid 1 or the parent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/base.h"

#define WIRE_FDS_TEST 8 /* the most one message carries (wire.c's WIRE_FDS) */

static int pair[2];

static int open_pair(void **state)
{
	(void)state;
	return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair);
}

static int close_pair(void **state)
{
	(void)state;
	if (pair[0] >= 0)
		close(pair[0]);
	if (pair[1] >= 0)
		close(pair[1]);
	return 0;
}

/* This process's open descriptors: a refused message must leave none. */
static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* Do a and b name the same open file? */
static void same_file(int a, int b)
{
	struct stat sa, sb;

	assert_int_equal(fstat(a, &sa), 0);
	assert_int_equal(fstat(b, &sb), 0);
	assert_true(sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino);
	assert_int_not_equal(a, b);
	assert_true(fcntl(b, F_GETFD) & FD_CLOEXEC); /* pid 1 execs: none leaks */
}

/* The scan as proc/ns.c sends it: four parts, the first read by
 * wire_recv and the rest by wire_read, with the cgroups' fds. */
struct head {
	uint32_t n, used;
	char tag[8];
};

static void send_scan(int sock, const struct head *h, const char *hits, const char *arena,
                      const int *fds, unsigned n_fds)
{
	int limits = 7;
	struct iovec iov[4] = {{(void *)h, sizeof(*h)},
	                       {(void *)hits, h->n},
	                       {(void *)arena, h->used},
	                       {&limits, sizeof(limits)}};

	assert_true(wire_send(sock, WIRE_SCAN, iov, 4, fds, n_fds));
}

static void every_message_in_order(void **state)
{
	struct head h = {.n = 5, .used = 11, .tag = "scan"}, got;
	int cg[2] = {open("/", O_RDONLY | O_CLOEXEC), open("/proc", O_RDONLY | O_CLOEXEC)};
	int l[WIRE_FDS_TEST], fds[8], err = 0, limits = 0;
	char hits[5], arena[11];
	struct iovec e = {&err, sizeof(err)};

	(void)state;
	for (int i = 0; i < WIRE_FDS_TEST; i++)
		l[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	/* parent -> pid 1: the scan, the network namespace; pid 1 -> parent:
	 * proxy, forwards, notify. */
	send_scan(pair[0], &h, "hits!", "arena-bytes", cg, 2);
	assert_true(wire_send(pair[0], WIRE_NET, &e, 1, &cg[1], 1));
	assert_true(wire_send(pair[1], WIRE_PROXY, NULL, 0, &l[0], 1));
	assert_true(wire_send(pair[1], WIRE_FORWARD, NULL, 0, l, WIRE_FDS_TEST));
	err = 95; /* EOPNOTSUPP: no listener, and why */
	assert_true(wire_send(pair[1], WIRE_NOTIFY, &e, 1, NULL, 0));

	assert_int_equal(wire_recv(pair[1], WIRE_SCAN, &got, sizeof(got), fds, 2), 2);
	assert_memory_equal(&got, &h, sizeof(h));
	assert_true(wire_read(pair[1], hits, got.n));
	assert_true(wire_read(pair[1], arena, got.used));
	assert_true(wire_read(pair[1], &limits, sizeof(limits)));
	assert_memory_equal(hits, "hits!", 5);
	assert_memory_equal(arena, "arena-bytes", 11);
	assert_int_equal(limits, 7);
	same_file(cg[0], fds[0]);
	same_file(cg[1], fds[1]);
	close(fds[0]);
	close(fds[1]);
	assert_int_equal(wire_recv(pair[1], WIRE_NET, &err, sizeof(err), fds, 1), 1);
	same_file(cg[1], fds[0]);
	close(fds[0]);

	assert_int_equal(wire_recv(pair[0], WIRE_PROXY, NULL, 0, fds, 1), 1);
	same_file(l[0], fds[0]);
	close(fds[0]);
	assert_int_equal(wire_recv(pair[0], WIRE_FORWARD, NULL, 0, fds, 8), WIRE_FDS_TEST);
	for (int i = 0; i < WIRE_FDS_TEST; i++) {
		same_file(l[i], fds[i]);
		close(fds[i]);
	}
	err = 0;
	assert_int_equal(wire_recv(pair[0], WIRE_NOTIFY, &err, sizeof(err), fds, 1), 0);
	assert_int_equal(err, 95);
	for (int i = 0; i < WIRE_FDS_TEST; i++)
		close(l[i]);
	close(cg[0]);
	close(cg[1]);
}

/* The notify message with its listener, the one case of a payload and
 * an fd from pid 1. */
static void notify_with_listener(void **state)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC), err = 0, got = -1;
	struct iovec e = {&err, sizeof(err)};

	(void)state;
	assert_true(wire_send(pair[1], WIRE_NOTIFY, &e, 1, &fd, 1));
	err = -1;
	assert_int_equal(wire_recv(pair[0], WIRE_NOTIFY, &err, sizeof(err), &got, 1), 1);
	assert_int_equal(err, 0);
	same_file(fd, got);
	close(got);
	close(fd);
}

/* pid 1 waits for the scan and gets the proxy's message: refused, and
 * the listener it carried is closed, not kept. */
static void another_message_refused(void **state)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC), fds[2] = {-1, -1};
	struct head got;
	int before;

	(void)state;
	assert_true(wire_send(pair[0], WIRE_PROXY, NULL, 0, &fd, 1));
	close(fd);
	close(pair[0]); /* so that a receiver that took it would fail, not wait */
	pair[0] = -1;
	before = open_fds();
	assert_int_equal(wire_recv(pair[1], WIRE_SCAN, &got, sizeof(got), fds, 2), -1);
	assert_int_equal(open_fds(), before);
}

/* The forwards before the proxy: the parent reads them in the order the
 * protocol says, and the forwards' tag is not the proxy's. */
static void reordered_refused(void **state)
{
	int l[2] = {open("/dev/null", O_RDONLY | O_CLOEXEC),
	            open("/dev/null", O_RDONLY | O_CLOEXEC)};
	int fds[8], before;

	(void)state;
	assert_true(wire_send(pair[1], WIRE_FORWARD, NULL, 0, l, 2));
	assert_true(wire_send(pair[1], WIRE_PROXY, NULL, 0, l, 1));
	close(l[0]);
	close(l[1]);
	close(pair[1]);
	pair[1] = -1;
	before = open_fds();
	assert_int_equal(wire_recv(pair[0], WIRE_PROXY, NULL, 0, fds, 1), -1);
	assert_int_equal(open_fds(), before);
}

/* The sender dies halfway through the scan's header: refused, not read
 * as a whole header with stale bytes after. */
static void truncated_refused(void **state)
{
	struct head h = {.n = 1, .used = 1, .tag = "cut"}, got;
	int fds[2], before;
	uint8_t tag = WIRE_SCAN;
	struct iovec iov[2] = {{&tag, 1}, {&h, sizeof(h) / 2}};
	struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 2};

	(void)state;
	assert_int_equal(sendmsg(pair[0], &msg, 0), (ssize_t)(1 + sizeof(h) / 2));
	close(pair[0]);
	pair[0] = -1;
	before = open_fds();
	assert_int_equal(wire_recv(pair[1], WIRE_SCAN, &got, sizeof(got), fds, 2), -1);
	assert_int_equal(open_fds(), before);
}

/* A message cut short and the next one behind it, on a stream: the
 * receiver never takes both, so the cut one cannot pass for whole with
 * the next one's bytes while the next is then read as well. */
static void truncated_then_next_not_both(void **state)
{
	struct head h = {.n = 1, .used = 1, .tag = "cut"}, got;
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC), fds[2], r1, r2, before;
	uint8_t tag = WIRE_SCAN;
	struct iovec iov[2] = {{&tag, 1}, {&h, sizeof(h) / 2}};
	struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 2};
	int err = 0;
	struct iovec e = {&err, sizeof(err)};

	(void)state;
	assert_int_equal(sendmsg(pair[0], &msg, 0), (ssize_t)(1 + sizeof(h) / 2));
	assert_true(wire_send(pair[0], WIRE_NOTIFY, &e, 1, &fd, 1));
	close(fd);
	close(pair[0]);
	pair[0] = -1;
	before = open_fds();
	r1 = wire_recv(pair[1], WIRE_SCAN, &got, sizeof(got), fds, 2);
	if (r1 >= 0)
		while (r1)
			close(fds[--r1]);
	r2 = wire_recv(pair[1], WIRE_NOTIFY, &err, sizeof(err), fds, 1);
	if (r2 > 0)
		close(fds[0]);
	assert_false(r1 >= 0 && r2 >= 0);
	assert_int_equal(open_fds(), before);
}

/* Nothing comes: the other side is gone. */
static void peer_gone_refused(void **state)
{
	int fd;

	(void)state;
	close(pair[0]);
	pair[0] = -1;
	assert_int_equal(wire_recv(pair[1], WIRE_PROXY, NULL, 0, &fd, 1), -1);
	assert_false(wire_read(pair[1], &fd, sizeof(fd)));
}

/* More fds than the receiver takes: it keeps max and closes the rest. */
static void extra_fds_closed(void **state)
{
	int l[8], fds[2], before;

	(void)state;
	for (int i = 0; i < 8; i++)
		l[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(wire_send(pair[1], WIRE_FORWARD, NULL, 0, l, 8));
	for (int i = 0; i < 8; i++)
		close(l[i]);
	before = open_fds();
	assert_int_equal(wire_recv(pair[0], WIRE_FORWARD, NULL, 0, fds, 2), 2);
	assert_int_equal(open_fds(), before + 2);
	close(fds[0]);
	close(fds[1]);
}

/* What one message cannot carry is refused before anything is sent. */
static void over_capacity_refused(void **state)
{
	int l[9] = {0}, fd;
	struct iovec iov[WIRE_IOVS + 1] = {{0}};

	(void)state;
	errno = 0;
	assert_false(wire_send(pair[0], WIRE_FORWARD, NULL, 0, l, 9));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_false(wire_send(pair[0], WIRE_SCAN, iov, WIRE_IOVS + 1, NULL, 0));
	assert_int_equal(errno, EINVAL);
	/* Nothing went: the peer reads end of stream once we close. */
	close(pair[0]);
	pair[0] = -1;
	assert_int_equal(wire_recv(pair[1], WIRE_FORWARD, NULL, 0, &fd, 1), -1);
}

/* A peer that closed: send says so (EPIPE), and does not kill us. */
static void send_to_gone_peer(void **state)
{
	(void)state;
	close(pair[1]);
	pair[1] = -1;
	assert_false(wire_send(pair[0], WIRE_PROXY, NULL, 0, NULL, 0));
	assert_int_equal(errno, EPIPE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(every_message_in_order, open_pair, close_pair),
	    cmocka_unit_test_setup_teardown(notify_with_listener, open_pair, close_pair),
	    cmocka_unit_test_setup_teardown(another_message_refused, open_pair, close_pair),
	    cmocka_unit_test_setup_teardown(reordered_refused, open_pair, close_pair),
	    cmocka_unit_test_setup_teardown(truncated_refused, open_pair, close_pair),
	    cmocka_unit_test_setup_teardown(truncated_then_next_not_both, open_pair, close_pair),
	    cmocka_unit_test_setup_teardown(peer_gone_refused, open_pair, close_pair),
	    cmocka_unit_test_setup_teardown(extra_fds_closed, open_pair, close_pair),
	    cmocka_unit_test_setup_teardown(over_capacity_refused, open_pair, close_pair),
	    cmocka_unit_test_setup_teardown(send_to_gone_peer, open_pair, close_pair),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
