/* trace.c: see base.h.  Nothing here unless AJ_TRACE is defined. */
#ifdef AJ_TRACE
#include <string.h>
#include <time.h>

#include "base/base.h"

#define TRACE_MAX 48

static struct {
	const char *step;
	unsigned long long ns;
} marks[TRACE_MAX];
static unsigned n_marks;
static const char *trace_name = "parent";
/* The previous mark's time: across a fork, the parent's last one, so
 * that a child's first step counts from where the parent left. */
static unsigned long long last;

static unsigned long long clock_ns(void)
{
	struct timespec t;

	/* The raw call, as the stub reads the clock elsewhere. */
	if (syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t))
		return 0;
	return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

void trace_mark(const char *step)
{
	if (n_marks < TRACE_MAX)
		marks[n_marks++].step = step, marks[n_marks - 1].ns = clock_ns();
}

void trace_who(const char *who)
{
	if (n_marks)
		last = marks[n_marks - 1].ns;
	n_marks = 0;
	trace_name = who;
}

void trace_flush(void)
{
	static char buf[TRACE_MAX * 96];
	size_t n = 0;

	for (unsigned i = 0; i < n_marks; i++) {
		unsigned long long prev = i ? marks[i - 1].ns : last;
		const char *parts[3] = {"ajtrace\t", trace_name, "\t"};

		for (unsigned k = 0; k < 3; k++)
			memcpy(buf + n, parts[k], strlen(parts[k])), n += strlen(parts[k]);
		memcpy(buf + n, marks[i].step, strlen(marks[i].step));
		n += strlen(marks[i].step);
		buf[n++] = '\t';
		n += out_fmt_u(buf + n, prev ? marks[i].ns - prev : 0);
		buf[n++] = '\t';
		n += out_fmt_u(buf + n, marks[i].ns);
		buf[n++] = '\n';
	}
	if (n && write(2, buf, n) < 0)
		return;
	if (n_marks)
		last = marks[n_marks - 1].ns;
	n_marks = 0;
}
#endif
