/* test_notify.c: the refused calls told to the parent
 * (stub/notify/notify.c, with stub/notify/verdict.c's reading of the filter): a child
 * of the test installs a small filter through notify_filter(), as pid 1
 * does, hands the listener over the socket pair as pid 1 does, and makes
 * calls; the test, as the parent, answers them with notify_answer().  The
 * child gets, for each call, the errno the unchanged filter returns (an
 * errno of 0 as EPERM, never a success); a quiet refusal (ENOSYS) and an
 * allowed call never reach the parent; a call refused by an argument is
 * refused only for that argument.  refusals.c is a fake that records.
 * Nothing needs root: the filter is the child's own, under
 * no_new_privs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>
#include <sys/uio.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "notify/notify.h"

noreturn void diep(const char *step, const char *what, int err, const char *hint)
{
	(void)step, (void)what, (void)err, (void)hint;
	fail();
	abort();
}

noreturn void die(const char *step, int err, const char *hint)
{
	diep(step, NULL, err, hint);
}

/* ---- refusals.c, recorded ------------------------------------------------- */

static int listener_err = -1;
static char calls[256]; /* "NR:ERRNO " each */

void refusals_listener(const struct aj_variant *v, int err)
{
	(void)v;
	listener_err = err;
}

void refusals_call(unsigned nr, int err)
{
	snprintf(calls + strlen(calls), sizeof(calls) - strlen(calls), "%u:%d ", nr, err);
}

/* ---- the filter ----------------------------------------------------------- */

#define LD_ABS(off)                                                                                \
	{                                                                                          \
		BPF_LD | BPF_W | BPF_ABS, 0, 0, (off)                                              \
	}
#define JEQ(k, jt, jf)                                                                             \
	{                                                                                          \
		BPF_JMP | BPF_JEQ | BPF_K, (jt), (jf), (k)                                         \
	}
#define RET(k)                                                                                     \
	{                                                                                          \
		BPF_RET | BPF_K, 0, 0, (k)                                                         \
	}
#define ERRNO(e) (SECCOMP_RET_ERRNO | (e))
#define NR_OFF   offsetof(struct seccomp_data, nr)
#define ARCH_OFF offsetof(struct seccomp_data, arch)
#define ARG0_LO  offsetof(struct seccomp_data, args[0])

/* getppid: EACCES; getpgrp: an errno of 0; getsid: ENOSYS, the quiet
 * one; uname(NULL): EFAULT, uname(buf) allowed; another arch: EPERM;
 * everything else allowed. */
static const struct aj_bpf_insn prog[] = {
    LD_ABS(ARCH_OFF),       JEQ(AUDIT_ARCH_X86_64, 1, 0), RET(ERRNO(EPERM)),      LD_ABS(NR_OFF),
    JEQ(SYS_getppid, 0, 1), RET(ERRNO(EACCES)),           JEQ(SYS_getpgrp, 0, 1), RET(ERRNO(0)),
    JEQ(SYS_getsid, 0, 1),  RET(ERRNO(ENOSYS)),           JEQ(SYS_uname, 0, 3),   LD_ABS(ARG0_LO),
    JEQ(0, 0, 1),           RET(ERRNO(EFAULT)),           RET(SECCOMP_RET_ALLOW),
};

static const struct aj_filter filter = {prog, sizeof(prog) / sizeof(prog[0])};
static const uint16_t refused[] = {SYS_getppid};
static const struct aj_variant variant = {
    .filters = &filter, .n_filters = 1, .refused = refused, .n_refused = 1};

/* ---- the child, pid 1 and its target in one -------------------------------- */

/* What the child's calls returned, "NAME=RESULT/ERRNO " each. */
static void calls_of_the_target(int out)
{
	char buf[512] = "";
	struct utsname u;
	long r;

#define CALL(name, ...)                                                                            \
	do {                                                                                       \
		errno = 0;                                                                         \
		r = syscall(__VA_ARGS__);                                                          \
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s=%ld/%d ", name,         \
		         r < 0 ? -1L : 0L, r < 0 ? errno : 0);                                     \
	} while (0)
	CALL("getppid", SYS_getppid);
	CALL("getpgrp", SYS_getpgrp);
	CALL("getsid", SYS_getsid, 0);
	CALL("uname(NULL)", SYS_uname, NULL);
	CALL("uname(buf)", SYS_uname, &u);
	CALL("getppid", SYS_getppid);
#undef CALL
	if (write(out, buf, strlen(buf)) < 0)
		_exit(2);
}

static pid_t child;
static int results = -1;

/* The child installs the filter and hands the listener (or why none) to
 * the test; its calls' results come back on a pipe. */
static int start(void **state)
{
	int sp[2], rp[2];

	(void)state;
	calls[0] = '\0';
	listener_err = -1;
	notify_fd = -1;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp), 0);
	assert_int_equal(pipe2(rp, O_CLOEXEC), 0);
	child = fork();
	assert_true(child >= 0);
	if (!child) {
		int err, fd;

		close(sp[0]);
		close(rp[0]);
		prctl(PR_SET_PDEATHSIG, 9);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
			_exit(3);
		fd = notify_filter(&variant, &err);
		struct iovec iov = {&err, sizeof(err)};

		if (!wire_send(sp[1], WIRE_NOTIFY, &iov, 1, &fd, fd >= 0))
			_exit(4);
		close(sp[1]);
		if (fd < 0)
			_exit(5);
		close(fd);
		calls_of_the_target(rp[1]);
		_exit(0);
	}
	close(sp[1]);
	close(rp[1]);
	results = rp[0];
	notify_start(&variant, sp[0]);
	close(sp[0]);
	return 0;
}

static int stop(void **state)
{
	(void)state;
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(results);
	if (notify_fd >= 0)
		close(notify_fd);
	return 0;
}

/* Answer the child until it is done; its results. */
static const char *serve(void)
{
	static char buf[512];
	size_t n = 0;

	for (;;) {
		struct pollfd p[2] = {{.fd = notify_fd, .events = POLLIN},
		                      {.fd = results, .events = POLLIN}};
		ssize_t r;

		assert_true(poll(p, 2, 3000) > 0);
		if (p[0].revents & POLLIN)
			notify_answer();
		if (!p[1].revents)
			continue;
		r = read(results, buf + n, sizeof(buf) - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	return buf;
}

static void answers(void **state)
{
	char want[128];

	(void)state;
	if (notify_fd < 0) {
		print_message("SKIP: no seccomp listener here (errno %d)\n", listener_err);
		skip();
	}
	assert_int_equal(listener_err, 0);
	assert_string_equal(serve(), "getppid=-1/13 getpgrp=-1/1 getsid=-1/38 uname(NULL)=-1/14 "
	                             "uname(buf)=0/0 getppid=-1/13 ");
	/* Only what went through the parent is counted: not the quiet
	 * ENOSYS, not the allowed call. */
	snprintf(want, sizeof(want), "%d:13 %d:1 %d:14 %d:13 ", SYS_getppid, SYS_getpgrp, SYS_uname,
	         SYS_getppid);
	assert_string_equal(calls, want);
}

/* No listener, and nothing installed, where there is nothing to report or
 * the program has an instruction verdict.c does not know. */
static void no_listener(void **state)
{
	static const struct aj_bpf_insn quiet[] = {LD_ABS(NR_OFF), JEQ(SYS_getsid, 0, 1),
	                                           RET(ERRNO(ENOSYS)), RET(SECCOMP_RET_ALLOW)};
	static const struct aj_bpf_insn odd[] = {
	    LD_ABS(NR_OFF), {BPF_LDX | BPF_W | BPF_MEM, 0, 0, 0}, RET(ERRNO(EACCES))};
	struct aj_filter fq = {quiet, 4}, fo = {odd, 3};
	struct aj_variant v = variant;
	int err = -1;

	(void)state;
	v.n_refused = 0;
	assert_int_equal(notify_filter(&v, &err), -1);
	assert_int_equal(err, 0);
	v = variant;
	v.filters = &fq;
	assert_int_equal(notify_filter(&v, &err), -1);
	assert_int_equal(err, 0);
	v.filters = &fo;
	assert_int_equal(notify_filter(&v, &err), -1);
	assert_int_equal(err, ENOEXEC);
	/* The test process itself runs under no filter still. */
	assert_int_equal(prctl(PR_GET_SECCOMP, 0, 0, 0, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(answers, start, stop),
	    cmocka_unit_test(no_listener),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
