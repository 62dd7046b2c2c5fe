/* scan.c: the one walk of the project that decides every mask and deny.
 *
 * getdents64 on directories opened O_NOFOLLOW: symlinks are never
 * followed, only matched by name.  A matched directory is not entered (its
 * whole content disappears under the mount).  Deny wins over mask.  The
 * walk stops at AJ_SCAN_DEPTH levels and every result lives in fixed
 * buffers; running out of either fails closed, because a secret the walk
 * did not reach would otherwise be readable.
 *
 * Two things a name cannot catch are handled here too:
 *  - another hard link of a matched file (same inode, harmless name): the
 *    matched files' inodes are noted, and only if one has st_nlink > 1 a
 *    second walk masks every other name of it;
 *  - a directory of ours we cannot read (or that sits in a directory of
 *    ours we cannot search): the walk cannot see inside, and the jailed
 *    process, being the owner, could chmod it and look; it is denied as a
 *    whole.  Unreadable directories of other users stay as they are: the
 *    jail has no more rights on them than the caller. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sys.h"

enum { T_UNKNOWN = 0, T_OTHER = 1, T_DIR = 4, T_REG = 8, T_LNK = 10 };

#define SCAN_BUF 8192

static struct scan_result result;
struct scan_result *const scan = &result;

static char rel[AJ_PATH_MAX]; /* the entry's path relative to the project */
static const struct aj_variant *var;
static uid_t me;
static bool second_pass;
static unsigned n_links;
static struct {
	dev_t dev;
	ino_t ino;
	uint8_t kind;
} links[AJ_SCAN_LINKS];
static _Alignas(8) char dbuf[AJ_SCAN_DEPTH][SCAN_BUF];

static const char search_hint[] =
    "a directory of the project cannot be searched, so it cannot be checked for secrets; "
    "chmod u+x it";

static void add_hit(uint8_t kind, unsigned char type, uint8_t why, size_t len)
{
	if (scan->n == AJ_SCAN_MAX || scan->used + len + 1 > sizeof(scan->arena))
		diep("mask", rel, 0,
		     "too many masked or denied paths in this project; "
		     "narrow the policy's patterns");
	memcpy(scan->arena + scan->used, rel, len + 1);
	scan->hits[scan->n++] = (struct scan_hit){
	    .kind = kind,
	    .isdir = type == T_DIR,
	    .why = why,
	    .islink = type == T_LNK,
	    .off = scan->used,
	};
	scan->used += (uint32_t)len + 1;
}

static uint8_t classify(const char *name, bool isdir)
{
	uint8_t kind = 0;

	for (unsigned i = 0; i < var->n_patterns; i++) {
		const struct aj_pattern *p = &var->patterns[i];

		if (p->kind <= kind || !pattern_match(p, name, rel, isdir))
			continue;
		kind = p->kind;
		if (kind == AJ_PATTERN_DENY)
			break;
	}
	return kind;
}

static void note_links(int dfd, const char *name, uint8_t kind)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		diep("inspect", rel, errno, errno == EACCES ? search_hint : NULL);
	if (st.st_nlink < 2 || !S_ISREG(st.st_mode))
		return;
	if (n_links == AJ_SCAN_LINKS)
		diep("inspect", rel, 0, "too many hard-linked secrets in this project");
	links[n_links].dev = st.st_dev;
	links[n_links].ino = st.st_ino;
	links[n_links].kind = kind;
	n_links++;
}

static uint8_t linked_kind(int dfd, const char *name)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno != ENOENT)
			diep("inspect", rel, errno, errno == EACCES ? search_hint : NULL);
		return 0;
	}
	for (unsigned i = 0; i < n_links; i++)
		if (links[i].ino == st.st_ino && links[i].dev == st.st_dev)
			return links[i].kind;
	return 0;
}

static unsigned char type_of(int dfd, const char *name)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno != ENOENT)
			diep("inspect", rel, errno, errno == EACCES ? search_hint : NULL);
		return T_UNKNOWN; /* gone: nothing to hide */
	}
	if (S_ISDIR(st.st_mode))
		return T_DIR;
	if (S_ISLNK(st.st_mode))
		return T_LNK;
	return S_ISREG(st.st_mode) ? T_REG : T_OTHER;
}

static void walk(int dfd, size_t len, unsigned depth);

static void enter(int dfd, const char *name, size_t len, unsigned depth)
{
	struct stat st;
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0) {
		if (depth + 1 >= AJ_SCAN_DEPTH)
			diep("scan", rel, 0,
			     "the project is nested too deeply to check every path for secrets");
		walk(fd, len, depth + 1);
		close(fd);
		return;
	}
	if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)
		return; /* changed under us: it is whatever the mount finds */
	if (errno != EACCES)
		diep("scan", rel, errno, NULL);
	if (second_pass)
		return;
	/* Not even stat-able: its parent cannot be searched, and whoever owns
	 * the parent could make it searchable. */
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) && (errno != EACCES || fstat(dfd, &st)))
		diep("inspect", rel, errno, NULL);
	if (st.st_uid == me)
		add_hit(AJ_PATTERN_DENY, T_DIR, SCAN_BY_PERM, len);
}

static void entry(int dfd, const char *name, unsigned char type, size_t len, unsigned depth)
{
	uint8_t kind;
	bool isdir;

	if (type == T_UNKNOWN)
		type = type_of(dfd, name);
	if (type == T_UNKNOWN)
		return;
	isdir = type == T_DIR;
	kind = classify(name, isdir);
	if (kind) {
		if (second_pass)
			return; /* noted by the first walk */
		add_hit(kind, type, SCAN_BY_NAME, len);
		if (type == T_REG)
			note_links(dfd, name, kind);
		return;
	}
	if (isdir) {
		enter(dfd, name, len, depth);
		return;
	}
	if (second_pass && type == T_REG && (kind = linked_kind(dfd, name)))
		add_hit(kind, T_REG, SCAN_BY_HARDLINK, len);
}

static void walk(int dfd, size_t len, unsigned depth)
{
	char *buf = dbuf[depth];

	for (;;) {
		long n = syscall(SYS_getdents64, dfd, buf, SCAN_BUF);

		if (n < 0)
			diep("scan", len ? rel : ".", errno, NULL);
		if (n == 0)
			return;
		for (long off = 0; off < n;) {
			struct aj_dirent *d = (struct aj_dirent *)(buf + off);
			const char *name = d->d_name;
			size_t nl = strlen(name), l = len;

			off += d->d_reclen;
			if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])))
				continue;
			if (l + nl + 2 > sizeof(rel))
				diep("scan", rel, ENAMETOOLONG, NULL);
			if (l)
				rel[l++] = '/';
			memcpy(rel + l, name, nl + 1);
			entry(dfd, name, d->d_type, l + nl, depth);
			rel[len] = '\0';
		}
	}
}

void scan_project(const char *project, const struct aj_variant *v)
{
	int fd;

	if (!v->n_patterns)
		return;
	var = v;
	me = getuid();
	fd = openat(AT_FDCWD, project, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		diep("scan", project, errno, NULL);
	rel[0] = '\0';
	walk(fd, 0, 0);
	if (n_links) {
		second_pass = true;
		if (lseek(fd, 0, SEEK_SET))
			diep("scan", project, errno, NULL);
		walk(fd, 0, 0);
	}
	close(fd);
}
