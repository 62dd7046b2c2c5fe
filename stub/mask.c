/* mask.c: masks and denies, from the scan's results.
 *
 * Four covers are staged in the new root's tmpfs at /.aj: an empty 0444
 * file and an empty 0555 directory (masks: present, empty), and the same
 * with mode 000 (denies: present, EACCES, since the target keeps no
 * CAP_DAC_OVERRIDE).  Each cover is a clone made read-only, nosuid, nodev
 * and noexec, and attached with move_mount(), which, unlike mount(2), does
 * not follow a symlink at the destination: a symlink whose name matches is
 * covered itself (reading it gives the empty file; its target keeps its
 * own rules), and an entry swapped for a link since the scan cannot steer
 * the cover elsewhere.  The stage is removed at the end; the covers keep
 * the inodes they show.  (A separate read-only tmpfs would make the covers
 * read-only at the superblock, but costs a mount, a remount and an unmount,
 * about 60 us, where the flags cost 1 us per cover; with no capability and
 * no mount(2) left in the jail, nobody can clear the flags.) */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "sys.h"

static const char *const cover[2][2] = {
    {"/.aj/f", "/.aj/d"}, /* mask: file, directory */
    {"/.aj/F", "/.aj/D"}, /* deny */
};

static void stage(void)
{
	if (mkdir("/.aj", 0755) || mknod("/.aj/f", S_IFREG | 0444, 0) ||
	    mknod("/.aj/F", S_IFREG, 0) || mkdir("/.aj/d", 0555) || mkdir("/.aj/D", 0))
		die("create the covers in /.aj", errno, NULL);
}

static void unstage(void)
{
	if (unlink("/.aj/f") || unlink("/.aj/F") || rmdir("/.aj/d") || rmdir("/.aj/D") ||
	    rmdir("/.aj"))
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
static bool staged;

/* A cover onto the descriptor itself: a symlink is covered as it is (it
 * leads nowhere then); nothing is looked up by name. */
static void cover_fd(int tfd, bool deny, bool isdir, const char *what)
{
	int fd;

	if (!staged) {
		stage();
		staged = true;
	}
	fd = sys_open_tree(AT_FDCWD, cover[deny][isdir], OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (fd < 0 || sys_mount_setattr(fd, "", AT_EMPTY_PATH, &cover_attr))
		die("make a cover", errno, NULL);
	if (sys_move_mount(fd, "", tfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH))
		diep("cover", what, errno, NULL);
	close(fd);
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
			cover_fd(tfd, true, false, d->d_name);
		close(tfd);
	}
	close(dfd);
}

void mask_apply(const char *project, const struct aj_variant *v)
{
	int pfd = -1;

	if (v->network != AJ_NET_HOST)
		for (unsigned i = 0; i < plan_n; i++)
			if (plan[i].path && !plan[i].missing && plan[i].isdir && plan[i].fd >= 0 &&
			    (plan[i].m->flags & AJ_MOUNT_MAP))
				cover_map_sockets(&plan[i]);
	for (unsigned i = 0; i < scan->n; i++) {
		const struct scan_hit *h = &scan->hits[i];
		const char *rel = scan->arena + h->off;
		struct stat st;
		int tfd;

		if (!h->kind)
			continue; /* an absent guarded path: only the fence keeps it */
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
		cover_fd(tfd, h->kind == AJ_PATTERN_DENY, h->isdir, rel);
		close(tfd);
	}
	if (pfd >= 0)
		close(pfd);
	if (staged)
		unstage();
}
