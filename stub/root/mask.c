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

/* ---- a directory full of hits: one cover for all of them --------------
 *
 * A cover per entry costs a mount (about 30 us to make, and as much to
 * tear down with the namespace): thousands of key files in a TLS
 * library's tests took seconds.  A directory holding at least DIR_MIN
 * hits of its own gets one read-only tmpfs instead, holding a stand-in
 * for each hit (the same nodes as above: an empty file or directory with
 * the original's mode, mode 000 for a deny) and, for every other entry,
 * the original bound in (its own covers below come along, being done
 * first, deepest directories first) or, a symlink, a copy of it.  Past
 * STAND_IN_MAX hits the hits get no stand-in (absent).  What is new in
 * that directory during the run cannot be made there (the tmpfs is
 * read-only); docs/secrets.md says so. */
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

static bool in_big_dir(unsigned i)
{
	return dir_count(i) >= DIR_MIN;
}

/* --jail-explain's word on hit i: NULL, a mount of its own; "stand-in"
 * in its directory's one cover; "absent" there. */
const char *mask_cover_note(unsigned i)
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

static void dir_node_name(char p[12], unsigned m)
{
	node_name(p, false, false, m);
	p[4] = 'n';
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
static void cover_dirs(int pfd)
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

/* The covers, from the scan just received: the stage plan_make opened,
 * kept past the launch when names that appear are covered too. */
void mask_apply(const char *project, const struct aj_variant *v, const struct plan_made *made)
{
	int pfd = -1;
	bool big = false;

	stage_fd = made->stage_fd;
	stage_under = made->stage_under;
	mask_tell_unchecked();

	if (hits_now()->n >= DIR_MIN && !grouped)
		group();

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
		if (hits_now()->n >= DIR_MIN && in_big_dir(i)) {
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
		cover_dirs(pfd);
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
