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

void mask_apply(const char *project)
{
	struct mount_attr attr = {
	    .attr_set =
	        MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
	};
	char dst[AJ_PATH_MAX];
	size_t pl = strlen(project);

	if (!scan->n)
		return;
	stage();
	memcpy(dst, project, pl);
	dst[pl++] = '/';
	for (unsigned i = 0; i < scan->n; i++) {
		const struct scan_hit *h = &scan->hits[i];
		const char *rel = scan->arena + h->off;
		size_t rl = strlen(rel);
		int fd;

		if (pl + rl + 1 > sizeof(dst))
			diep("cover", rel, ENAMETOOLONG, NULL);
		memcpy(dst + pl, rel, rl + 1);
		fd = sys_open_tree(AT_FDCWD, cover[h->kind == AJ_PATTERN_DENY][h->isdir],
		                   OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
		if (fd < 0 || sys_mount_setattr(fd, "", AT_EMPTY_PATH, &attr))
			die("make a cover", errno, NULL);
		/* ENOENT: removed since the scan, nothing left to hide.  A
		 * kernel that refuses to mount on a symlink leaves the link
		 * as it is: its target is outside the jail or has its own
		 * rules. */
		if (sys_move_mount(fd, "", AT_FDCWD, dst, MOVE_MOUNT_F_EMPTY_PATH) &&
		    errno != ENOENT && !h->islink)
			diep("cover", dst, errno,
			     "it changed while the jail was being built; try again");
		close(fd);
	}
	unstage();
}
