/* dev.c: a minimal /dev, and device nodes the policy passes through (GPU).
 *
 * A user namespace cannot mknod devices, so each node is a bind of the
 * host's node from /oldroot/dev onto an empty file.  The tmpfs below them
 * is nodev: the binds keep the host mount's flags, the tmpfs itself can
 * hold no working device.  /dev/shm is a world-writable sticky directory
 * of that tmpfs (no second tmpfs: one less superblock to create). */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "root/root.h"

const char *const dev_nodes[] = {"null", "zero", "full", "random", "urandom", "tty", NULL};

const char *const *dev_names(void)
{
	return dev_nodes;
}

static const struct {
	const char *name, *target;
} dev_links[] = {
    {"fd", "/proc/self/fd"},       {"stdin", "/proc/self/fd/0"}, {"stdout", "/proc/self/fd/1"},
    {"stderr", "/proc/self/fd/2"}, {"ptmx", "pts/ptmx"},
};

static size_t join(char *buf, const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c);

	if (la + lb + lc + 1 > AJ_PATH_MAX)
		diep("build a path below", a, ENAMETOOLONG, NULL);
	memcpy(buf, a, la);
	memcpy(buf + la, b, lb);
	memcpy(buf + la + lb, c, lc + 1);
	return la + lb + lc;
}

/* Returns false when the source does not exist. */
static bool bind_node(const char *src, const char *dst)
{
	struct stat st;

	if (stat(src, &st)) {
		if (errno == ENOENT)
			return false;
		diep("inspect", src, errno, NULL);
	}
	if (S_ISDIR(st.st_mode))
		fs_mkdir_p(dst);
	else
		fs_mkfile_p(dst);
	if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL))
		diep("bind", dst, errno, NULL);
	return true;
}

/* as_dir: a directory of the root's tmpfs, as a scratch entry's
 * (plan.c), no tmpfs of its own; Landlock then refuses execution
 * beneath it as noexec would. */
void dev_build(const char *path, bool as_dir)
{
	char src[AJ_PATH_MAX], dst[AJ_PATH_MAX];

	fs_mkdir_p(path);
	if (!as_dir && mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755"))
		diep("mount a tmpfs on", path, errno, NULL);
	for (unsigned i = 0; dev_nodes[i]; i++) {
		join(src, "/oldroot/dev/", dev_nodes[i], "");
		join(dst, path, "/", dev_nodes[i]);
		if (mknod(dst, S_IFREG, 0))
			diep("create", dst, errno, NULL);
		if (!mount(src, dst, NULL, MS_BIND, NULL))
			continue;
		if (errno != ENOENT || unlink(dst)) /* a host without it gets none */
			diep("bind", dst, errno, NULL);
	}
	for (unsigned i = 0; i < sizeof(dev_links) / sizeof(dev_links[0]); i++) {
		join(dst, path, "/", dev_links[i].name);
		if (symlink(dev_links[i].target, dst))
			diep("create the symlink", dst, errno, NULL);
	}
	join(dst, path, "/", "pts");
	if (mkdir(dst, 0755))
		diep("create", dst, errno, NULL);
	/* A private devpts instance: the host's ptys stay out of reach.  Some
	 * kernels refuse it in a user namespace; then there is no pts (the
	 * ptmx link dangles), which only programs that open a pty notice. */
	(void)mount("devpts", dst, "devpts", MS_NOSUID | MS_NOEXEC,
	            "newinstance,ptmxmode=0666,mode=620");
	join(dst, path, "/", "shm");
	if (mkdir(dst, 0) || chmod(dst, 01777))
		diep("create", dst, errno, NULL);
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* path's last component may be a glob (/dev/nvidia*): every node below
 * prefix + path's directory that matches is bound at the same path (or
 * only counted, for --jail-explain).  None matching is not an error: a
 * machine without a GPU simply gets none. */
unsigned dev_match(const char *prefix, const char *path, bool bind)
{
	char src[AJ_PATH_MAX], dst[AJ_PATH_MAX], dir[AJ_PATH_MAX];
	_Alignas(8) char buf[4096];
	const char *slash = strrchr(path, '/');
	const char *glob = slash + 1;
	size_t pl = strlen(prefix);
	unsigned count = 0;
	int fd;

	join(dir, prefix, path, "");
	if (!has_glob(glob)) {
		if (bind)
			return bind_node(dir, path);
		return !access(dir, F_OK);
	}
	dir[pl + (size_t)(slash - path)] = '\0';
	fd = openat(AT_FDCWD, *dir ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		diep("list", dir, errno, NULL);
	}
	struct dir_iter it = {fd, buf, sizeof(buf), 0, 0};
	for (struct aj_dirent *d; (d = dir_next(&it, "list", dir));) {
		if (d->d_name[0] == '.' || !glob_match(glob, d->d_name))
			continue;
		count++;
		if (!bind)
			continue;
		join(src, dir, "/", d->d_name);
		join(dst, dir + pl, "/", d->d_name);
		bind_node(src, dst);
	}
	close(fd);
	return count;
}
