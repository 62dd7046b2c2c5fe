/* test_supervise.c: what the parent does with each signal
 * (stub/proc/supervise.c, supervise_signal): the caller's signals go to
 * pid 1, a size change to the terminal alone when it takes it, a child
 * that still runs is not reaped, pid 1's end tears down in order and
 * exits with its status (128+N for a signal), and the caller's death
 * kills the jail only when the caller is really gone.  The rooms the
 * parent calls at the end are stand-ins here that log their names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc/proc.h"

/* ---- stand-ins for what supervise.c calls in other rooms ------------- */

static int log_fd = -1;
static bool winch_taken, cont_seen;

static void logs(const char *s)
{
	if (log_fd >= 0 && write(log_fd, s, strlen(s)) < 0)
		abort();
}

const struct aj_policy *const aj_the_policy = NULL;
void (*die_cleanup)(void);
noreturn void die(const char *step, int err, const char *hint)
{
	(void)err;
	(void)hint;
	fprintf(stderr, "die: %s\n", step);
	abort();
}
const char *env_get(char *const *envp, const char *name)
{
	(void)envp;
	(void)name;
	return NULL;
}
bool run_in_fallback(const struct run *r)
{
	(void)r;
	return false;
}
void proxy_end(void)
{
	logs("proxy_end ");
}
void forward_end(void)
{
	logs("forward_end ");
}
int publish_keep(void)
{
	return -1;
}
void publish_serve(void)
{
}
void refusals_report(void)
{
	logs("refusals_report ");
}
void limits_release(void)
{
	logs("limits_release ");
}
void appear_end(void)
{
	logs(" appear_end");
}
void status_ran(void)
{
}
void status_notran(int err, const char *cause)
{
	(void)err;
	(void)cause;
}
void status_end(int wstatus)
{
	(void)wstatus;
}
void status_timeout(void)
{
}
void status_report(int code, const char *step, const char *cause)
{
	char b[48];

	(void)step;
	(void)cause;
	snprintf(b, sizeof(b), "status_report %d", code);
	logs(b);
}
void term_ctty(void)
{
}
bool term_winch(void)
{
	return winch_taken;
}
void term_cont(void)
{
	cont_seen = true;
}
void term_end(void)
{
	logs("term_end ");
}
static void cleanup(void)
{
	logs("cleanup ");
}

/* ---- children --------------------------------------------------------- */

/* A stand-in pid 1 that holds every signal and, when SIGTERM comes, says
 * which of want is pending: exit 1 if it is, 0 if not. */
static pid_t holder(int want)
{
	sigset_t all;
	pid_t c;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL); /* before fork: nothing slips by */
	c = fork();
	if (c == 0) {
		sigset_t term, pending;

		sigemptyset(&term);
		sigaddset(&term, SIGTERM);
		while (sigwaitinfo(&term, NULL) != SIGTERM)
			;
		sigpending(&pending);
		_exit(sigismember(&pending, want) ? 1 : 0);
	}
	sigprocmask(SIG_UNBLOCK, &all, NULL);
	assert_true(c > 0);
	return c;
}

static int holder_end(pid_t c)
{
	int st;

	assert_int_equal(kill(c, SIGTERM), 0);
	assert_int_equal(waitpid(c, &st, 0), c);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* The caller's signals reach pid 1; SIGALRM (the timeout's tick) is the
 * parent's own. */
static void forwards(void **state)
{
	pid_t c;

	(void)state;
	winch_taken = false;
	c = holder(SIGUSR1);
	supervise_signal(c, SIGUSR1);
	assert_int_equal(holder_end(c), 1);
	c = holder(SIGALRM);
	supervise_signal(c, SIGALRM);
	assert_int_equal(holder_end(c), 0);
	c = holder(SIGHUP);
	supervise_signal(c, SIGHUP);
	assert_int_equal(holder_end(c), 1);
}

/* A size change: the terminal's when it takes it (the kernel tells the
 * foreground group once), pid 1's when there is no terminal. */
static void winch(void **state)
{
	pid_t c;

	(void)state;
	winch_taken = true;
	c = holder(SIGWINCH);
	supervise_signal(c, SIGWINCH);
	assert_int_equal(holder_end(c), 0);
	winch_taken = false;
	c = holder(SIGWINCH);
	supervise_signal(c, SIGWINCH);
	assert_int_equal(holder_end(c), 1);
	cont_seen = false;
	c = holder(SIGCONT);
	supervise_signal(c, SIGCONT);
	assert_true(cont_seen);
	assert_int_equal(holder_end(c), 1);
}

/* SIGCHLD while pid 1 runs (another child of ours, or a stop): no reap,
 * no report, the parent goes on. */
static void child_running(void **state)
{
	pid_t c;

	(void)state;
	c = holder(SIGCHLD);
	supervise_signal(c, SIGCHLD);
	assert_int_equal(holder_end(c), 0);
}

/* In a process of its own (it exits): pid 1 ends with how, the parent
 * tears down in order and exits with pid 1's code.  What it logged. */
static void reap(int how, int *code, char *logged, size_t n)
{
	int lp[2], st;
	pid_t p;
	ssize_t got;

	assert_int_equal(pipe(lp), 0);
	p = fork();
	if (p == 0) {
		siginfo_t si;
		pid_t c = fork();

		if (c == 0) {
			if (how < 0)
				for (;;)
					pause();
			_exit(how);
		}
		close(lp[0]);
		log_fd = lp[1];
		die_cleanup = cleanup;
		if (how < 0)
			kill(c, -how);
		/* Ended, and not yet reaped: what SIGCHLD tells the parent. */
		waitid(P_PID, (id_t)c, &si, WEXITED | WNOWAIT);
		supervise_signal(c, SIGCHLD);
		_exit(250); /* not reached: supervise_signal exits */
	}
	close(lp[1]);
	got = read(lp[0], logged, n - 1);
	for (ssize_t r = got; r > 0 && (size_t)got<n - 1; got += r> 0 ? r : 0)
		r = read(lp[0], logged + got, n - 1 - (size_t)got);
	logged[got > 0 ? got : 0] = '\0';
	close(lp[0]);
	assert_int_equal(waitpid(p, &st, 0), p);
	assert_true(WIFEXITED(st));
	*code = WEXITSTATUS(st);
}

static void reaped_in_order(void **state)
{
	char logged[256];
	int code;

	(void)state;
	reap(3, &code, logged, sizeof(logged));
	assert_int_equal(code, 3);
	/* The hand-over of the inotify instance last: it closes stderr. */
	assert_string_equal(logged, "term_end proxy_end forward_end refusals_report "
	                            "limits_release cleanup status_report 3 appear_end");
	reap(-SIGKILL, &code, logged, sizeof(logged));
	assert_int_equal(code, 128 + SIGKILL);
	assert_string_equal(logged + strlen(logged) - strlen("status_report 137 appear_end"),
	                    "status_report 137 appear_end");
}

/* The caller's death: the jail goes with it, but the same signal sent
 * while the caller lives (by a host process of ours) kills nothing.  A
 * caller that ends reparents the parent; this test is the subreaper that
 * then adopts it, so the parent's end can be read. */
static void caller_gone(void **state)
{
	int ready[2], st;
	pid_t g, p;

	(void)state;
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	assert_int_equal(pipe(ready), 0);
	g = fork();
	if (g == 0) { /* the caller */
		char b;

		if (fork() == 0) { /* the parent */
			pid_t c, g0 = getppid();
			int cs;

			close(ready[0]);
			supervise_block();
			c = fork();
			if (c == 0)
				for (;;)
					pause();
			supervise_signal(c, SIGRTMAX); /* the caller lives */
			if (waitpid(c, &cs, WNOHANG) != 0)
				_exit(10);
			if (write(ready[1], "r", 1) != 1)
				_exit(11);
			while (getppid() == g0) /* until the caller is gone */
				sched_yield();
			supervise_signal(c, SIGRTMAX);
			if (waitpid(c, &cs, 0) != c || !WIFSIGNALED(cs) || WTERMSIG(cs) != SIGKILL)
				_exit(12);
			_exit(0);
		}
		close(ready[1]);
		if (read(ready[0], &b, 1) != 1)
			_exit(13);
		_exit(0);
	}
	close(ready[1]);
	close(ready[0]);
	assert_int_equal(waitpid(g, &st, 0), g);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* The parent, adopted by us now. */
	p = wait(&st);
	assert_true(p > 0);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(forwards),      cmocka_unit_test(winch),
	    cmocka_unit_test(child_running), cmocka_unit_test(reaped_in_order),
	    cmocka_unit_test(caller_gone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
