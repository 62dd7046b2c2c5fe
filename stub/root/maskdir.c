/* maskdir.c: a directory full of hits, one cover for all of them.
 *
 * A cover per entry (mask.c) costs a mount (about 30 us to make, and as
 * much to tear down with the namespace): thousands of key files in a TLS
 * library's tests took seconds.  A directory holding at least DIR_MIN
 * hits of its own gets one read-only tmpfs instead, holding a stand-in
 * for each hit (mask.c's nodes: an empty file or directory with the
 * original's mode, mode 000 for a deny) and, for every other entry,
 * the original bound in (its own covers below come along, being done
 * first, deepest directories first) or, a symlink, a copy of it.  Past
 * STAND_IN_MAX hits the hits get no stand-in (absent).  What is new in
 * that directory during the run cannot be made there (the tmpfs is
 * read-only); docs/secrets.md says so. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "root/root.h"

#define DIR_MIN SCAN_DIR_MIN /* the walk's too (scan.h) */
/* Past this many in one directory, its hits get no stand-in: they are
 * absent (ENOENT), the directory showing only its other entries.  A name
 * on a tmpfs costs about 3 us to make and free: 5,000 of them cost ten
 * times a launch. */
#define STAND_IN_MAX SCAN_STAND_IN_MAX
#define DIR_HASH     (2 * AJ_SCAN_MAX)

static struct {
	uint32_t parent_len; /* bytes of the parent's path */
	uint32_t next;       /* the next hit of the same directory + 1 */
} hinfo[AJ_SCAN_MAX];
static uint32_t dir_first[DIR_HASH]; /* a directory's first hit + 1, by its path */
static uint32_t dir_n[DIR_HASH];
static uint32_t dir_ent[DIR_HASH];   /* the entries it had when listed */
static uint32_t name_hash[DIR_HASH]; /* hit + 1, by name, within one directory */

static uint32_t hash_of(const char *p, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)p[i]) * 16777619u;
	return h;
}

static const char *hit_path(unsigned i)
{
	return hits_now()->arena + hits_now()->hits[i].off;
}

static bool coverable(const struct scan_hit *h)
{
	return h->kind && h->ino && strchr(hits_now()->arena + h->off, '/');
}

/* Each hit's directory; dir_first/dir_n by directory. */
static bool grouped;
static void group(void)
{
	grouped = true;
	for (unsigned i = 0; i < hits_now()->n; i++) {
		const char *p = hit_path(i);
		uint32_t b;

		if (!coverable(&hits_now()->hits[i]))
			continue;
		hinfo[i].parent_len = (uint32_t)(strrchr(p, '/') - p);
		b = hash_of(p, hinfo[i].parent_len) & (DIR_HASH - 1);
		while (dir_first[b]) {
			unsigned f = dir_first[b] - 1;

			if (hinfo[f].parent_len == hinfo[i].parent_len &&
			    !memcmp(hit_path(f), p, hinfo[i].parent_len))
				break;
			b = (b + 1) & (DIR_HASH - 1);
		}
		hinfo[i].next = dir_first[b];
		dir_first[b] = i + 1;
		dir_n[b]++;
		if (hits_now()->hits[i].dir_entries > dir_ent[b])
			dir_ent[b] = hits_now()->hits[i].dir_entries;
	}
}

/* A folder with DIR_MIN hits or more, at least half of its entries (else
 * binding the others in would cost more than a cover per hit). */
static bool big_dir(uint32_t b)
{
	return dir_n[b] >= DIR_MIN && dir_ent[b] && dir_ent[b] <= 2 * dir_n[b];
}

/* How many hits hit i's directory holds (0: not one to group). */
static unsigned dir_count(unsigned i)
{
	const char *p = hit_path(i);
	uint32_t b;

	if (!coverable(&hits_now()->hits[i]))
		return 0;
	b = hash_of(p, hinfo[i].parent_len) & (DIR_HASH - 1);
	while (dir_first[b]) {
		unsigned f = dir_first[b] - 1;

		if (hinfo[f].parent_len == hinfo[i].parent_len &&
		    !memcmp(hit_path(f), p, hinfo[i].parent_len))
			return big_dir(b) ? dir_n[b] : 0;
		b = (b + 1) & (DIR_HASH - 1);
	}
	return 0;
}

/* Below DIR_MIN hits in all no directory can hold as many: no grouping. */
void maskdir_group(void)
{
	if (hits_now()->n >= DIR_MIN && !grouped)
		group();
}

bool maskdir_holds(unsigned i)
{
	return hits_now()->n >= DIR_MIN && dir_count(i) >= DIR_MIN;
}

/* --jail-explain's word on hit i: NULL, a mount of its own; "stand-in"
 * in its directory's one cover; "absent" there. */
const char *maskdir_note(unsigned i)
{
	unsigned n;

	if (!grouped)
		group();
	n = dir_count(i);
	return n < DIR_MIN ? NULL : n > STAND_IN_MAX ? "absent" : "stand-in";
}

static int name_find(const char *name, size_t nl, bool add, unsigned hit)
{
	uint32_t b = hash_of(name, nl) & (DIR_HASH - 1);

	while (name_hash[b]) {
		unsigned j = name_hash[b] - 1;
		const char *p = hit_path(j) + hinfo[j].parent_len + 1;

		if (!strcmp(p, name))
			return (int)j;
		b = (b + 1) & (DIR_HASH - 1);
	}
	if (add)
		name_hash[b] = hit + 1;
	return -1;
}

static void name_clear(const char *name, size_t nl)
{
	uint32_t b = hash_of(name, nl) & (DIR_HASH - 1);

	while (name_hash[b]) {
		name_hash[b] = 0;
		b = (b + 1) & (DIR_HASH - 1);
	}
}

static struct mount_attr dir_ro = {.attr_set = MOUNT_ATTR_RDONLY};

/* A file stand-in: another link of one node per mode in this tmpfs (a
 * link is only a name, where a node is an inode to make and to free
 * again: half the cost).  The nodes' own names go once the directory is
 * done; a stand-in then shows as many links as there are stand-ins of
 * its mode there. */
static uint8_t dir_node[07777 / 8 + 1];

/* mask.c's names for its nodes, with n for the kind: .aj-n0644. */
static void dir_node_name(char p[12], unsigned m)
{
	memcpy(p, ".aj-n", 5);
	for (int i = 0; i < 4; i++)
		p[5 + i] = (char)('0' + ((m >> (9 - 3 * i)) & 7));
	p[9] = '\0';
}

static int stand_in(int mfd, const char *name, unsigned m)
{
	char p[12];

	dir_node_name(p, m);
	if (!(dir_node[m / 8] & (1u << (m % 8)))) {
		if (mknodat(mfd, p, S_IFREG | m, 0))
			return -1;
		dir_node[m / 8] |= (uint8_t)(1u << (m % 8));
	}
	return linkat(mfd, p, mfd, name, 0);
}

static void stand_ins_done(int mfd)
{
	char p[12];

	for (unsigned m = 0; m <= 07777; m++)
		if (dir_node[m / 8] & (1u << (m % 8))) {
			dir_node_name(p, m);
			if (unlinkat(mfd, p, 0))
				die("remove a cover's node", errno, NULL);
		}
	memset(dir_node, 0, sizeof(dir_node));
}

/* The hits from first (a chain through hinfo.next) in the directory
 * whose path is their parent: one tmpfs with stand-ins over it. */
static void cover_dir(int pfd, unsigned first)
{
	static _Alignas(8) char buf[16384];
	static char path[AJ_PATH_MAX], lnk[AJ_PATH_MAX];
	static char changed[] = "it changed while the jail was being built (another process is "
	                        "renaming or replacing files in the project); try again";
	unsigned n = 0, seen = 0;
	char mode[8];
	struct stat st;
	mode_t old_umask;
	uint64_t dev;
	int dfd, fsfd, mfd;

	memcpy(path, hit_path(first), hinfo[first].parent_len);
	path[hinfo[first].parent_len] = '\0';
	for (unsigned i = first + 1; i; i = hinfo[i - 1].next) {
		const char *nm = hit_path(i - 1) + hinfo[i - 1].parent_len + 1;

		if (name_find(nm, strlen(nm), true, i - 1) < 0)
			n++;
	}
	dfd = openat2_(pfd, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW,
	               RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (dfd < 0 || fstat(dfd, &st))
		diep("cover", path, errno, changed);
	dev = st.st_dev;
	for (int k = 0; k < 4; k++)
		mode[k] = (char)('0' + ((st.st_mode >> (9 - 3 * k)) & 7));
	mode[4] = '\0';
	fsfd = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);
	if (fsfd < 0 || syscall(SYS_fsconfig, fsfd, FSCONFIG_SET_STRING, "mode", mode, 0) ||
	    syscall(SYS_fsconfig, fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
		diep("make a cover for", path, errno, NULL);
	mfd = (int)syscall(SYS_fsmount, fsfd, FSMOUNT_CLOEXEC,
	                   MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	close(fsfd);
	if (mfd < 0 ||
	    sys_move_mount(mfd, "", dfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH))
		diep("cover", path, errno, NULL);
	old_umask = umask(0);
	/* dfd is the directory below the cover: what is listed there is
	 * what the scan saw, or the jail does not start. */
	struct dir_iter it = {dfd, buf, sizeof(buf), 0, 0};
	for (struct aj_dirent *d; (d = dir_next(&it, "list", path));) {
		const char *nm = d->d_name;
		int j = name_find(nm, strlen(nm), false, 0);
		int sfd, tfd;

		if (j >= 0) {
			const struct scan_hit *h = &hits_now()->hits[j];
			bool deny = h->kind == AJ_PATTERN_DENY;
			unsigned char t = d->d_type;
			unsigned m = 0;

			/* The listing's inode and type against the scan's (the
			 * device is the directory's, checked above): no look-up
			 * per entry. */
			if (t == DT_UNKNOWN) {
				if (fstatat(dfd, nm, &st, AT_SYMLINK_NOFOLLOW))
					diep("cover", hit_path((unsigned)j), errno, changed);
				t = S_ISDIR(st.st_mode)   ? DT_DIR
				    : S_ISLNK(st.st_mode) ? DT_LNK
				                          : DT_REG;
			}
			if (d->d_ino != h->ino || h->dev != dev ||
			    (h->islink ? t != DT_LNK : (t == DT_DIR) != !!h->isdir || t == DT_LNK))
				diep("cover", hit_path((unsigned)j), 0, changed);
			if (!deny)
				m = h->islink ? 0444 : h->mode;
			seen++;
			if (n > STAND_IN_MAX)
				continue; /* absent: names cost as much as the rest of a launch */
			if (t == DT_DIR ? mkdirat(mfd, nm, m) : stand_in(mfd, nm, m))
				diep("make a cover for", hit_path((unsigned)j), errno, NULL);
			continue;
		}
		/* Any other name of a hit (renamed since the scan) is not
		 * brought in under it. */
		for (unsigned i = first + 1; i; i = hinfo[i - 1].next)
			if (hits_now()->hits[i - 1].ino == d->d_ino)
				diep("cover", path, 0, changed);
		if (d->d_type == DT_UNKNOWN) {
			if (fstatat(dfd, nm, &st, AT_SYMLINK_NOFOLLOW))
				diep("cover", path, errno, changed);
			d->d_type = S_ISDIR(st.st_mode)   ? DT_DIR
			            : S_ISLNK(st.st_mode) ? DT_LNK
			                                  : DT_REG;
		}
		if (d->d_type == DT_LNK) {
			ssize_t l = readlinkat(dfd, nm, lnk, sizeof(lnk) - 1);

			if (l < 0)
				diep("cover", path, errno, changed);
			lnk[l] = '\0';
			if (symlinkat(lnk, mfd, nm))
				diep("make a cover for", path, errno, NULL);
			continue;
		}
		if (d->d_type == DT_DIR ? mkdirat(mfd, nm, 0700)
		                        : mknodat(mfd, nm, S_IFREG | 0600, 0))
			diep("make a cover for", path, errno, NULL);
		sfd = sys_open_tree(dfd, nm,
		                    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE |
		                        AT_SYMLINK_NOFOLLOW);
		tfd = openat(mfd, nm, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (sfd < 0 || tfd < 0 ||
		    sys_move_mount(sfd, "", tfd, "",
		                   MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH))
			diep("cover", path, errno, NULL);
		close(sfd);
		close(tfd);
	}
	umask(old_umask);
	stand_ins_done(mfd);
	if (seen != n)
		diep("cover", path, 0, changed);
	if (sys_mount_setattr(mfd, "", AT_EMPTY_PATH, &dir_ro))
		diep("cover", path, errno, NULL);
	for (unsigned i = first + 1; i; i = hinfo[i - 1].next) {
		const char *nm = hit_path(i - 1) + hinfo[i - 1].parent_len + 1;

		name_clear(nm, strlen(nm));
	}
	close(mfd);
	close(dfd);
}

/* The directories covered whole, deepest first: a directory's cover
 * brings the covers below it along. */
void maskdir_cover(int pfd)
{
	unsigned depth_max = 0;

	for (unsigned b = 0; b < DIR_HASH; b++)
		if (big_dir(b)) {
			const char *p = hit_path(dir_first[b] - 1);
			unsigned dep = 1;

			for (unsigned k = 0; k < hinfo[dir_first[b] - 1].parent_len; k++)
				dep += p[k] == '/';
			if (dep > depth_max)
				depth_max = dep;
		}
	for (unsigned want = depth_max; want >= 1; want--)
		for (unsigned b = 0; b < DIR_HASH; b++) {
			const char *p;
			unsigned dep = 1;

			if (!big_dir(b))
				continue;
			p = hit_path(dir_first[b] - 1);
			for (unsigned k = 0; k < hinfo[dir_first[b] - 1].parent_len; k++)
				dep += p[k] == '/';
			if (dep == want)
				cover_dir(pfd, dir_first[b] - 1);
		}
}
