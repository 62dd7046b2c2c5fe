/* private.c: the fallback's private directory, made for one run under a
 * random name where the caller's $XDG_RUNTIME_DIR, cache or /tmp has
 * room, $HOME and $TMPDIR in it, and removed when the target is gone.
 * Apart from fallback.c so that the record of secrets (record.c), which
 * must never be written where the jail can reach, can tell where that
 * is. */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include "fallback/fallback.h"

/* --jail-explain's "name:" column (explain.c). */
char private_dir[64]; /* made for this run: $HOME and $TMPDIR go into it */
char private_home[80];
char private_tmp[80];
static bool private_made;
char private_tmpdir_env[96];
const char *private_home_why; /* why $HOME is not the caller's own here */

/* Removed once the target is gone: beneath descriptors, never following
 * a symlink the jail put there; a directory it made unreadable is made
 * ours again first.  Nothing here may fail the run: the target's status
 * is already decided, so what cannot be removed stays. */
static void remove_tree(int dfd, const char *name, unsigned depth)
{
	static _Alignas(8) char buf[32][1024];
	char self[32];
	long n;
	int pfd, fd;

	if (!unlinkat(dfd, name, 0) || errno != EISDIR || depth >= 32)
		return;
	pfd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return;
	resolve_fd_path(self, pfd);
	(void)chmod(self, 0700); /* the directory itself: pfd is no symlink */
	fd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(pfd);
	if (fd < 0)
		return;
	while ((n = syscall(SYS_getdents64, fd, buf[depth], sizeof(buf[depth]))) > 0)
		for (long off = 0; off < n;) {
			struct aj_dirent *d = (struct aj_dirent *)(buf[depth] + off);
			const char *e = d->d_name;

			off += d->d_reclen;
			if (!(e[0] == '.' && (!e[1] || (e[1] == '.' && !e[2]))))
				remove_tree(fd, e, depth + 1);
		}
	close(fd);
	unlinkat(dfd, name, AT_REMOVEDIR);
}

void private_release(void)
{
	if (!private_made)
		return;
	private_made = false;
	remove_tree(AT_FDCWD, private_dir, 0);
}

/* /tmp/aijail. and 16 random hex digits, mode 0700.  mkdir never follows
 * a link someone put in its place and fails on any name that exists, and
 * a name nobody can guess cannot be taken in advance: another user of a
 * shared /tmp who made one anyway only costs a try.  make false: only
 * the name's form (explain). */
void private_make(bool make)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char rnd[8];
	size_t n;

	if (private_dir[0])
		return;
	n = out_str_put(private_dir, 0, "/tmp/aijail.");
	for (unsigned k = 0;; k++) {
		if (!make) {
			out_str_put(private_dir, n, "XXXXXXXXXXXXXXXX");
			break;
		}
		if (syscall(SYS_getrandom, rnd, sizeof(rnd), 0) != (long)sizeof(rnd))
			die("name the private directory", errno, "getrandom(2) failed");
		for (unsigned i = 0; i < sizeof(rnd); i++) {
			private_dir[n + 2 * i] = hex[rnd[i] >> 4];
			private_dir[n + 2 * i + 1] = hex[rnd[i] & 15];
		}
		private_dir[n + 2 * sizeof(rnd)] = '\0';
		if (!mkdir(private_dir, 0700))
			break;
		if (errno != EEXIST || k >= 15)
			diep("create", private_dir, errno,
			     "a private $HOME, and the fallback's $TMPDIR, need a writable /tmp "
			     "(in Kubernetes, an emptyDir there)");
	}
	out_str_put(private_home, out_str_put(private_home, 0, private_dir), "/home");
	out_str_put(private_tmp, out_str_put(private_tmp, 0, private_dir), "/tmp");
	if (!make)
		return;
	private_made = true;
	die_cleanup = private_release;
	if (mkdir(private_home, 0700) || mkdir(private_tmp, 0700))
		diep("create", private_home, errno, NULL);
}

/* $HOME is "/", unset or not a directory: the jail gets a private home
 * (empty, removed afterwards) instead of a refusal. */
const char *private_home_path(bool make)
{
	const char *home = vars_value(AJ_VAR_HOME);
	struct stat st;

	if (home && !stat(home, &st) && S_ISDIR(st.st_mode))
		return NULL;
	private_home_why = home ? "it is not a directory here" : vars_why(AJ_VAR_HOME);
	private_make(make);
	vars_set(AJ_VAR_HOME, private_home);
	return private_home_why;
}
