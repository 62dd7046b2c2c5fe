/* refusals.c: what the jail refused, told once at the end.
 *
 * The stub's parent sees every refusal itself: the calls the filter
 * refuses (notify.c answers them) and the proxy's refused connections
 * (CONNECT) and requests (plain http://).  It counts them, keeps the first
 * few names, and when the run ends prints one line on stderr,
 *   jail-npm: refused 2 connections (x:443, y:80) and 1 call (ptrace)
 * or nothing when nothing was refused.  --jail-log=FILE also gets one JSON
 * line per refusal as it happens; the file is opened before the jail
 * exists and only the parent, outside it, ever holds it. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "sys.h"

#define RF_LOGGED 1000 /* lines a run writes to the log; the rest are counted */

static struct refusal_list conns, calls;
static char conn_names[RF_SHOWN][AJ_HOST_MAX];
static const struct aj_variant *variant; /* its names of the refused calls */
static int log_fd = -1;
static unsigned logged, unlogged;

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

/* What the log is: the file's identity, then its directory's and each
 * one's above it (resolve.c), taken once when it is opened.  Every
 * writable source of the plan is compared with these, in the caller for
 * an early refusal and again by pid 1 (or the fallback) on the very
 * descriptor it mounts: a name would miss a link on either side
 * (~/.cache -> /data/cache, and the log named /data/cache/x/log). */
static struct ident log_ids[AJ_IDENT_DEPTH + 1];
static unsigned n_log_ids;
static const char *log_name; /* as the option gave it */

static noreturn void log_refused(const char *why)
{
	diep("open the refusal log", log_name, 0, why);
}

void refusals_log_open(const char *path, const char *opt)
{
	static char dir[AJ_PATH_MAX];
	const char *base = strrchr(path, '/');
	struct stat st;
	int dfd, n;

	if (!*path)
		die_usage("a file is needed after", opt);
	log_name = path;
	/* The directory first, links followed (where it really is), then the
	 * file beneath it: the chain is the directory the file is in. */
	if (base) {
		size_t dl = base == path ? 1 : (size_t)(base - path);

		if (dl >= sizeof(dir))
			diep("open the refusal log", path, ENAMETOOLONG, NULL);
		memcpy(dir, path, dl);
		dir[dl] = '\0';
		base++;
	} else {
		strcpy(dir, ".");
		base = path;
	}
	if (!*base)
		log_refused("it names a directory; name a file");
	dfd = openat(AT_FDCWD, dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		diep("open the refusal log", path, errno, NULL);
	/* O_NOFOLLOW: a link planted by an earlier run is not followed. */
	log_fd = openat(
	    dfd, base,
	    O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK, 0600);
	if (log_fd < 0)
		diep("open the refusal log", path, errno, NULL);
	if (fstat(log_fd, &st) || !S_ISREG(st.st_mode))
		diep("open the refusal log", path, errno ? errno : EINVAL, "not a regular file");
	/* Another name of the file may be anywhere, a writable cache too. */
	if (st.st_nlink > 1)
		log_refused("the file has other names (hard links), which the jail may be able to "
		            "write; name a file of its own");
	log_ids[0].dev = (uint64_t)st.st_dev;
	log_ids[0].ino = (uint64_t)st.st_ino;
	n = ident_chain(dfd, log_ids + 1, AJ_IDENT_DEPTH);
	close(dfd);
	if (n < 0)
		diep("open the refusal log", path, errno,
		     "the directories above it cannot be inspected, so it cannot be told whether "
		     "the jail can write there");
	n_log_ids = 1 + (unsigned)n;
}

/* fd: a writable source of the plan, opened; path: its name, for the
 * message.  The log at or below it could be forged from inside. */
void refusals_log_guard(int fd, const char *path)
{
	static char why[AJ_PATH_MAX + 160];
	struct stat st;

	if (!n_log_ids)
		return;
	if (fstat(fd, &st))
		diep("open the refusal log", log_name, errno,
		     "a writable mount cannot be inspected");
	if (!ident_in(log_ids, n_log_ids, &st))
		return;
	strcpy(why, "the jail can write there (the project, or a writable mount: ");
	strncat(why, path, AJ_PATH_MAX - 1);
	strcat(why, "); name a file outside them");
	log_refused(why);
}

/* Once the plan is resolved, in the caller: the early refusal.  Each
 * source is resolved as pid 1 will resolve it (resolve.c); one that is
 * not there yet cannot hold the log, which exists. */
void refusals_log_check(void)
{
	for (unsigned i = 0; n_log_ids && i < plan_n; i++) {
		const char *why;
		int fd;

		if (!plan[i].path || plan[i].m->op != AJ_MOUNT_RW)
			continue;
		fd = source_open(plan[i].m, plan[i].path, &why);
		if (fd < 0)
			continue;
		refusals_log_guard(fd, plan[i].path);
		close(fd);
	}
}

void refusals_listener(const struct aj_variant *v, int err)
{
	(void)err; /* --jail-explain says where there is no listener */
	variant = v;
}

/* {"time":…,"kind":"…", then the caller's fields. */
static bool log_begin(const char *kind)
{
	struct timespec t = {0};
	char ms[4];

	if (log_fd < 0)
		return false;
	if (logged == RF_LOGGED) {
		unlogged++;
		return false;
	}
	logged++;
	syscall(SYS_clock_gettime, CLOCK_REALTIME, &t);
	out_fd(log_fd);
	report_json = true;
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

static void log_end(void)
{
	out_s("}\n");
	out_flush();
	out_fd(2);
}

void refusal_call(unsigned nr, int err)
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
		len = 8 + fmt_u(one + 8, nr);
		memcpy(one + len, "]", 2);
	}
	refusal_add(&calls, one, shown);
	if (!log_begin("call"))
		return;
	rp_str("name", one);
	rp_u("nr", nr);
	rp_u("errno", (unsigned)err);
	rp_str("error", strerror(err));
	log_end();
}

void refusal_host(const char *kind, const char *target, const char *why)
{
	const char *c = strrchr(target, ':');

	size_t n = c ? (size_t)(c - target) : strlen(target);
	bool v6 = target[0] == '[' && n >= 2;

	refusal_add(&conns, target, conn_names);
	if (!log_begin(kind))
		return;
	rp_strn("host", target + v6, n - 2 * v6);
	if (c)
		out_s(",\"port\":"), out_s(c + 1);
	rp_str("reason", why);
	log_end();
}

void refusals_report(void)
{
	char line[1024];
	size_t n = refusals_line(line, sizeof(line), aj_progname, &conns, &calls);

	if (log_fd >= 0 && unlogged) {
		logged = 0;
		if (log_begin("unlogged")) {
			rp_u("count", unlogged);
			log_end();
		}
	}
	if (!n)
		return;
	out_fd(2);
	out_s(line);
	out_flush();
}
