/* fallback.c: the jail that a policy declaring 'fallback landlock;'
 * gets where the namespaces cannot be had (nscause.c says why).
 *
 * Then the fallback: no namespace at all.  The caller's process stays the
 * supervisor outside; a child, confined like pid 1 would be, supervises
 * the target.  Landlock does the filesystem: the read-only mounts become
 * read-only rules on the host's own paths, the writable ones writable
 * rules, the tmpfs mounts ($HOME, /tmp, /var/tmp, /run) are not granted at
 * all and a private directory made for the run takes their place ($HOME
 * and $TMPDIR point into it); a masked entry is denied instead (nothing
 * can show an empty file in its place), and a denied one is left out of
 * every rule by granting its siblings (the fence of mask.c).  The seccomp
 * filter, the environment, rlimits and bounds, no_new_privs, the closed
 * fds and the new session are the full jail's.  What a mount would pin
 * (a secret's name) a record of the secrets' inodes keeps across runs.
 * What cannot be had without namespaces, --jail-explain lists as not in
 * force, and its rules are printed by the code that makes them. */
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

#include "sys.h"

/* ---- the fallback -------------------------------------------------------- */

/* --jail-explain's "name:" column (explain.c). */
static char private_dir[64]; /* made for this run: $HOME and $TMPDIR go into it */
static char private_home[80];
static char private_tmp[80];
static bool private_made;
static char tmpdir_env[96];
static const char *home_why; /* why $HOME is not the caller's own here */

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
	fd_path(self, pfd);
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
static void private_make(bool make)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char rnd[8];
	size_t n;

	if (private_dir[0])
		return;
	n = str_put(private_dir, 0, "/tmp/aijail.");
	for (unsigned k = 0;; k++) {
		if (!make) {
			str_put(private_dir, n, "XXXXXXXXXXXXXXXX");
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
	str_put(private_home, str_put(private_home, 0, private_dir), "/home");
	str_put(private_tmp, str_put(private_tmp, 0, private_dir), "/tmp");
	if (!make)
		return;
	private_made = true;
	aj_die_cleanup = private_release;
	if (mkdir(private_home, 0700) || mkdir(private_tmp, 0700))
		diep("create", private_home, errno, NULL);
}

/* $HOME is "/", unset or not a directory: the jail gets a private home
 * (empty, removed afterwards) instead of a refusal. */
const char *home_private(bool make)
{
	const char *home = var_value(AJ_VAR_HOME);
	struct stat st;

	if (home && !stat(home, &st) && S_ISDIR(st.st_mode))
		return NULL;
	home_why = home ? "it is not a directory here" : var_why(AJ_VAR_HOME);
	private_make(make);
	vars_set(AJ_VAR_HOME, private_home);
	return home_why;
}

/* ---- the record of the project's secrets --------------------------------
 *
 * In the full jail a cover is a mount, which pins the name: a secret
 * cannot be renamed, moved or linked elsewhere from inside.  Here nothing
 * does (Landlock lets a denied file be renamed within its directory, and
 * moved or linked anywhere that grants no more), and the next run's walk
 * matches names.  So every object the walk found (and everything inside a
 * denied directory) is recorded by its device and inode, in a file of the
 * caller's that no rule of the jail reaches, written before the target
 * starts; the next walk treats a recorded object under any name as found
 * (SCAN_BY_RECORD), and records it again.  Entries are never dropped while
 * there is room: an object not seen in a walk may sit where the walk does
 * not go.  An inode number the file system gives again to a new file after
 * a secret is deleted is then denied too: removing the record (its path:
 * --jail-explain) forgets them all. */
#define REC_MAX   4096
#define REC_MAGIC 0x31726a61u /* "ajr1" */

struct rec_ent {
	uint64_t dev, ino;
};
static struct rec_ent rec[REC_MAX]; /* sorted: the old record, then the merge */
static uint8_t rec_seen[REC_MAX];
static unsigned rec_n;
static struct rec_ent rec_add[REC_MAX]; /* what this run found */
static unsigned rec_n_add;
static int rec_dir = -1;           /* where it is written, O_PATH */
static char rec_path[AJ_PATH_MAX]; /* for explain and the messages */
static char rec_file[32];          /* "secrets-" and the project's key */
static const char *rec_why;        /* why none can be kept */
static char rec_cand[AJ_PATH_MAX]; /* the last candidate's path */

static int rec_cmp(const void *a, const void *b)
{
	const struct rec_ent *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static long rec_find(uint64_t dev, uint64_t ino)
{
	unsigned lo = 0, hi = rec_n;
	struct rec_ent k = {dev, ino};

	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;
		int c = rec_cmp(&k, &rec[mid]);

		if (!c)
			return mid;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

/* scan.c's hook: the walk asks for every entry no pattern matched. */
static bool recorded(int dfd, const char *name, uint64_t dev, uint64_t ino)
{
	struct stat st;
	long i;

	if (!ino) {
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
			return false;
		dev = st.st_dev;
		ino = st.st_ino;
	}
	if ((i = rec_find(dev, ino)) < 0)
		return false;
	rec_seen[i] = 1;
	return true;
}

/* Ours alone: a directory owned by us that nobody else may enter. */
static bool rec_private(int fd)
{
	struct stat st;

	return fd >= 0 && !fstat(fd, &st) && S_ISDIR(st.st_mode) && st.st_uid == getuid() &&
	       !(st.st_mode & 077);
}

/* dir/name, made 0700 if missing, if it is ours alone. */
static int rec_sub(int dir, const char *name, bool make)
{
	int fd;

	if (dir < 0)
		return -1;
	if (make)
		(void)mkdirat(dir, name, 0700);
	fd = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (rec_private(fd))
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Is dir, or any directory above it, one that a writable rule of the jail
 * grants (the project, a writable mount, the private directory)?  By
 * identity, walking up through "..". */
static bool rec_reachable(int dir, const struct stat *granted, unsigned n)
{
	struct stat st, up;
	int fd = openat(dir, ".", O_PATH | O_DIRECTORY | O_CLOEXEC), next;
	bool hit = fd < 0;

	for (unsigned depth = 0; fd >= 0 && !hit && depth < 64; depth++) {
		if (fstat(fd, &st)) {
			hit = true;
			break;
		}
		for (unsigned i = 0; i < n && !hit; i++)
			hit = granted[i].st_dev == st.st_dev && granted[i].st_ino == st.st_ino;
		next = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (next < 0 || fstat(next, &up) ||
		    (up.st_dev == st.st_dev && up.st_ino == st.st_ino)) {
			if (next >= 0)
				close(next);
			break;
		}
		close(fd);
		fd = next;
	}
	if (fd >= 0)
		close(fd);
	return hit;
}

/* The record's directories, in order: $XDG_RUNTIME_DIR/aijail,
 * ~/.cache/aijail (the caller's own $HOME, not the jail's), then
 * /tmp/aijail-UID, then /dev/shm/aijail-UID (for a project in /tmp: the
 * fallback grants no rule on /dev/shm); each only if it is the caller's alone and no writable
 * rule of the jail reaches it.  Every one found is read (a launch may see
 * another $XDG_RUNTIME_DIR than the last); the first is written. */
static int rec_candidate(unsigned k, bool make)
{
	const char *x = k == 0 ? getenv("XDG_RUNTIME_DIR") : k == 1 ? getenv("HOME") : NULL;
	char tmp[40];
	int fd, sub = -1;

	if (k >= 2) {
		size_t n = str_put(tmp, 0, k == 2 ? "/tmp/aijail-" : "/dev/shm/aijail-");

		tmp[n + fmt_u(tmp + n, getuid())] = '\0';
		if (make)
			(void)mkdir(tmp, 0700);
		fd = open(tmp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (rec_private(fd)) {
			str_put(rec_cand, 0, tmp);
			return fd;
		}
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!x || x[0] != '/' || !x[1])
		return -1;
	fd = open(x, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (k == 0 && rec_private(fd)) {
		sub = rec_sub(fd, "aijail", make);
	} else if (k == 1 && fd >= 0) {
		struct stat st;
		int cache;

		if (!fstat(fd, &st) && st.st_uid == getuid() && !(st.st_mode & 022)) {
			if (make)
				(void)mkdirat(fd, ".cache", 0700);
			cache = openat(fd, ".cache", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (cache >= 0 && !fstat(cache, &st) && st.st_uid == getuid() &&
			    !(st.st_mode & 022))
				sub = rec_sub(cache, "aijail", make);
			if (cache >= 0)
				close(cache);
		}
	}
	if (fd >= 0)
		close(fd);
	if (sub >= 0 && strlen(x) < sizeof(rec_cand) - 16)
		str_put(rec_cand, str_put(rec_cand, 0, x), k ? "/.cache/aijail" : "/aijail");
	return sub;
}

static void rec_read(int dir);

/* /tmp/aijail-UID is another user's (squatted): the record is in
 * /tmp/aijail-UID. and 16 random hex digits instead, found again by
 * listing /tmp for such a directory of ours, mode 0700 (nobody else can
 * make one of ours).  Every one found is read; the first, or one made
 * (make), is written. */
static void rec_tmp_scan(const struct stat *granted, unsigned ng, bool make)
{
	static _Alignas(8) char buf[4096];
	char pre[32] = "aijail-";
	size_t pl = 7 + fmt_u(pre + 7, getuid());
	int tmp = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd;
	long n;

	if (tmp < 0)
		return;
	pre[pl++] = '.';
	pre[pl] = '\0';
	while ((n = syscall(SYS_getdents64, tmp, buf, sizeof(buf))) > 0)
		for (long off = 0; off < n;) {
			struct aj_dirent *d = (struct aj_dirent *)(buf + off);

			off += d->d_reclen;
			if (strncmp(d->d_name, pre, pl) || strlen(d->d_name) >= 64)
				continue;
			fd = openat(tmp, d->d_name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (!rec_private(fd) || rec_reachable(fd, granted, ng)) {
				if (fd >= 0)
					close(fd);
				continue;
			}
			rec_read(fd);
			if (rec_dir < 0) {
				rec_dir = fd;
				str_put(rec_path, str_put(rec_path, 0, "/tmp/"), d->d_name);
			} else {
				close(fd);
			}
		}
	if (rec_dir < 0 && make) {
		unsigned char rnd[8];
		char name[64];
		size_t l = str_put(name, 0, pre);

		if (syscall(SYS_getrandom, rnd, sizeof(rnd), 0) != (long)sizeof(rnd))
			die("name the record's directory", errno, "getrandom(2) failed");
		for (unsigned i = 0; i < sizeof(rnd); i++) {
			name[l + 2 * i] = "0123456789abcdef"[rnd[i] >> 4];
			name[l + 2 * i + 1] = "0123456789abcdef"[rnd[i] & 15];
		}
		name[l + 2 * sizeof(rnd)] = '\0';
		if (mkdirat(tmp, name, 0700)) {
			close(tmp);
			return;
		}
		fd = openat(tmp, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		/* A project in /tmp reaches it too: none can be kept there. */
		if (rec_private(fd) && !rec_reachable(fd, granted, ng)) {
			rec_dir = fd;
			str_put(rec_path, str_put(rec_path, 0, "/tmp/"), name);
		} else {
			if (fd >= 0)
				close(fd);
			(void)unlinkat(tmp, name, AT_REMOVEDIR);
		}
	}
	close(tmp);
}

/* --jail-explain: would the run find or make the record's directory at
 * candidate k?  Its path into rec_path if so. */
static void rec_predict(unsigned k, const struct stat *granted, unsigned ng)
{
	const char *x = k == 0 ? getenv("XDG_RUNTIME_DIR") : k == 1 ? getenv("HOME") : NULL;
	struct stat st;
	int fd;

	if (k >= 2) {
		size_t n = str_put(rec_path, 0, k == 2 ? "/tmp/aijail-" : "/dev/shm/aijail-");

		rec_path[n + fmt_u(rec_path + n, getuid())] = '\0';
		fd = open(k == 2 ? "/tmp" : "/dev/shm", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0 || rec_reachable(fd, granted, ng))
			rec_path[0] = '\0';               /* a project there reaches it */
		else if (k == 2 && !lstat(rec_path, &st)) /* another's: a random name beside it */
			str_put(rec_path, strlen(rec_path), ".XXXXXXXXXXXXXXXX");
		else if (!lstat(rec_path, &st) || errno != ENOENT)
			rec_path[0] = '\0';
		if (fd >= 0)
			close(fd);
		return;
	}
	if (!x || x[0] != '/' || !x[1] || strlen(x) > sizeof(rec_path) - 32)
		return;
	fd = open(x, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (!fstat(fd, &st) && st.st_uid == getuid() && !(st.st_mode & (k ? 022 : 077)) &&
	    !rec_reachable(fd, granted, ng))
		str_put(rec_path, str_put(rec_path, 0, x), k ? "/.cache/aijail" : "/aijail");
	close(fd);
}

static void rec_read(int dir)
{
	struct stat st;
	uint32_t head[2];
	int fd = openat(dir, rec_file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	unsigned room = REC_MAX - rec_n, n;

	if (fd < 0) {
		if (errno != ENOENT)
			diep("read the record of secrets", rec_file, errno, NULL);
		return;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != getuid() ||
	    fd_read(fd, (char *)head, sizeof(head)) != sizeof(head) || head[0] != REC_MAGIC)
		diep("read the record of secrets", rec_file, 0,
		     "it is not one this stub wrote; remove it (every secret renamed since is then "
		     "readable again)");
	n = head[1] < room ? head[1] : room;
	if (fd_read(fd, (char *)(rec + rec_n), n * sizeof(rec[0])) != n * sizeof(rec[0]))
		diep("read the record of secrets", rec_file, EIO, NULL);
	rec_n += n;
	close(fd);
}

/* Before the walk: every record found, sorted, and the walk's hook. */
static void record_load(const struct run *r, bool make)
{
	const char *project = r->project;
	struct stat granted[AJ_PLAN_MAX + 18];
	struct stat pst;
	unsigned ng = 0;
	uint64_t h = 0xcbf29ce484222325ULL;
	int fd;

	if (stat(project, &pst))
		diep("inspect", project, errno, NULL);
	/* One record per project, by its identity. */
	for (unsigned i = 0; i < 16; i++)
		h = (h ^ ((i < 8 ? (uint64_t)pst.st_dev : (uint64_t)pst.st_ino) >> (8 * (i % 8)) &
		          0xff)) *
		    0x100000001b3ULL;
	memcpy(rec_file, "secrets-", 8);
	for (unsigned i = 0; i < 16; i++)
		rec_file[8 + i] = "0123456789abcdef"[(h >> (60 - 4 * i)) & 15];
	rec_file[24] = '\0';
	granted[ng++] = pst;
	if (!stat(private_dir, &granted[ng]))
		ng++;
	for (unsigned i = 0; i < plan_n && ng < sizeof(granted) / sizeof(granted[0]); i++)
		if (plan[i].path && !plan[i].missing && plan[i].m->op == AJ_MOUNT_RW &&
		    !stat(plan[i].path, &granted[ng]))
			ng++;
	/* A variant's own rule that writes ("/" only lists). */
	for (unsigned i = 0;
	     i < r->v->n_landlock_rules && ng < sizeof(granted) / sizeof(granted[0]); i++) {
		const struct aj_landlock_rule *l = &r->v->landlock_rules[i];
		char path[AJ_PATH_MAX];

		if ((l->access & ~(uint64_t)AJ_LL_RIGHTS_READ) &&
		    path_join(&l->path, path, sizeof(path)) >= 0 && !stat(path, &granted[ng]))
			ng++;
	}
	for (unsigned k = 0; k < 4; k++) {
		fd = rec_candidate(k, make && rec_dir < 0);
		if (fd < 0)
			continue;
		if (rec_reachable(fd, granted, ng)) {
			close(fd);
			continue;
		}
		rec_read(fd);
		if (rec_dir < 0) {
			rec_dir = fd;
			str_put(rec_path, 0, rec_cand);
		} else {
			close(fd);
		}
	}
	/* Squatted: a directory of a random name beside it. */
	{
		char tmp[32] = "/tmp/aijail-";
		struct stat st;

		tmp[12 + fmt_u(tmp + 12, getuid())] = '\0';
		if (!lstat(tmp, &st) &&
		    (st.st_uid != getuid() || !S_ISDIR(st.st_mode) || (st.st_mode & 077))) {
			rec_tmp_scan(granted, ng, make && rec_dir < 0);
		}
	}
	/* --jail-explain: where the run would make it. */
	for (unsigned k = 0; rec_dir < 0 && !make && !rec_path[0] && k < 4; k++)
		rec_predict(k, granted, ng);
	if (rec_dir < 0 && !rec_path[0]) {
		rec_why = "no directory of the caller's alone that the jail cannot write: "
		          "$XDG_RUNTIME_DIR, ~/.cache and /tmp/aijail-UID are missing, another "
		          "user's, or reachable from the jail";
		if (!make)
			return;
		diep("keep the record of the project's secrets", NULL, 0,
		     "no directory of yours alone that the jail cannot write ($XDG_RUNTIME_DIR, "
		     "~/.cache, /tmp/aijail-UID, /dev/shm/aijail-UID: missing, another user's, or "
		     "granted to the jail), "
		     "and without one a secret renamed in one run would be readable in the next; "
		     "set XDG_RUNTIME_DIR to a directory of yours, mode 0700, that the policy does "
		     "not grant");
	}
	qsort(rec, rec_n, sizeof(rec[0]), rec_cmp);
	/* Two records read may share entries. */
	{
		unsigned w = 0;

		for (unsigned i = 0; i < rec_n; i++)
			if (!w || rec_cmp(&rec[i], &rec[w - 1]))
				rec[w++] = rec[i];
		rec_n = w;
	}
	scan_recorded = recorded;
}

/* Why a declared fallback would not start for want of a record. */
const char *fallback_refusal(void)
{
	return fallback_active ? rec_why : NULL;
}

/* --jail-explain's: read, nothing made; its walk asks it too. */
void fallback_record(const struct run *r)
{
	record_load(r, false);
}

static void rec_note(uint64_t dev, uint64_t ino)
{
	long i = rec_find(dev, ino);

	if (i >= 0) {
		rec_seen[i] = 1;
		return;
	}
	if (rec_n_add == REC_MAX)
		die("record the project's secrets", 0,
		    "more than 4096 of them; narrow the policy's patterns");
	rec_add[rec_n_add++] = (struct rec_ent){dev, ino};
}

/* Everything inside a denied directory: a file moved out of it keeps its
 * inode. */
static void rec_tree(int dfd, unsigned depth)
{
	static _Alignas(8) char buf[16][2048];
	struct stat st;
	long n;

	if (depth >= 16 || fstat(dfd, &st))
		return;
	while ((n = syscall(SYS_getdents64, dfd, buf[depth], sizeof(buf[depth]))) > 0)
		for (long off = 0; off < n;) {
			struct aj_dirent *d = (struct aj_dirent *)(buf[depth] + off);
			const char *e = d->d_name;
			int sub;

			off += d->d_reclen;
			if (e[0] == '.' && (!e[1] || (e[1] == '.' && !e[2])))
				continue;
			rec_note(st.st_dev, d->d_ino);
			if (d->d_type != DT_DIR)
				continue;
			sub = openat(dfd, e, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0) {
				rec_tree(sub, depth + 1);
				close(sub);
			}
		}
}

/* After the walk, before the target starts: what it found, merged into
 * the record and written (a new file renamed over the old). */
static void record_save(void)
{
	static struct rec_ent out[REC_MAX];
	unsigned n = 0;
	uint32_t head[2] = {REC_MAGIC, 0};
	char tmp[48];
	int pfd = openat(AT_FDCWD, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd;

	if (pfd < 0)
		diep("scan", ".", errno, NULL);
	rec_n_add = 0;
	for (unsigned i = 0; i < scan->n; i++) {
		const struct scan_hit *h = &scan->hits[i];
		const char *p = scan->arena + h->off;

		if (!h->kind || !h->ino || h->why == SCAN_BY_DEPTH || h->why == SCAN_BY_SOCKET)
			continue;
		rec_note(h->dev, h->ino);
		if (h->isdir && !h->islink) {
			fd =
			    openat2_(pfd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW,
			             RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
			if (fd >= 0) {
				rec_tree(fd, 0);
				close(fd);
			}
		}
	}
	close(pfd);
	/* Nothing new: the record stands as it is (no write, no rename, on
	 * the way to the target). */
	if (!rec_n_add)
		return;
	/* Found now first, then the old ones seen, then the rest while there
	 * is room. */
	memcpy(out, rec_add, rec_n_add * sizeof(out[0]));
	n = rec_n_add;
	for (unsigned pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < rec_n; i++)
			if (rec_seen[i] == !pass) {
				if (n == REC_MAX)
					die("record the project's secrets", 0,
					    "more than 4096 of them; narrow the policy's patterns");
				out[n++] = rec[i];
			}
	qsort(out, n, sizeof(out[0]), rec_cmp);
	{
		unsigned w = 0;

		for (unsigned i = 0; i < n; i++)
			if (!w || rec_cmp(&out[i], &out[w - 1]))
				out[w++] = out[i];
		n = w;
	}
	head[1] = n;
	str_put(tmp, str_put(tmp, str_put(tmp, 0, rec_file), "."), "new");
	(void)unlinkat(rec_dir, tmp, 0);
	fd = openat(rec_dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, head, sizeof(head)) != (long)sizeof(head) ||
	    write(fd, out, n * sizeof(out[0])) != (long)(n * sizeof(out[0])) || close(fd) ||
	    renameat(rec_dir, tmp, rec_dir, rec_file))
		diep("write the record of secrets in", rec_path, errno, NULL);
}

/* Landlock does not restrict connect(2) to a named Unix socket, and no
 * mount hides one here: the Docker socket, root on the host, stays
 * reachable however the policy has the docker toggle.  Off, the fallback
 * refuses to start where it is. */
static const char *docker_reachable(const struct aj_variant *v)
{
	if (v->features & AJ_FEATURE_DOCKER)
		return NULL;
	return var_value(AJ_VAR_DOCKER_SOCKET);
}

static const char docker_hint[] =
    "the fallback cannot hide a Unix socket (Landlock does not restrict connecting to one), "
    "and a Docker socket is root on its host; remove it from the container, or give the "
    "container the options that allow namespaces";

/* The fallback is chosen: $HOME and $TMPDIR are the private directory's. */
void fallback_prepare(const struct aj_variant *v, bool make)
{
	const char *sock = docker_reachable(v);

	if (make && sock)
		diep("run without namespaces beside", sock, 0, docker_hint);
	fallback_active = true;
	private_make(make);
	vars_set(AJ_VAR_HOME, private_home);
}

/* TMPDIR into the private directory, after the environment is built. */
void fallback_env(char **envp, size_t max)
{
	size_t n = 0, i;

	str_put(tmpdir_env, str_put(tmpdir_env, 0, "TMPDIR="), private_tmp);
	for (i = 0; envp[i]; i++)
		if (!strncmp(envp[i], "TMPDIR=", 7)) {
			envp[i] = tmpdir_env;
			return;
		}
	n = i;
	if (n + 1 >= max)
		die("build the environment", E2BIG, "the host passes too many variables");
	envp[n] = tmpdir_env;
	envp[n + 1] = NULL;
}

/* Landlock without a mount namespace: rules on the host's own paths. */
static int fb_fd(const char *path, bool dir)
{
	return openat(AT_FDCWD, path, O_PATH | O_CLOEXEC | (dir ? O_DIRECTORY : 0));
}

#define FILE_RIGHTS                                                                                \
	(AJ_LL_EXECUTE | AJ_LL_WRITE_FILE | AJ_LL_READ_FILE | AJ_LL_TRUNCATE | AJ_LL_IOCTL_DEV)

/* A rule; ruleset < 0: --jail-explain's line for it instead, from the
 * same code, so that the list is the one in force. */
static void fb_rule(int ruleset, int fd, uint64_t access, bool isdir, const char *path)
{
	if (ruleset >= 0) {
		landlock_rule(ruleset, fd, access, isdir, path);
		return;
	}
	explain_rule(path, 0, false, isdir ? access : access & FILE_RIGHTS);
	if (fd > 2)
		close(fd);
}

/* The caller's own terminal, if one of fds 0-2 is a pty: the jail may
 * open it again by its name (/proc/self/fd/0, $(tty)). */
static int own_tty(struct stat *st)
{
	for (int fd = 0; fd < 3; fd++) {
		struct termios t;

		if (!fstat(fd, st) && S_ISCHR(st->st_mode) && !ioctl(fd, TCGETS, &t))
			return fd;
	}
	return -1;
}

/* The devices minimal /dev would hold, as the host has them.  Not the
 * container's /dev/shm nor /dev/pts: without a mount namespace neither
 * can be the jail's own, and both are shared with every other process
 * of the container (another session's terminal could be read and
 * written).  /dev/ptmx stays (a new pty's other end is reached through
 * the descriptor, TIOCGPTPEER, not by a name in /dev/pts), and so does
 * the caller's own terminal. */
static void dev_rules(int ruleset, uint64_t access)
{
	char path[32];
	struct stat st;
	int fd;

	access &= ~(AJ_LL_MAKE_CHAR | AJ_LL_MAKE_BLOCK | AJ_LL_EXECUTE);
	for (unsigned i = 0; dev_nodes[i]; i++) {
		str_put(path, str_put(path, 0, "/dev/"), dev_nodes[i]);
		fd = fb_fd(path, false);
		if (fd >= 0)
			fb_rule(ruleset, fd, access, false, path);
	}
	fd = fb_fd("/dev/ptmx", false);
	if (fd >= 0 && !fstat(fd, &st) && S_ISCHR(st.st_mode))
		fb_rule(ruleset, fd, access, false, "/dev/ptmx");
	else if (fd >= 0)
		close(fd);
	if ((fd = own_tty(&st)) >= 0) {
		char tty[64];

		fd_path(tty, fd);
		fb_rule(ruleset, fd, access, false, tty);
	}
}

/* The child, before its seccomp filter: every rule, then the domain. */
static bool fence_needed(void)
{
	for (unsigned i = 0; i < scan->n; i++)
		if (scan->hits[i].kind != AJ_PATTERN_PRUNE)
			return true;
	return false;
}

/* No empty file can stand for a masked one: it is denied. */
static void masks_denied(void)
{
	for (unsigned i = 0; i < scan->n; i++)
		if (scan->hits[i].kind == AJ_PATTERN_MASK)
			scan->hits[i].kind = AJ_PATTERN_DENY;
}

/* The project's plan entry, when it is a directory mount of its own. */
static struct plan_entry *fb_project(const char *project)
{
	for (unsigned i = 0; i < plan_n; i++)
		if (plan[i].path && !plan[i].missing && !strcmp(plan[i].path, project) &&
		    (plan[i].m->op == AJ_MOUNT_RO || plan[i].m->op == AJ_MOUNT_RW))
			return &plan[i];
	return NULL;
}

/* The rules, into ruleset; describe: printed for --jail-explain instead
 * (nothing is opened that could fail the explanation). */
static void fallback_rules(const struct run *r, int ruleset, bool describe)
{
	const struct aj_variant *v = r->v;
	struct plan_entry *project = NULL;
	char path[AJ_PATH_MAX];
	int fd;

	if (describe)
		for (unsigned i = 0; i < v->n_landlock_rules; i++) {
			const struct aj_landlock_rule *l = &v->landlock_rules[i];

			explain_rule(path_join(&l->path, path, sizeof(path)) < 0 ? NULL : path,
			             l->path.var, false, l->access);
		}
	for (unsigned i = 0; i < plan_n; i++) {
		struct plan_entry *e = &plan[i];
		const struct aj_mount *m = e->m;
		struct stat st;

		if (!e->path || e->missing)
			continue;
		switch (m->op) {
		case AJ_MOUNT_RO:
		case AJ_MOUNT_RW:
			if ((m->flags & AJ_MOUNT_WITH_DEVICES) && !plan_has_devices())
				continue;
			fd = describe ? fb_fd(e->path, false)
			              : plan_source_open(m, e->path, &e->why);
			if (fd < 0) {
				if (describe || ((m->flags & AJ_MOUNT_OPTIONAL) &&
				                 (e->why || errno == ENOENT || errno == ENOTDIR)))
					continue;
				diep("open", e->path, e->why ? 0 : errno,
				     e->why ? e->why : "the policy needs it");
			}
			if (fstat(fd, &st))
				diep("inspect", e->path, errno, NULL);
			if (m->op == AJ_MOUNT_RW && !describe)
				refusals_log_guard(fd, e->path);
			if (!describe) {
				e->fd = fd;
				e->isdir = S_ISDIR(st.st_mode);
			}
			if (!strcmp(e->path, r->project) && S_ISDIR(st.st_mode)) {
				project = e;
				if (describe)
					close(fd);
				continue;
			}
			fb_rule(ruleset, fd,
			        m->landlock | (S_ISDIR(st.st_mode) ? 0 : landlock_socket_right(fd)),
			        S_ISDIR(st.st_mode), e->path);
			break;
		case AJ_MOUNT_DEV:
			dev_rules(ruleset, m->landlock);
			break;
		case AJ_MOUNT_PROC:
			/* The container's /proc, read-only: Landlock keeps
			 * other domains' memory and environment out of reach
			 * (its ptrace rule), not their command lines. */
			fd = fb_fd(e->path, true);
			if (fd >= 0)
				fb_rule(ruleset, fd, AJ_LL_READ_FILE | AJ_LL_READ_DIR, true,
				        e->path);
			break;
		default:
			break; /* links, tmpfs and device nodes: nothing of the host's */
		}
	}
	if (describe) {
		explain_rule(private_dir, 0, false, AJ_LL_RIGHTS_ALL);
	} else {
		fd = fb_fd(private_dir, true);
		if (fd < 0)
			diep("open", private_dir, errno, NULL);
		landlock_rule(ruleset, fd, AJ_LL_RIGHTS_ALL, true, private_dir);
	}
	if (project && fence_needed()) {
		/* Every denied entry is left out of the rules (the fence). */
		masks_denied();
		if (describe)
			explain_rule(project->path, 0, false,
			             project->m->landlock & ~(AJ_LL_READ_FILE | AJ_LL_EXECUTE));
		else
			(void)fence_project(ruleset, project);
	} else if (project) {
		fb_rule(ruleset, describe ? -1 : project->fd, project->m->landlock, true,
		        project->path);
	}
}

/* --jail-explain's "landlock rules" and "fence" here: the rules above,
 * and how many the fence takes (0: none, why says). */
void fallback_explain_rules(const struct run *r)
{
	rp_open("landlock_rules", '[');
	if (r->v->landlock != AJ_LANDLOCK_OFF) {
		rp_t("landlock rules (the fallback's, on the container's own paths):\n");
		fallback_rules(r, -1, true);
	}
	rp_close();
}

unsigned fallback_fence(const struct run *r, const struct plan_entry **e)
{
	*e = fence_needed() ? fb_project(r->project) : NULL;
	return *e ? fence_count(*e) : 0;
}

static void fallback_landlock(const struct run *r)
{
	/* With the variant's own rules ("/"); every rule's rights are
	 * narrowed in landlock_rule(). */
	int ruleset = landlock_create(r->v);

	if (ruleset < 0)
		die("enforce Landlock", 0,
		    "the fallback confines the filesystem with Landlock alone, and the kernel has "
		    "none (CONFIG_SECURITY_LANDLOCK, and \"landlock\" in the lsm= boot parameter)");
	fallback_rules(r, ruleset, false);
	landlock_enforce(ruleset);
}

/* Without a network namespace, no socket but a Unix one where the policy
 * has no network (none, loopback): what 'network blocked' compiles in,
 * for every other variant.  One program, installed beside the policy's:
 * the kernel applies the strictest verdict, and the policy's filter
 * already kills every foreign architecture, so the number is the native
 * one.  socket(2) reads its family as an int: the low 32 bits. */
static const struct sock_filter unix_only[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 3),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 1, 0),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EAFNOSUPPORT),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};

/* Its length where the fallback installs it (--jail-explain), else 0. */
unsigned fallback_socket_filter(const struct aj_variant *v)
{
	if (!fallback_active || v->network == AJ_NET_HOST || v->network == AJ_NET_BLOCKED)
		return 0;
	return sizeof(unix_only) / sizeof(unix_only[0]);
}

static void sockets_unix_only(const struct aj_variant *v)
{
	struct sock_fprog prog = {sizeof(unix_only) / sizeof(unix_only[0]),
	                          (struct sock_filter *)(uintptr_t)unix_only};

	if (v->network == AJ_NET_HOST || v->network == AJ_NET_BLOCKED)
		return;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		die("install the seccomp filter", errno, NULL);
}

/* As privs_drop(), for a process that may hold no capability at all: the
 * bounding set is dropped where we may (a root caller must: its execve
 * would take them back), and no_new_privs keeps the rest out of reach. */
static void fallback_privs(void)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die("set no_new_privs", errno, NULL);
	for (unsigned cap = 0;; cap++) {
		int in = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);

		if (in < 0)
			break; /* past the kernel's last capability */
		if (in && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && (errno != EPERM || !geteuid()))
			die("drop capabilities", errno,
			    "root needs CAP_SETPCAP to drop the capability bounding set");
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL)
		die("clear ambient capabilities", errno, NULL);
	caps_clear(-1);
}

noreturn void fallback_run(struct run *r)
{
	pid_t pid;
	int fd;

	signals_block();
	/* The launcher is empty (ns_enter says why); here the child and
	 * the target are of the same user in the same pid namespace. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		die("make the supervisor undumpable", errno, NULL);
	pid = ns_clone(SIGCHLD, &fd);
	if (pid) {
		aj_die_reap = pid;
		limits_place(pid);
		record_load(r, true);
		scan_project(".", r->v);
		record_save();
		ns_scan_send(fd);
		notify_start(r->v, fd);
		supervise_parent(pid);
	}
	ns_scan_receive();
	/* Orphans of the target come to the supervisor, not the host's
	 * init, and die with the target's process group at the end. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		die("become the jail's reaper", errno, NULL);
	rlimits_apply(r->v);
	limits_apply();
	/* Without CAP_SYS_ADMIN, Landlock wants it first. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die("set no_new_privs", errno, NULL);
	fallback_landlock(r);
	if (chdir(r->project))
		diep("enter the project", r->project, errno, NULL);
	fds_close(ns_parent_sock(r->v));
	fallback_privs();
	/* First: a policy's allowlist need not allow seccomp(2) itself. */
	sockets_unix_only(r->v);
	seccomp_install(r->v);
	supervise_init(r);
}

/* --jail-explain: the cause, what is used instead, what is not in force.
 * Returns the exit status explain ends with. */
int fallback_explain(const struct run *r, const char *cause)
{
	static const char *const missing[] = {
	    "a private root: the host's paths are reached through Landlock rules instead "
	    "(read-only mounts as read-only rules, writable ones as writable rules, the "
	    "rest of the host not at all)",
	    "masks: a masked entry cannot be shown empty, it is denied instead (EACCES); "
	    "denied entries are left out of every rule by granting their siblings, so a new "
	    "file in a directory on the way to one cannot be read back, and a denied file "
	    "can still be overwritten, truncated, removed or renamed within its directory (not "
	    "read); the record above keeps what a run renames, moves or links denied in the "
	    "runs after it",
	    "hiding what a denied directory holds: its names, and the sizes, owners and times "
	    "of what is in it, can be listed and looked up (Landlock refuses reading a file, "
	    "not listing a directory below a granted one, nor stat(2))",
	    "a private, empty $HOME and /tmp: writes are confined to the project and the "
	    "private directory above",
	    "a pid namespace: the jail sees the container's processes (Landlock keeps their "
	    "memory and environment out of reach), and a process that leaves the command's "
	    "session outlives it",
	    "a network namespace: where the policy has no network, TCP is refused by "
	    "Landlock (ABI 4) and every socket family but AF_UNIX by seccomp; the "
	    "container's network tables in /proc/net stay readable",
	    "the IPC and UTS namespaces: System V IPC and the host name are the container's",
	    "a per-jail process bound without a cgroup: RLIMIT_NPROC then counts every process "
	    "of the user in the container's user namespace (the host's, under Docker's "
	    "defaults), not only the jail's, and binds no root of the host's user namespace",
	    "hiding Unix sockets: Landlock does not restrict connecting to a named one, so a "
	    "socket of the container (or a denied one in the project) can be connected to; "
	    "the Docker socket makes the fallback refuse to start",
	    "a fresh /proc and a minimal /dev: the container's, with rules on the nodes "
	    "minimal /dev holds",
	    "a private /dev/shm and /dev/pts: the container's are shared with its other "
	    "processes, so neither is granted: POSIX shared memory and named semaphores fail "
	    "with EACCES (Python multiprocessing's Lock, Queue, Pool and shared_memory), and so "
	    "does opening a new pty's other end by its name (openpty(3); TIOCGPTPEER works); "
	    "/dev/ptmx and the caller's own terminal stay",
	    "the mode's record for a jail inside this one: a nested jail's own layers add "
	    "to these, its mode floor is not checked",
	};
	bool declared = (r->v->flags & AJ_VARIANT_FALLBACK) && !mode_outer();
	const char *refused = declared && cause && docker_reachable(r->v) ? docker_hint : NULL;
	bool no_landlock = r->v->landlock == AJ_LANDLOCK_OFF || !landlock_abi();
	int status = !cause                                           ? 0
	             : !declared || refused || no_landlock || rec_why ? AJ_EXIT_SETUP
	                                                              : 2;
	bool listed = declared && !refused && !no_landlock;

	if (fallback_active)
		masks_denied();
	rp_open("home", '{');
	rp_bool("private", home_why != NULL);
	if (home_why) {
		rp_field("home");
		rp_t("$HOME: ");
		rp_str("why", home_why);
		rp_t(": the jail gets a private one, ");
		rp_str("path", private_home);
		rp_t(", made for the run and removed after it\n");
	} else {
		rp_jstr("why", NULL);
		rp_jstr("path", NULL);
	}
	rp_close();
	rp_open("fallback", '{');
	rp_bool("declared", declared);
	rp_bool("runs", status == 2);
	if (!cause) {
		rp_jstr("why", NULL);
		rp_jstr("private_dir", NULL);
		rp_jstr("record", NULL);
		rp_ju("record_objects", 0);
		rp_jstr("record_why", NULL);
		rp_open("not_in_force", '[');
		rp_close();
		rp_close();
		return 0;
	}
	rp_field("fallback");
	if (!declared) {
		rp_str("why", "none declared: the jail would not start (exit 125); 'fallback "
		              "landlock;' in the policy would run it with Landlock alone");
		rp_t("\n");
	} else if (refused) {
		rp_t("landlock, declared by the policy, but REFUSED here: ");
		rp_t(var_value(AJ_VAR_DOCKER_SOCKET));
		rp_t(": ");
		rp_str("why", refused);
		rp_t(" (exit 125)\n");
	} else {
		rp_t("landlock, declared by the policy: the command runs without namespaces, with "
		     "Landlock, seccomp, the environment, rlimits and bounds, no_new_privs, closed "
		     "fds and a new session\n");
		rp_jstr("why", no_landlock
		                   ? "the kernel has no Landlock, or the policy turns it off"
		                   : NULL);
		if (no_landlock)
			rp_t("  the kernel has no Landlock, or the policy turns it off: the jail "
			     "would "
			     "not start (exit 125)\n");
		else if (landlock_abi() < 4 && r->v->network != AJ_NET_HOST)
			rp_t("  WARNING: Landlock ABI below 4 here: TCP is NOT refused\n");
		rp_t("  private directory ");
		rp_str("private_dir", private_dir);
		rp_t(" ($HOME ");
		rp_t(private_home);
		rp_t(", $TMPDIR ");
		rp_t(private_tmp);
		rp_t("), a random name, made for the run and removed after it\n");
		rp_t("  record of secrets ");
		if (rec_why) {
			rp_jstr("record", NULL);
			rp_ju("record_objects", 0);
			rp_t("NOT possible here: ");
			rp_str("record_why", rec_why);
			rp_t(": the jail would not start (exit 125)\n");
		} else {
			rp_str("record", rec_path);
			if (rec_dir >= 0) {
				rp_t("/");
				rp_t(rec_file);
			}
			rp_t(" (");
			rp_u("record_objects", rec_n);
			rp_t(" objects): what one run renames, moves or links stays denied in the "
			     "next\n");
			rp_jstr("record_why", NULL);
		}
		rp_t("not in force:\n");
	}
	if (!declared || refused) {
		rp_jstr("private_dir", NULL);
		rp_jstr("record", NULL);
		rp_ju("record_objects", 0);
		rp_jstr("record_why", NULL);
	}
	rp_open("not_in_force", '[');
	for (unsigned i = 0; listed && i < sizeof(missing) / sizeof(missing[0]); i++) {
		rp_t("  ");
		rp_str(NULL, missing[i]);
		rp_t("\n");
	}
	rp_close();
	rp_close();
	return status;
}
