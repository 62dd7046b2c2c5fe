/* fs.c: making the paths of the new root: directories with their parents,
 * empty files as mount points, symbolic links.  Every failure ends the jail
 * (die.c); an existing entry is taken as it is. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "root/root.h"

void fs_mkdir_p(const char *path)
{
	char buf[AJ_PATH_MAX];
	size_t n;

	if (!mkdir(path, 0755) || errno == EEXIST)
		return;
	n = strlen(path);
	if (errno != ENOENT || n >= sizeof(buf))
		diep("create", path, errno, NULL);
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			diep("create", buf, errno, NULL);
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		diep("create", buf, errno, NULL);
}

/* A mount point for a file: an empty regular file, whatever the source is
 * (a device, a socket): a non-directory may cover any non-directory. */
void fs_mkfile_p(const char *path)
{
	char buf[AJ_PATH_MAX];
	char *slash;
	size_t n;

	if (!mknod(path, S_IFREG | 0444, 0) || errno == EEXIST)
		return;
	n = strlen(path);
	if (errno != ENOENT || n >= sizeof(buf))
		diep("create", path, errno, NULL);
	memcpy(buf, path, n + 1);
	slash = strrchr(buf, '/');
	if (slash && slash != buf) {
		*slash = '\0';
		fs_mkdir_p(buf);
	}
	if (mknod(path, S_IFREG | 0444, 0) && errno != EEXIST)
		diep("create", path, errno, NULL);
}

void fs_link(const char *path, const char *target)
{
	char buf[AJ_PATH_MAX];
	char *slash;

	if (!symlink(target, path))
		return;
	if (errno != ENOENT || strlen(path) >= sizeof(buf))
		diep("create the symlink", path, errno, NULL);
	strcpy(buf, path);
	slash = strrchr(buf, '/');
	if (slash && slash != buf) {
		*slash = '\0';
		fs_mkdir_p(buf);
	}
	if (symlink(target, path))
		diep("create the symlink", path, errno, NULL);
}
