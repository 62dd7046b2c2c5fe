/* status.c: --jail-status-fd=N, the record of how a run ended, on a
 * descriptor no process of the jail holds.
 *
 * An exit status is not a report: 125 is ours for "the jail could not be
 * built", and any command may exit 125 too (the docker CLI does), with a
 * stderr line that looks like ours.  So the parent, outside every
 * namespace, writes one JSON line to fd N when the run ends
 * (docs/man/jail.1, STATUS RECORD).  It learns what happened inside from
 * a pipe whose write end pid 1 (or the fallback's supervisor) holds, and
 * the target until its execve succeeds, never after (close-on-exec):
 *
 *   RAN      pid 1, once the target's execve succeeded (pid 1 sleeps
 *            until then: CLONE_VFORK, proc/supervise.c)
 *   EXIT, SIGNAL, TIMEOUT   pid 1, how the target ended, after RAN
 *   NOTRAN   the target, its execve failed (errno)
 *   DIED     pid 1 or the target before its execve: die()'s step and cause
 *
 * Fixed-size messages, each one write() below PIPE_BUF, so none is ever
 * read in part.  fd N itself stays in the parent: the children close it
 * the moment they exist (status_child), so nothing of the jail can write
 * a record, or see that one is asked for. */
#include <string.h>
#include <sys/wait.h>

#include "proc/proc.h"

enum status_kind { ST_RAN = 1, ST_EXIT, ST_SIGNAL, ST_TIMEOUT, ST_NOTRAN, ST_DIED };

#define ST_TEXT 200

struct status_msg {
	uint32_t kind;
	int32_t value; /* the exit code, the signal, the errno */
	char step[ST_TEXT];
	char cause[ST_TEXT];
};

static int status_fd = -1; /* N, in the parent */
static pid_t owner;        /* the parent, which alone writes to N */
static int pipe_r = -1;    /* the parent's end */
static int pipe_w = -1;    /* pid 1's (and the target's until it execs) */
static volatile bool said; /* the target told: pid 1 shares its memory (CLONE_VM) */

/* What the parent learnt. */
static struct {
	bool ran, ended, notran, died;
	uint32_t end;
	int32_t value;
	char step[ST_TEXT], cause[ST_TEXT];
} got;

static void die_told(const char *step, const char *what, int err, const char *hint);

void status_option(const char *value, const char *opt)
{
	unsigned long n = 0;
	int fl;

	/* A first N left open would reach pid 1 unclosed. */
	if (status_fd >= 0)
		die_usage("only one is taken", opt);
	if (!*value)
		die_usage("a descriptor number is needed after", opt);
	for (const char *s = value; *s; s++) {
		if (*s < '0' || *s > '9' || n > 1000000)
			die_usage("not a descriptor number", opt);
		n = n * 10 + (unsigned long)(*s - '0');
	}
	/* 0, 1 and 2 are the command's own: it could write the record. */
	if (n < 3)
		die_usage("a descriptor above 2 is needed (0, 1 and 2 are the command's)", opt);
	fl = (int)syscall(SYS_fcntl, (int)n, F_GETFL);
	if (fl < 0)
		die_usage("not an open descriptor", opt);
	if ((fl & O_ACCMODE) == O_RDONLY || (fl & O_PATH))
		die_usage("not a descriptor open for writing", opt);
	/* Nothing we might exec (none today) inherits it. */
	if (syscall(SYS_fcntl, (int)n, F_SETFD, FD_CLOEXEC))
		die_usage("not an open descriptor", opt);
	status_fd = (int)n;
	owner = getpid();
	die_status = die_told;
}

/* A run that runs nothing (--jail-explain) writes no record. */
void status_off(void)
{
	if (status_fd >= 0)
		close(status_fd);
	status_fd = -1;
}

void status_pipe(void)
{
	int p[2];

	if (status_fd < 0)
		return;
	if (syscall(SYS_pipe2, p, O_CLOEXEC))
		die("make the status pipe", errno, NULL);
	pipe_r = p[0];
	pipe_w = p[1];
}

void status_parent(void)
{
	if (pipe_w < 0)
		return;
	close(pipe_w);
	pipe_w = -1;
	/* Read once the child has ended: what is there is all there is. */
	if (syscall(SYS_fcntl, pipe_r, F_SETFL, O_NONBLOCK))
		die("make the status pipe", errno, NULL);
}

void status_child(void)
{
	if (status_fd >= 0)
		close(status_fd);
	status_fd = -1;
	if (pipe_r >= 0)
		close(pipe_r);
	pipe_r = -1;
}

int status_keep(void)
{
	return pipe_w;
}

static void text_put(char *dst, const char *a, const char *sep, const char *b)
{
	size_t n = 0;

	for (const char *s = a; s && *s && n < ST_TEXT - 1; s++)
		dst[n++] = *s;
	if (a && *a && b && *b)
		for (const char *s = sep; *s && n < ST_TEXT - 1; s++)
			dst[n++] = *s;
	for (const char *s = b; s && *s && n < ST_TEXT - 1; s++)
		dst[n++] = *s;
	dst[n] = '\0';
}

static void tell(uint32_t kind, int32_t value, const char *step, const char *cause)
{
	struct status_msg m = {.kind = kind, .value = value};

	if (pipe_w < 0)
		return;
	text_put(m.step, step, "", NULL);
	text_put(m.cause, cause, "", NULL);
	/* A failed write leaves the record "unknown": the truth then. */
	(void)!write(pipe_w, &m, sizeof(m));
}

/* pid 1, after the target's clone returned: it ran unless it said why not. */
void status_ran(void)
{
	if (!said)
		tell(ST_RAN, 0, NULL, NULL);
}

void status_notran(int err, const char *cause)
{
	said = true;
	tell(ST_NOTRAN, err, NULL, cause);
}

void status_end(int wstatus)
{
	if (said)
		return; /* the target never ran: it said why */
	if (WIFSIGNALED(wstatus))
		tell(ST_SIGNAL, WTERMSIG(wstatus), NULL, NULL);
	else
		tell(ST_EXIT, WEXITSTATUS(wstatus), NULL, NULL);
}

void status_timeout(void)
{
	tell(ST_TIMEOUT, 0, NULL, NULL);
}

/* The parent: the messages there are, bounded (the pipe holds what the
 * children wrote; a child that broke the order is believed no further). */
static void collect(void)
{
	struct status_msg m;

	for (unsigned i = 0; pipe_r >= 0 && i < 8; i++) {
		long r = syscall(SYS_read, pipe_r, &m, sizeof(m));

		if (r != (long)sizeof(m))
			break;
		m.step[ST_TEXT - 1] = m.cause[ST_TEXT - 1] = '\0';
		if (m.kind == ST_RAN) {
			got.ran = true;
		} else if ((m.kind == ST_EXIT || m.kind == ST_SIGNAL || m.kind == ST_TIMEOUT) &&
		           got.ran && !got.ended) {
			got.ended = true;
			got.end = m.kind;
			got.value = m.value;
		} else if (m.kind == ST_NOTRAN && !got.ran && !got.notran && !got.died) {
			got.notran = true;
			got.value = m.value;
			memcpy(got.cause, m.cause, ST_TEXT);
		} else if (m.kind == ST_DIED && !got.died && !got.notran) {
			got.died = true;
			memcpy(got.step, m.step, ST_TEXT);
			memcpy(got.cause, m.cause, ST_TEXT);
		}
	}
	if (pipe_r >= 0)
		close(pipe_r);
	pipe_r = -1;
}

static char rec[2048];
static size_t rec_n;

static void put(const char *s)
{
	while (*s && rec_n < sizeof(rec) - 2)
		rec[rec_n++] = *s++;
}

static void put_u(unsigned long u)
{
	char b[AJ_DEC_MAX];

	b[out_fmt_u(b, u)] = '\0';
	put(b);
}

/* A JSON string: what a step names may hold any byte of a path. */
static void put_str(const char *key, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	put(",\"");
	put(key);
	put("\":\"");
	for (; *s && rec_n < sizeof(rec) - 10; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			rec[rec_n++] = '\\';
			rec[rec_n++] = (char)c;
		} else if (c < 0x20 || c == 0x7f) {
			char u[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0};

			put(u);
		} else {
			rec[rec_n++] = (char)c;
		}
	}
	put("\"");
}

/* The parent, last: one line to N, whatever it learnt.  A caller that
 * stopped reading N gets no SIGPIPE that would change our status. */
void status_report(int code, const char *step, const char *cause)
{
	static const char *const ends[] = {
	    [ST_EXIT] = "exit", [ST_SIGNAL] = "signal", [ST_TIMEOUT] = "timeout"};
	const char *end;
	sigset_t pipe_set;

	if (status_fd < 0 || getpid() != owner)
		return;
	collect();
	if (got.died) { /* the first failure is the cause; ours followed from it */
		step = got.step;
		cause = got.cause;
	}
	if (got.ended)
		end = ends[got.end];
	else if (got.notran)
		end = "notran";
	else if (!got.ran && step)
		end = "notbuilt";
	else
		end = "unknown";
	rec_n = 0;
	put("{\"aijail_status\":1,\"status\":");
	put_u((unsigned)code);
	put(got.ran || got.notran ? ",\"built\":true" : ",\"built\":false");
	put(got.ran ? ",\"ran\":true" : ",\"ran\":false");
	put(",\"end\":\"");
	put(end);
	put("\"");
	if (got.ended && got.end == ST_EXIT)
		put(",\"code\":"), put_u((unsigned)got.value);
	if (got.ended && got.end == ST_SIGNAL)
		put(",\"signal\":"), put_u((unsigned)got.value);
	if (got.notran)
		put(",\"errno\":"), put_u((unsigned)got.value), put_str("cause", got.cause);
	else if (step)
		put_str("step", step), put_str("cause", cause ? cause : "");
	put("}\n");
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe_set, NULL);
	(void)!write(status_fd, rec, rec_n);
	close(status_fd);
	status_fd = -1;
}

static char die_step[ST_TEXT], die_cause[ST_TEXT];

/* die()'s last word: in the parent, the record; in pid 1 or the target
 * before its execve, DIED for the parent. */
static void die_told(const char *step, const char *what, int err, const char *hint)
{
	text_put(die_step, step, " ", what);
	text_put(die_cause, err ? strerror(err) : NULL, ": ", hint);
	if (status_fd >= 0 && getpid() == owner) {
		status_report(AJ_EXIT_SETUP, die_step, die_cause);
	} else if (pipe_w >= 0) {
		said = true;
		tell(ST_DIED, err, die_step, die_cause);
	}
}
