/* die.c: one error format, in the style of skarnet's tools:
 *   PROGNAME: fatal: unable to STEP: REASON: HINT
 * (PROGNAME: aj_policy.progname), and one exit code (125) for every
 * failure before the target runs, so that nothing half-built is ever
 * executed. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/base.h"

int die_reap;           /* the parent's pid 1, killed and reaped by die() */
void (*die_undo)(void); /* then removes what the parent made for it */
void (*die_cleanup)(void);
void (*die_term)(void);
void (*die_status)(const char *step, const char *what, int err, const char *hint);

noreturn void diep(const char *step, const char *what, int err, const char *hint)
{
	/* Before the message: a raw terminal would print it askew. */
	if (die_term)
		die_term();
	out_fd(2);
	out_s(aj_progname);
	out_s(": fatal: unable to ");
	out_s(step);
	if (what) {
		out_c(' ');
		out_s(what);
	}
	if (err) {
		out_s(": ");
		out_s(strerror(err));
	}
	if (hint && *hint) {
		out_s(": ");
		out_s(hint);
	}
	out_c('\n');
	out_flush();
	/* Not left as an orphan: some inits never reap. */
	if (die_reap > 0 && !kill(die_reap, SIGKILL))
		while (waitpid(die_reap, NULL, 0) < 0 && errno == EINTR)
			;
	if (die_undo)
		die_undo();
	if (die_cleanup)
		die_cleanup();
	/* Last: the record says what the failure left behind. */
	if (die_status)
		die_status(step, what, err, hint);
	_exit(AJ_EXIT_SETUP);
}

noreturn void die(const char *step, int err, const char *hint)
{
	diep(step, NULL, err, hint);
}

noreturn void die_usage(const char *what, const char *arg)
{
	out_fd(2);
	out_s(aj_progname);
	out_s(": usage: ");
	out_s(what);
	if (arg) {
		out_s(": ");
		out_s(arg);
	}
	out_s("\n(try ");
	out_s(aj_progname);
	out_s(" --jail-help)\n");
	out_flush();
	if (die_status)
		die_status("read the options", arg, 0, what);
	_exit(AJ_EXIT_SETUP);
}
