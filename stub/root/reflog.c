/* reflog.c: the file --jail-log names, opened once in the caller, and
 * what it is: its identity and its directories', so that no writable
 * mount of the jail holds it (the plan checks each source against it, in
 * the caller and again on the descriptor pid 1 mounts).  Apart from
 * refusals.c, which writes to it, because the plan (below the listener)
 * asks. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "root/root.h"

int reflog_fd = -1;

int reflog_descriptor(void)
{
	return reflog_fd;
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

void reflog_open(const char *path, const char *opt)
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
	reflog_fd = openat(
	    dfd, base,
	    O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK, 0600);
	if (reflog_fd < 0)
		diep("open the refusal log", path, errno, NULL);
	if (fstat(reflog_fd, &st) || !S_ISREG(st.st_mode))
		diep("open the refusal log", path, errno ? errno : EINVAL, "not a regular file");
	/* Another name of the file may be anywhere, a writable cache too. */
	if (st.st_nlink > 1)
		log_refused("the file has other names (hard links), which the jail may be able to "
		            "write; name a file of its own");
	log_ids[0].dev = (uint64_t)st.st_dev;
	log_ids[0].ino = (uint64_t)st.st_ino;
	n = resolve_ident_chain(dfd, log_ids + 1, AJ_IDENT_DEPTH);
	close(dfd);
	if (n < 0)
		diep("open the refusal log", path, errno,
		     "the directories above it cannot be inspected, so it cannot be told whether "
		     "the jail can write there");
	n_log_ids = 1 + (unsigned)n;
}

bool reflog_named(void)
{
	return n_log_ids != 0;
}

/* fd: a writable source of the plan, opened; path: its name, for the
 * message.  The log at or below it could be forged from inside. */
void reflog_guard(int fd, const char *path)
{
	static char why[AJ_PATH_MAX + 160];
	struct stat st;

	if (!n_log_ids)
		return;
	if (fstat(fd, &st))
		diep("open the refusal log", log_name, errno,
		     "a writable mount cannot be inspected");
	if (!resolve_ident_in(log_ids, n_log_ids, &st))
		return;
	strcpy(why, "the jail can write there (the project, or a writable mount: ");
	strncat(why, path, AJ_PATH_MAX - 1);
	strcat(why, "); name a file outside them");
	log_refused(why);
}
