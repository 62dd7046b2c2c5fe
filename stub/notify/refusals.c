/* refusals.c: what the jail refused, told once at the end.
 *
 * The stub's parent sees every refusal itself: the calls the filter
 * refuses (notify.c answers them) and the proxy's refused connections
 * (CONNECT) and requests (plain http://).  It counts them, keeps the first
 * few names, and when the run ends prints one line on stderr,
 *   jail-npm: refused 2 connections (x:443, y:80) and 1 call (ptrace)
 * or nothing when nothing was refused.  --jail-log=FILE also gets one JSON
 * line per refusal as it happens (and reached.c's, per connection the
 * proxy allowed, through the same writer); the file is opened before the
 * jail exists and only the parent, outside it, ever holds it. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "notify/notify.h"

#define RF_LOGGED 1000 /* lines a run writes to the log; the rest are counted */

static struct refusal_list conns, calls;
static char conn_names[RF_SHOWN][AJ_HOST_MAX];
static const struct aj_variant *variant; /* its names of the refused calls */
/* Refusals [0] and allowed connections [1] (reached.c) have a budget
 * each, so that a run's many connections never crowd out a refusal. */
static unsigned logged[2], unlogged[2];

/* The name of call nr, from the variant's table; NULL if it has none. */
static const char *call_name(unsigned nr, size_t *len)
{
	const char *s = variant ? variant->refused_names : NULL;

	for (unsigned i = 0; s && i < variant->n_refused; i++) {
		const char *e = strchrnul(s, ' ');

		if (variant->refused[i] == nr) {
			*len = (size_t)(e - s);
			return s;
		}
		s = *e ? e + 1 : e;
	}
	return NULL;
}

void refusals_listener(const struct aj_variant *v, int err)
{
	(void)err; /* --jail-explain says where there is no listener */
	variant = v;
}

/* {"time":…,"kind":"…", then the caller's fields; false: no line (no
 * log, or the budget of its sort, refusal or allowed, is spent). */
bool refusals_log_begin(const char *kind, bool allowed)
{
	struct timespec t = {0};
	char ms[4];

	if (reflog_descriptor() < 0)
		return false;
	if (logged[allowed] == RF_LOGGED) {
		unlogged[allowed]++;
		return false;
	}
	logged[allowed]++;
	syscall(SYS_clock_gettime, CLOCK_REALTIME, &t);
	out_fd(reflog_descriptor());
	rp_json = true;
	rp_reset();
	out_s("{\"time\":");
	out_u((unsigned long long)t.tv_sec);
	ms[0] = (char)('0' + t.tv_nsec / 100000000);
	ms[1] = (char)('0' + t.tv_nsec / 10000000 % 10);
	ms[2] = (char)('0' + t.tv_nsec / 1000000 % 10);
	ms[3] = '\0';
	out_c('.');
	out_s(ms);
	out_c(',');
	rp_str("kind", kind);
	return true;
}

void refusals_log_end(void)
{
	out_s("}\n");
	out_flush();
	out_fd(2);
}

void refusals_call(unsigned nr, int err)
{
	static char shown[RF_SHOWN][AJ_HOST_MAX];
	char one[AJ_HOST_MAX];
	size_t len = 0;
	const char *name = call_name(nr, &len);

	if (name && len < sizeof(one)) {
		memcpy(one, name, len);
		one[len] = '\0';
	} else { /* not in the table: the filter's number, as it is */
		memcpy(one, "syscall[", 8);
		len = 8 + out_fmt_u(one + 8, nr);
		memcpy(one + len, "]", 2);
	}
	summary_add(&calls, one, shown);
	if (!refusals_log_begin("call", false))
		return;
	rp_str("name", one);
	rp_u("nr", nr);
	rp_u("errno", (unsigned)err);
	rp_str("error", strerror(err));
	refusals_log_end();
}

void refusals_host(const char *kind, const char *target, const char *why)
{
	const char *c = strrchr(target, ':');

	size_t n = c ? (size_t)(c - target) : strlen(target);
	bool v6 = target[0] == '[' && n >= 2;

	summary_add(&conns, target, conn_names);
	if (!refusals_log_begin(kind, false))
		return;
	rp_strn("host", target + v6, n - 2 * v6);
	if (c)
		out_s(",\"port\":"), out_s(c + 1);
	rp_str("reason", why);
	refusals_log_end();
}

void refusals_report(void)
{
	char line[1024];
	size_t n = summary_line(line, sizeof(line), aj_progname, &conns, &calls);

	for (int a = 0; a < 2; a++)
		if (reflog_descriptor() >= 0 && unlogged[a]) {
			unsigned count = unlogged[a];

			logged[a] = 0;
			if (refusals_log_begin(a ? "unlogged-allowed" : "unlogged", a)) {
				rp_u("count", count);
				refusals_log_end();
			}
		}
	if (!n)
		return;
	out_fd(2);
	out_s(line);
	out_flush();
}
