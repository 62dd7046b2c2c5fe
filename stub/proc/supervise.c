/* supervise.c: the two waiting processes and the target's exec.
 *
 *   parent (the caller's process, outside every namespace but the user
 *   one): forwards signals to pid 1, exits with pid 1's status;
 *
 *   pid 1 (confined like the target): reaps every orphan, forwards signals
 *   to the target's process group, enforces the timeout, exits with the
 *   target's status (128+signal when it was killed).
 *
 * Signals are blocked and taken synchronously with sigwaitinfo(): no
 * handler, no race between a signal and the wait.  pid 1 of a namespace
 * ignores signals it has no handler for, but only when they are delivered;
 * a blocked signal is always queued, so pid 1 sees what the parent
 * forwards.  It sees as well what any process of the jail sends it: those
 * are forwarded too (the sender could signal the target itself), never
 * ignored, because the kernel keeps one pending instance of a standard
 * signal and drops the rest: a process that kept one of its own pending
 * would swallow the caller's.  The same rule makes the timeout a matter of
 * the clock, not of who sent a SIGALRM.
 *
 * No process of the jail can signal the parent: it is outside their pid
 * namespace (and outside the Landlock domain, where ABI 6 scopes signals). */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>

#include "proc/proc.h"

sigset_t supervise_sig_orig;
sigset_t supervise_sig_wait;
pid_t supervise_helper;

static const int forwarded[] = {SIGINT,  SIGTERM, SIGHUP,   SIGQUIT,
                                SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT};

/* The kernel's struct sigaction: SIG_DFL needs no restorer, so the raw
 * call does, without musl's sigaction() and its machinery. */
struct k_sigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	uint64_t mask;
};

/* The caller: when it dies, the jail goes with it (what an orchestrator
 * started, a killed agent's command), whether or not the target ever
 * reads its stdin.  The kernel tells us with a signal of our own. */
#define SIG_CALLER_GONE SIGRTMAX
static pid_t caller;

void supervise_block(void)
{
	struct k_sigaction sa = {.handler = SIG_DFL};

	sigemptyset(&supervise_sig_wait);
	for (unsigned i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&supervise_sig_wait, forwarded[i]);
	sigaddset(&supervise_sig_wait, SIGCHLD);
	sigaddset(&supervise_sig_wait, SIGALRM);
	sigaddset(&supervise_sig_wait, SIG_CALLER_GONE);
	/* An inherited SIG_IGN for SIGCHLD would make the kernel reap our
	 * children itself, and their exit status would be lost. */
	if (syscall(SYS_rt_sigaction, SIGCHLD, &sa, NULL, sizeof(sa.mask)) ||
	    sigprocmask(SIG_BLOCK, &supervise_sig_wait, &supervise_sig_orig))
		die("block signals", errno, NULL);
	caller = getppid();
	if (prctl(PR_SET_PDEATHSIG, SIG_CALLER_GONE, 0, 0, 0))
		die("follow the caller", errno, NULL);
	if (getppid() != caller)
		die("follow the caller", 0, "it ended before the jail started");
}

static int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

static int next_signal(void)
{
	for (;;) {
		int sig = sigwaitinfo(&supervise_sig_wait, NULL);

		if (sig > 0)
			return sig;
		if (errno != EINTR)
			die("wait for signals", errno, NULL);
	}
}

/* What the parent does with one signal; it ends the run when pid 1 has
 * ended.  pid 1 is reaped, never left to an init that in many containers
 * never reaps; that wait includes the teardown of the jail's namespaces. */
void supervise_signal(pid_t child, int sig)
{
	int status;
	pid_t p;

	if (sig == SIGALRM)
		return;
	if (sig == SIG_CALLER_GONE) {
		/* Sent by the kernel, or by a host process of ours that could
		 * have killed the jail anyway. */
		if (getppid() != caller)
			kill(child, SIGKILL);
		return;
	}
	if (sig != SIGCHLD) {
		/* A size set on the jail's pseudo-terminal: the kernel
		 * tells its foreground group, once. */
		if (sig == SIGWINCH && term_winch())
			return;
		if (sig == SIGCONT)
			term_cont();
		kill(child, sig);
		return;
	}
	p = waitpid(child, &status, WNOHANG);
	if (p < 0)
		die("wait for the jail", errno, NULL);
	if (p == child && (WIFEXITED(status) || WIFSIGNALED(status))) {
		TRACE_MARK("reaped");
		term_end(); /* before the report, which is written to the caller's stderr */
		proxy_end();
		forward_end();
		refusals_report();
		limits_release();
		if (die_cleanup)
			die_cleanup(); /* the fallback's private directory */
		status_report(exit_code(status), NULL, NULL);
		TRACE_MARK("report");
		TRACE_FLUSH();
		/* Last: it may close every descriptor, stderr too. */
		appear_end();
		_exit(exit_code(status));
	}
}

/* The signals as a descriptor, for a parent that also polls (a listener,
 * the proxy); supervise_signals_take() handles what it has. */
int supervise_signal_fd(void)
{
	int sfd = signalfd(-1, &supervise_sig_wait, SFD_CLOEXEC | SFD_NONBLOCK);

	if (sfd < 0)
		die("wait for the jail", errno, NULL);
	return sfd;
}

void supervise_signals_take(pid_t child, int sfd)
{
	struct signalfd_siginfo si;

	while (read(sfd, &si, sizeof(si)) == sizeof(si))
		supervise_signal(child, (int)si.ssi_signo);
}

/* The parent's one loop: the signals (through a signalfd) and every
 * source registered (the refusal listener, the proxy, …), in one poll.
 * The sources first, so that a refusal that came with the target's end
 * is counted before the report. */
#define LOOP_FDS 640 /* 1 + the proxy 129 + its names 259 + the forwards 144 + the rest */

noreturn void supervise_parent(pid_t child, const struct ev_source *const *src, unsigned n_src)
{
	static struct pollfd p[LOOP_FDS];
	unsigned at[LOOP_SOURCES + 1];
	int sfd = supervise_signal_fd();

	if (n_src > LOOP_SOURCES)
		die("wait for the jail", EINVAL, "too many event sources");
	for (;;) {
		unsigned n = 1;

		p[0] = (struct pollfd){.fd = sfd, .events = POLLIN};
		for (unsigned i = 0; i < n_src; i++) {
			at[i] = n;
			n += src[i]->fill(p + n, LOOP_FDS - n);
		}
		at[n_src] = n;
		if (poll(p, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("wait for the jail", errno, NULL);
		}
		for (unsigned i = 0; i < n_src; i++)
			src[i]->serve(p + at[i], at[i + 1] - at[i]);
		if (p[0].revents)
			supervise_signals_take(child, sfd);
	}
}

static noreturn void exec_failed(const char *cmd, int err)
{
	const char *why = err == ENOENT && !strchr(cmd, '/') ? "command not found" : strerror(err);

	status_notran(err, why);
	out_fd(2);
	out_s(aj_progname);
	out_s(": ");
	out_s(cmd);
	out_s(": ");
	out_s(why);
	out_c('\n');
	out_flush();
	_exit(err == ENOENT ? AJ_EXIT_NOTFOUND : AJ_EXIT_CANNOT);
}

/* execvpe(3) as env(1) has it, but searching the jail's PATH rather than
 * the caller's: EACCES on one candidate is remembered and reported only if
 * no later candidate runs. */
static noreturn void target_exec(const struct run *r)
{
	const char *cmd = r->argv[0];
	const char *path = env_get(r->envp, "PATH");
	size_t cl = strlen(cmd);
	char buf[AJ_PATH_MAX];
	int err = ENOENT;

	if (setsid() < 0)
		die("start a new session", errno, NULL);
	term_ctty();
	if (sigprocmask(SIG_SETMASK, &supervise_sig_orig, NULL))
		die("unblock signals", errno, NULL);
	TRACE_MARK("session");
	TRACE_FLUSH();
	if (strchr(cmd, '/')) {
		execve(cmd, r->argv, r->envp);
		exec_failed(cmd, errno);
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (;;) {
		const char *end = strchrnul(path, ':');
		const char *dir = end > path ? path : "."; /* an empty entry is the cwd */
		size_t dl = end > path ? (size_t)(end - path) : 1;

		if (*cmd && dl + 1 + cl < sizeof(buf)) {
			memcpy(buf, dir, dl);
			buf[dl] = '/';
			memcpy(buf + dl + 1, cmd, cl + 1);
			execve(buf, r->argv, r->envp);
			if (errno == EACCES)
				err = EACCES;
			else if (errno != ENOENT && errno != ENOTDIR)
				exec_failed(cmd, errno);
		}
		if (!*end)
			break;
		path = end + 1;
	}
	exec_failed(cmd, err);
}

/* The target shares pid 1's memory until it execs (CLONE_VM | CLONE_VFORK,
 * as posix_spawn does it): no page tables to copy, no copy-on-write faults
 * after, and pid 1 sleeps meanwhile.  It runs on a stack of its own. */
static char target_stack[16384] __attribute__((aligned(16)));

static int target_main(void *r)
{
	TRACE_WHO("target");
	target_exec(r);
}

extern char **environ;

/* The caller's variables are still in pid 1's memory: the strings the
 * kernel laid on the stack at exec, which /proc/1/environ and /proc/1/mem
 * read.  pid 1 is not dumpable (ns_enter), so neither opens from inside;
 * still, before the target exists, every string its environment does not
 * point at is overwritten.  Those it keeps are the target's own. */
static void forget_environment(char **keep)
{
	for (char **h = environ; h && *h; h++) {
		char **k = keep;

		while (*k && *k != *h)
			k++;
		if (!*k)
			explicit_bzero(*h, strlen(*h));
	}
	environ = keep;
}

static struct timespec now(void)
{
	struct timespec t;

	/* The raw call: musl's clock_gettime brings its vDSO lookup. */
	if (syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t))
		die("read the clock", errno, NULL);
	return t;
}

/* alarm() runs on the monotonic clock: its SIGALRM comes at the deadline
 * or after it. */
static bool past(const struct timespec *deadline)
{
	struct timespec t = now();

	return t.tv_sec > deadline->tv_sec ||
	       (t.tv_sec == deadline->tv_sec && t.tv_nsec >= deadline->tv_nsec);
}

noreturn void supervise_init(const struct run *r)
{
	struct timespec deadline = {0};
	pid_t target;

	if (r->v->timeout) {
		deadline = now();
		deadline.tv_sec += r->v->timeout;
		alarm(r->v->timeout);
	}
	forget_environment(r->envp);
	if (publish_keep() >= 0)
		sigaddset(&supervise_sig_wait, SIGIO); /* blocked by publish_arm() */
	target = clone(target_main, target_stack + sizeof(target_stack),
	               CLONE_VM | CLONE_VFORK | SIGCHLD, (void *)r);
	if (target < 0)
		die("start the target", errno, NULL);
	status_ran();
	for (;;) {
		int sig = next_signal(), status;
		pid_t p;

		/* kill -ALRM 1 from inside is no timeout; and when the
		 * timer's own SIGALRM was dropped because one sent from
		 * inside was pending, that one comes after the deadline. */
		if (sig == SIGALRM) {
			if (!r->v->timeout || !past(&deadline))
				continue;
			/* Without a pid namespace (fallback.c), -1 would be
			 * every process of the user: the target's group. */
			status_timeout();
			kill(run_in_fallback(r) ? -target : -1, SIGKILL);
			_exit(AJ_EXIT_TIMEOUT);
		}
		if (sig == SIGIO && publish_keep() >= 0) {
			publish_serve();
			continue;
		}
		if (sig != SIGCHLD) {
			/* As a terminal would: the whole foreground group. */
			if (kill(-target, sig) && errno == ESRCH)
				kill(target, sig);
			continue;
		}
		/* When pid 1 exits, the kernel kills what is left of the
		 * namespace and waits for it: nothing of the jail outlives
		 * the status the caller gets. */
		while ((p = waitpid(-1, &status, WNOHANG | WUNTRACED)) > 0) {
			/* The coverer ends on its own only with 0 (a warning
			 * said why); killed or stopped from inside (below
			 * Landlock ABI 6 a process of the same user may), or
			 * failed to cover, the jail ends rather than let new
			 * secrets go uncovered. */
			if (p == supervise_helper && supervise_helper > 0) {
				if (WIFEXITED(status) && !WEXITSTATUS(status)) {
					supervise_helper = 0;
					continue;
				}
				kill(-1, SIGKILL);
				die("cover what appears in the project", 0,
				    WIFEXITED(status)
				        ? "the process that covers it failed"
				        : "the process that covers it was killed or stopped");
			}
			if (p == target && (WIFEXITED(status) || WIFSIGNALED(status))) {
				/* The target wrote into this memory (CLONE_VM). */
				TRACE_WHO("init");
				TRACE_MARK("target-ended");
				if (run_in_fallback(r)) /* no pid namespace to end the rest */
					kill(-target, SIGKILL);
				status_end(status);
				TRACE_MARK("status-end");
				TRACE_FLUSH();
				_exit(exit_code(status));
			}
		}
		if (p < 0 && errno != ECHILD)
			die("wait for the target", errno, NULL);
	}
}
