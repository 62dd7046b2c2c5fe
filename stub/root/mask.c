/* mask.c: masks and denies, from the scan's results.
 *
 * The covers are staged in the new root's tmpfs (plan.c, stage_open, says where): for a mask, an
 * empty file or directory with the original's permission bits (one node
 * per distinct mode, so `ls -l` shows the mode it would; present, empty),
 * for a deny the same with mode 000 (present, EACCES, since the target
 * keeps no CAP_DAC_OVERRIDE).  Each cover is a clone made read-only,
 * nosuid, nodev and noexec, and attached with move_mount(), which, unlike
 * mount(2), does not follow a symlink at the destination: a symlink whose
 * name matches is covered itself (reading it gives the empty file; its
 * target keeps its own rules), and an entry swapped for a link since the
 * scan cannot steer the cover elsewhere.  A mask's write bits are only
 * shown: the mount is read-only, and with no capability and no mount(2)
 * left in the jail nobody can clear the flags.  (A separate read-only
 * tmpfs would make the covers read-only at the superblock, but costs a
 * mount, a remount and an unmount, about 60 us, where the flags cost 1 us
 * per cover.) */
#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "root/root.h"

#ifndef MOVE_MOUNT_BENEATH
#define MOVE_MOUNT_BENEATH 0x00000200 /* Linux 6.5 */
#endif

/* The nodes staged, by kind, type and mode: .aj- then f (mask file), d
 * (mask directory), F, D (deny), then the mode in octal. */
static uint8_t staged_mode[2][2][07777 / 8 + 1];
static int stage_fd = -1;
/* Where nodes are made: stage_fd, or for appear.c a writable clone of
 * it, the new root being read-only by then (build.c). */
static int stage_mk = -1;
static const char *stage_under; /* the mount point that hides it */
static mode_t umask_saved;
static bool umask_set; /* and a node was made */

static void node_name(char p[12], bool deny, bool isdir, unsigned mode)
{
	memcpy(p, ".aj-", 4);
	p[4] = "fdFD"[deny * 2 + isdir];
	for (int i = 0; i < 4; i++)
		p[5 + i] = (char)('0' + ((mode >> (9 - 3 * i)) & 7));
	p[9] = '\0';
}

/* No mount to hide it under: /.aj, removed at the end. */
static void stage(void)
{
	if (mkdir("/.aj", 0755) ||
	    (stage_fd = open("/.aj", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		die("create the covers in /.aj", errno, NULL);
}

static const char *node(bool deny, bool isdir, unsigned mode, char p[12])
{
	uint8_t *b = &staged_mode[deny][isdir][mode / 8];

	if (stage_fd < 0)
		stage();
	node_name(p, deny, isdir, mode);
	if (!(*b & (1u << (mode % 8)))) {
		/* The modes are the originals', not the caller's umask's. */
		if (!umask_set)
			umask_saved = umask(0), umask_set = true;
		int mk = stage_mk >= 0 ? stage_mk : stage_fd;

		if (isdir ? mkdirat(mk, p, mode) : mknodat(mk, p, S_IFREG | mode, 0))
			die("create a cover", errno, NULL);
		*b |= (uint8_t)(1u << (mode % 8));
	}
	return p;
}

/* Left where the mount on stage_under hides it; removed where nothing
 * does (no such mount: the covers then show no link). */
static void unstage(void)
{
	struct stat root, st;
	char p[12];

	if (!umask_set) { /* nothing covered */
		close(stage_fd);
		if (!stage_under && rmdir("/.aj"))
			die("remove /.aj", errno, NULL);
		return;
	}
	umask(umask_saved);
	if (stage_under && !stat("/", &root) && !lstat(stage_under, &st) && S_ISDIR(st.st_mode) &&
	    st.st_dev != root.st_dev) {
		close(stage_fd);
		return;
	}
	for (unsigned k = 0; k < 4; k++)
		for (unsigned m = 0; m <= 07777; m++)
			if (staged_mode[k / 2][k % 2][m / 8] & (1u << (m % 8))) {
				node_name(p, k / 2, k % 2, m);
				if (unlinkat(stage_fd, p, k % 2 ? AT_REMOVEDIR : 0))
					die("remove a cover's node", errno, NULL);
			}
	close(stage_fd);
	if (!stage_under && rmdir("/.aj"))
		die("remove /.aj", errno, NULL);
}

/* The project in the new root, as the plan attached it (or the bind that
 * holds it): covers and the fence are opened beneath it. */
static int project_fd(const char *project)
{
	int fd = plan_open_inside(project, plan_n);

	if (fd < 0 && errno != ENOENT)
		diep("open the project in the jail", project, errno, NULL);
	return fd;
}

static struct mount_attr cover_attr = {
    .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
};

/* A cover onto the descriptor itself: a symlink is covered as it is (it
 * leads nowhere then); nothing is looked up by name.  mode: the
 * original's (a mask shows it); a deny's is 0.  Returns move_mount's
 * errno (0: covered). */
static int cover_try(int tfd, bool deny, bool isdir, unsigned mode)
{
	char p[12];
	int fd, e = 0;

	fd = sys_open_tree(stage_fd, node(deny, isdir, deny ? 0 : mode & 07777, p),
	                   OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (fd < 0 || sys_mount_setattr(fd, "", AT_EMPTY_PATH, &cover_attr))
		die("make a cover", errno, NULL);
	if (sys_move_mount(fd, "", tfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH))
		e = errno;
	close(fd);
	return e;
}

static void cover_fd(int tfd, bool deny, bool isdir, unsigned mode, const char *what)
{
	int e = cover_try(tfd, deny, isdir, mode);

	if (e)
		diep("cover", what, e, NULL);
}

/* appear.c's: the stage kept past mask_apply (pid 1 closes it: only the
 * watching process holds it), and a cover from it. */
static int stage_kept = -1, stage_kept_rw = -1;

/* Are names that appear during the run to be covered too (appear.c)?
 * Here, below appear.c, so that mask_apply keeps the stage for them. */
bool mask_appearing(const struct aj_variant *v)
{
	const struct aj_scan *s = v->scan;
	const char *e = getenv("AIJAIL_APPEAR");

	if (!s || (e && !strcmp(e, "0")))
		return false;
	for (unsigned i = 0; i < s->n_floating; i++)
		if (s->floating[i].kind == AJ_PATTERN_MASK ||
		    s->floating[i].kind == AJ_PATTERN_DENY)
			return true;
	for (unsigned i = 0; i < s->n_steps; i++)
		if (s->steps[i].kind == AJ_PATTERN_MASK || s->steps[i].kind == AJ_PATTERN_DENY)
			return true;
	return false;
}

bool mask_stage_kept(void)
{
	return stage_kept >= 0;
}

/* In the watching process: the stage as mask_apply left it. */
void mask_stage_adopt(void)
{
	stage_fd = stage_kept;
	stage_mk = stage_kept_rw;
	umask(0); /* the nodes' modes are the originals' */
}

void mask_stage_fds(int fds[2])
{
	fds[0] = stage_kept;
	fds[1] = stage_kept_rw;
}

int mask_cover_new(int tfd, bool deny, bool isdir, unsigned mode)
{
	return cover_try(tfd, deny, isdir, mode);
}

/* The sockets at the top of a directory an --ro or --rw map brings in,
 * in a jail without the host's network: denied, as the project's are
 * (scan.c).  Only the top: a map is not walked (its size is the user's),
 * so a socket deeper in it, or made there during the run, stays
 * reachable; docs/secrets.md says so. */
static void cover_map_sockets(const struct plan_entry *e)
{
	static _Alignas(8) char buf[4096];
	int dfd = openat2_(e->fd, ".", O_RDONLY | O_DIRECTORY | O_NOFOLLOW, RESOLVE_BENEATH);

	if (dfd < 0)
		diep("list", e->path, errno, NULL);
	struct dir_iter it = {dfd, buf, sizeof(buf), 0, 0};
	for (struct aj_dirent *d; (d = dir_next(&it, "list", e->path));) {
		struct stat st;
		int tfd;

		if (d->d_type != DT_SOCK && d->d_type != DT_UNKNOWN)
			continue;
		tfd = openat(dfd, d->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (tfd < 0 || fstat(tfd, &st))
			diep("inspect", d->d_name, errno, NULL);
		if (S_ISSOCK(st.st_mode))
			cover_fd(tfd, true, false, 0, d->d_name);
		close(tfd);
	}
	close(dfd);
}

/* The covers, from the scan just received: the stage plan_make opened,
 * kept past the launch when names that appear are covered too. */
void mask_apply(const char *project, const struct aj_variant *v, const struct plan_made *made)
{
	int pfd = -1;
	bool big = false;

	stage_fd = made->stage_fd;
	stage_under = made->stage_under;
	mask_tell_unchecked();

	maskdir_group();

	if (v->network != AJ_NET_HOST)
		for (unsigned i = 0; i < plan_n; i++)
			if (plan[i].path && !plan[i].missing && plan[i].isdir && plan[i].fd >= 0 &&
			    (plan[i].m->flags & AJ_MOUNT_MAP))
				cover_map_sockets(&plan[i]);
	for (unsigned i = 0; i < hits_now()->n; i++) {
		const struct scan_hit *h = &hits_now()->hits[i];
		const char *rel = hits_now()->arena + h->off;
		struct stat st;
		int tfd;

		if (!h->kind)
			continue; /* an absent guarded path: only the fence keeps it */
		if (maskdir_holds(i)) {
			big = true;
			continue;
		}
		if (pfd < 0) {
			pfd = project_fd(project);
			if (pfd < 0)
				break; /* the policy does not bring the project in */
		}
		/* The object the scan saw, by the way it saw it: beneath the
		 * project, no symlink followed, the same device and inode.  A
		 * concurrent jailed process may have renamed a directory on the
		 * way since; then the secret is somewhere the scan did not look,
		 * and the jail does not start. */
		tfd = openat2_(pfd, rel, O_PATH | O_NOFOLLOW,
		               RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
		if (tfd < 0 || fstat(tfd, &st) ||
		    (h->ino && (st.st_ino != h->ino || st.st_dev != h->dev)) ||
		    (!h->islink && !S_ISDIR(st.st_mode) != !h->isdir))
			diep("cover", rel, tfd < 0 ? errno : 0,
			     "it changed while the jail was being built (another process is "
			     "renaming or replacing files in the project); try again");
		/* A symlink shows as the file that covers it: 0444, as
		 * before, rather than a link's 0777. */
		cover_fd(tfd, h->kind == AJ_PATTERN_DENY, h->isdir,
		         S_ISLNK(st.st_mode) ? 0444 : st.st_mode, rel);
		close(tfd);
	}
	if (big && pfd < 0)
		pfd = project_fd(project);
	if (big && pfd >= 0)
		maskdir_cover(pfd);
	if (pfd >= 0)
		close(pfd);
	TRACE_MARK("masks");
	/* The host's sockets beneath the binds (sockets.c), after the
	 * project's: a socket the walk covered is a file by now. */
	for (char rel[AJ_PATH_MAX]; (pfd = sockets_next(rel, sizeof(rel))) >= 0; close(pfd))
		cover_fd(pfd, true, false, 0, rel);
	/* Only a stage a mount hides can outlive the launch: /.aj would
	 * show in the jail.  Its writable clone is taken now, while the
	 * root is still writable; no path reaches it (below). */
	if (stage_fd >= 0 && stage_under && mask_appearing(v)) {
		stage_kept = fcntl(stage_fd, F_DUPFD_CLOEXEC, 3);
		stage_kept_rw = sys_open_tree(stage_fd, "",
		                              OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
		if (stage_kept < 0 || stage_kept_rw < 0)
			die("keep the covers' stage for names that appear during the run", errno,
			    NULL);
		/* Attached beneath the mount that hides the stage, where no
		 * path reaches it either: a detached mount is dissolved when
		 * its last descriptor goes, at the watching process's exit,
		 * and that waits for an RCU grace period (1-4 ms here, under load) that
		 * the end of the jail waits for; an attached one goes with
		 * the namespace.  A kernel without MOVE_MOUNT_BENEATH (before
		 * 6.5) keeps it detached, as it was. */
		(void)sys_move_mount(stage_kept_rw, "", AT_FDCWD, stage_under,
		                     MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_BENEATH);
	}
	if (stage_fd >= 0)
		unstage();
}

/* What the walk could not check and denied whole instead of refusing to
 * start: one line on stderr, so that a test that fails on a folder it
 * cannot read says why.  --jail-explain lists them. */
void mask_tell_unchecked(void)
{
	static const char *const why[] = {[SCAN_BY_DEPTH] = "deeper than 'scan depth'",
	                                  [SCAN_BY_LONG] = "paths too long",
	                                  [SCAN_BY_LINKS] = "too many hard-linked files",
	                                  [SCAN_BY_COUNT] = "too many secrets"};
	char num[AJ_DEC_MAX];
	unsigned n = 0, first = 0;

	for (unsigned i = 0; i < hits_now()->n; i++) {
		uint8_t w = hits_now()->hits[i].why;

		if (w == SCAN_BY_DEPTH || w == SCAN_BY_LONG || w == SCAN_BY_LINKS ||
		    w == SCAN_BY_COUNT)
			first = n++ ? first : i;
	}
	if (!n)
		return;
	num[out_fmt_u(num, n)] = '\0';
	out_fd(2);
	out_s(aj_progname);
	out_s(": warning: ");
	out_s(num);
	out_s(n == 1 ? " part of the project could not be checked for secrets and is denied ("
	             : " parts of the project could not be checked for secrets and are denied (");
	out_s(why[hits_now()->hits[first].why]);
	out_s(": ");
	out_s(hits_now()->arena + hits_now()->hits[first].off);
	out_s(n == 1 ? "); --jail-explain lists it\n" : ", ...); --jail-explain lists them\n");
	out_flush();
	out_fd(1);
}
