/* record.c: the fallback's record of the project's secrets, by device
 * and inode, kept across runs where no rule of the jail reaches (the
 * fallback mounts nothing, so nothing pins a secret's name; why below). */
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

/* The record's directories, in order: the caller's own directories
 * (variant/own.c: $XDG_RUNTIME_DIR/aijail, the cache's aijail), then
 * /tmp/aijail-UID, then /dev/shm/aijail-UID (for a project in /tmp: the
 * fallback grants no rule on /dev/shm); each only if it is the caller's
 * alone and no writable rule of the jail reaches it.  Every one found is
 * read (a launch may see another $XDG_RUNTIME_DIR than the last); the
 * first is written. */
#define REC_DIRS (OWN_DIRS + 2)
static int rec_candidate(unsigned k, bool make)
{
	char tmp[40];
	bool absent;
	int fd;

	if (k < OWN_DIRS) {
		fd = own_dir(k, make, rec_cand, sizeof(rec_cand), &absent);
		return fd >= 0 ? fd : -1;
	}
	size_t n = out_str_put(tmp, 0, k == OWN_DIRS ? "/tmp/aijail-" : "/dev/shm/aijail-");

	tmp[n + out_fmt_u(tmp + n, getuid())] = '\0';
	if (make)
		(void)mkdir(tmp, 0700);
	fd = open(tmp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (own_is(fd, 077)) {
		out_str_put(rec_cand, 0, tmp);
		return fd;
	}
	if (fd >= 0)
		close(fd);
	return -1;
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
	size_t pl = 7 + out_fmt_u(pre + 7, getuid());
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
			if (!own_is(fd, 077) || rec_reachable(fd, granted, ng)) {
				if (fd >= 0)
					close(fd);
				continue;
			}
			rec_read(fd);
			if (rec_dir < 0) {
				rec_dir = fd;
				out_str_put(rec_path, out_str_put(rec_path, 0, "/tmp/"), d->d_name);
			} else {
				close(fd);
			}
		}
	if (rec_dir < 0 && make) {
		unsigned char rnd[8];
		char name[64];
		size_t l = out_str_put(name, 0, pre);

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
		if (own_is(fd, 077) && !rec_reachable(fd, granted, ng)) {
			rec_dir = fd;
			out_str_put(rec_path, out_str_put(rec_path, 0, "/tmp/"), name);
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
	struct stat st;
	int fd;

	if (k < OWN_DIRS) {
		bool absent;
		char up[AJ_PATH_MAX];

		fd = own_dir(k, false, rec_path, sizeof(rec_path), &absent);
		if (fd == OWN_UNUSABLE && absent) {
			/* Not made yet: the nearest directory above it that is. */
			out_str_put(up, 0, rec_path);
			do
				*strrchr(up, '/') = '\0';
			while ((fd = open(up, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 &&
			       strchr(up, '/') && up[0]);
		}
		if (fd < 0 || rec_reachable(fd, granted, ng))
			rec_path[0] = '\0';
		if (fd >= 0)
			close(fd);
		return;
	}
	size_t n = out_str_put(rec_path, 0, k == OWN_DIRS ? "/tmp/aijail-" : "/dev/shm/aijail-");

	rec_path[n + out_fmt_u(rec_path + n, getuid())] = '\0';
	fd = open(k == OWN_DIRS ? "/tmp" : "/dev/shm", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || rec_reachable(fd, granted, ng))
		rec_path[0] = '\0';                      /* a project there reaches it */
	else if (k == OWN_DIRS && !lstat(rec_path, &st)) /* another's: a random name beside it */
		out_str_put(rec_path, strlen(rec_path), ".XXXXXXXXXXXXXXXX");
	else if (!lstat(rec_path, &st) || errno != ENOENT)
		rec_path[0] = '\0';
	if (fd >= 0)
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
	    out_read(fd, (char *)head, sizeof(head)) != sizeof(head) || head[0] != REC_MAGIC)
		diep("read the record of secrets", rec_file, 0,
		     "it is not one this stub wrote; remove it (every secret renamed since is then "
		     "readable again)");
	n = head[1] < room ? head[1] : room;
	if (out_read(fd, (char *)(rec + rec_n), n * sizeof(rec[0])) != n * sizeof(rec[0]))
		diep("read the record of secrets", rec_file, EIO, NULL);
	rec_n += n;
	close(fd);
}

/* Before the walk: every record found, sorted, and the walk's hook. */
void record_load(const struct run *r, bool make)
{
	const char *project = r->project;
	struct stat granted[AJ_PLAN_MAX + 18];
	struct stat pst;
	unsigned ng = 0;
	uint64_t h = 0xcbf29ce484222325ULL;
	int fd;
	unsigned pn;
	struct plan_entry *pl = plan_entries(&pn);

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
	for (unsigned i = 0; i < pn && ng < sizeof(granted) / sizeof(granted[0]); i++)
		if (pl[i].path && !pl[i].missing && aj_op_is(pl[i].m->op, AJ_OP_WRITES) &&
		    !stat(pl[i].path, &granted[ng]))
			ng++;
	/* A variant's own rule that writes ("/" only lists). */
	for (unsigned i = 0;
	     i < r->v->n_landlock_rules && ng < sizeof(granted) / sizeof(granted[0]); i++) {
		const struct aj_landlock_rule *l = &r->v->landlock_rules[i];
		char path[AJ_PATH_MAX];

		if ((l->access & ~(uint64_t)AJ_LL_RIGHTS_READ) &&
		    vars_path_join(&l->path, path, sizeof(path)) >= 0 && !stat(path, &granted[ng]))
			ng++;
	}
	for (unsigned k = 0; k < REC_DIRS; k++) {
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
			out_str_put(rec_path, 0, rec_cand);
		} else {
			close(fd);
		}
	}
	/* Squatted: a directory of a random name beside it. */
	{
		char tmp[32] = "/tmp/aijail-";
		struct stat st;

		tmp[12 + out_fmt_u(tmp + 12, getuid())] = '\0';
		if (!lstat(tmp, &st) &&
		    (st.st_uid != getuid() || !S_ISDIR(st.st_mode) || (st.st_mode & 077))) {
			rec_tmp_scan(granted, ng, make && rec_dir < 0);
		}
	}
	/* --jail-explain: where the run would make it. */
	for (unsigned k = 0; rec_dir < 0 && !make && !rec_path[0] && k < REC_DIRS; k++)
		rec_predict(k, granted, ng);
	if (rec_dir < 0 && !rec_path[0]) {
		rec_why = "no directory of the caller's alone that the jail cannot write: "
		          "$XDG_RUNTIME_DIR, the cache ($XDG_CACHE_HOME or ~/.cache) and "
		          "/tmp/aijail-UID are missing, another user's, or reachable from the jail";
		if (!make)
			return;
		diep("keep the record of the project's secrets", NULL, 0,
		     "no directory of yours alone that the jail cannot write ($XDG_RUNTIME_DIR, "
		     "$XDG_CACHE_HOME or ~/.cache, /tmp/aijail-UID, /dev/shm/aijail-UID: missing, "
		     "another user's, or "
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
	scan_record_hook(recorded);
}

/* Why a declared fallback would not start for want of a record. */
const char *record_refusal(const struct run *r)
{
	return run_in_fallback(r) ? rec_why : NULL;
}

/* --jail-explain's: read, nothing made; its walk asks it too. */
void record_read(const struct run *r)
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
void record_save(void)
{
	static struct rec_ent out[REC_MAX];
	unsigned n = 0;
	uint32_t head[2] = {REC_MAGIC, 0};
	char tmp[48];
	int pfd = openat(AT_FDCWD, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd;

	if (pfd < 0)
		diep("scan", ".", errno, NULL);
	rec_n_add = 0;
	for (unsigned i = 0; i < hits_now()->n; i++) {
		const struct scan_hit *h = &hits_now()->hits[i];
		const char *p = hits_now()->arena + h->off;

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
	out_str_put(tmp, out_str_put(tmp, out_str_put(tmp, 0, rec_file), "."), "new");
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

/* --jail-explain's line for the record (fallback_explain()). */
void record_explain(void)
{
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
}

/* Why no record can be kept here, or NULL. */
const char *record_why(void)
{
	return rec_why;
}
