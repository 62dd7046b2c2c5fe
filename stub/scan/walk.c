/* walk.c: the walk's part below scan.c: one directory's entries, each
 * classified once by the compiled matcher (match.c), what matched noted
 * as a hit (the object it is, its other hard links), the directories
 * entered.  scan.c (the whole walk, its check afterwards, the watcher's
 * redo) says where; its comment says what the walk promises. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scan/walk.h"

#define SCAN_BUF 8192

struct walk_state walk_st;
static dev_t listing_dev; /* the device of the directory whose entry is being classified */
static bool reserve;      /* deny_dir's: the reserve may be used */
#define SCAN_RESERVE 4    /* hits kept for the collapses' denies */
/* One buffer per level (a directory's entries are still being read while
 * its subdirectories are walked); untouched levels cost no memory. */
static _Alignas(8) char dbuf[AJ_SCAN_DEPTH_MAX][SCAN_BUF];

/* The hooks (scan.h tells whose): the fallback's record, settle.c's
 * watches; hits' changes. */
bool (*walk_recorded)(int dfd, const char *name, uint64_t dev, uint64_t ino);
int (*walk_on_dir)(int fd, unsigned rec);
unsigned walk_changes;

static struct stat hit_st; /* the last hit's, st_ino 0: none */
static const char search_hint[] =
    "a directory of the project cannot be searched, so it cannot be checked for secrets; "
    "chmod u+x it";

/* dfd and name: the entry, whose identity the cover will be checked
 * against (dfd < 0: none, an absent guarded path). */
void walk_add_hit(int dfd, const char *name, uint64_t ino, uint8_t kind, unsigned char type,
                  uint8_t why, size_t len)
{
	struct stat st = {0};

	hit_st.st_ino = 0;
	if (dfd >= 0 && !name) { /* the directory dfd itself */
		if (fstat(dfd, &st))
			diep("inspect", rel, errno, NULL);
	} else if (dfd >= 0 && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT)
			return; /* removed, or moved: verify() finds where to */
		if (errno == ENOTDIR) {
			unstable = true;
			return;
		}
		if (errno != EACCES)
			diep("inspect", rel, errno, NULL);
		st.st_ino = 0; /* in a directory it cannot search: checked by type only */
	}
	if (relisting)
		for (unsigned i = 0; i < hits_cur->n; i++)
			if (!strcmp(hits_cur->arena + hits_cur->hits[i].off, rel))
				return; /* found by the walk already */
	/* The object the listing named, or the tree is moving. */
	if (ino && st.st_ino && st.st_dev == listing_dev && st.st_ino != ino) {
		unstable = true;
		return;
	}
	/* Full: the walk unwinds to walk_deny_dir(), which has the reserve. */
	if (!reserve &&
	    (hits_cur->n >= AJ_SCAN_MAX - SCAN_RESERVE ||
	     hits_cur->used + len + 1 > sizeof(hits_cur->arena) - SCAN_RESERVE * AJ_PATH_MAX)) {
		full = true;
		return;
	}
	if (hits_cur->n == AJ_SCAN_MAX || hits_cur->used + len + 1 > sizeof(hits_cur->arena))
		diep("mask", rel, 0,
		     "too many masked or denied paths in this project; "
		     "narrow the policy's patterns");
	memcpy(hits_cur->arena + hits_cur->used, rel, len + 1);
	hits_cur->hits[hits_cur->n++] = (struct scan_hit){
	    .kind = kind,
	    .isdir = type == T_DIR,
	    .why = why,
	    .islink = type == T_LNK,
	    .off = hits_cur->used,
	    .dev = st.st_dev,
	    .ino = st.st_ino,
	    .mode = (uint16_t)(st.st_mode & 07777),
	};
	hits_cur->used += (uint32_t)len + 1;
	walk_changes++;
	hit_st = st;
}

/* For --jail-explain: how many directories were left unwalked, the first. */
static void note_pruned(size_t len)
{
	unsigned i;

	if (relisting)
		return; /* counted by the walk */
	i = hits_cur->n_pruned++;
	if (second_pass || i >= SCAN_PRUNED_SHOWN)
		return;
	hits_cur->pruned[i] = UINT32_MAX;
	if (hits_cur->used + len + 1 > sizeof(hits_cur->arena))
		return;
	memcpy(hits_cur->arena + hits_cur->used, rel, len + 1);
	hits_cur->pruned[i] = hits_cur->used;
	hits_cur->used += (uint32_t)len + 1;
}

static void note_links(int dfd, const char *name, uint8_t kind)
{
	struct stat st = hit_st; /* add_hit's look at it, when it had one */

	if (!st.st_ino && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		diep("inspect", rel, errno, errno == EACCES ? search_hint : NULL);
	hits_links_note(&st, kind);
}

static uint8_t linked_kind(int dfd, const char *name, uint8_t *why)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno != ENOENT)
			diep("inspect", rel, errno, errno == EACCES ? search_hint : NULL);
		return 0;
	}
	return hits_links_kind(&st, why);
}

/* A matched regular file, by its listing only (dev: its directory's);
 * defer_settle() decides whether it gets a look. */
static void add_listed(uint64_t ino, uint8_t kind, size_t len)
{
	unsigned n = hits_cur->n;

	walk_add_hit(-1, NULL, 0, kind, T_REG, SCAN_BY_NAME, len);
	if (hits_cur->n > n) {
		hits_cur->hits[n].dev = listing_dev;
		hits_cur->hits[n].ino = ino;
		hits_cur->hits[n].listed = 1;
	}
}

/* The directory at dfd (dev, rel, len bytes) just listed, with entries
 * entries; its hits from first on.  Where pid 1 will cover it whole
 * (mask.c's rule, scan.h), what it checks of a hit is its listing's
 * inode and type, so a denied file (a mode 000 stand-in) or any file past
 * SCAN_STAND_IN_MAX (absent) needs no look here: its identity stays the
 * listing's, even for a file a mount hides (d_ino is the inode below the
 * mount, dev the directory's: what pid 1's listing shows too, and the
 * folder's one cover hides the mount with the rest).  Every other one
 * gets add_hit's and note_links' look now, by name in dfd; their other
 * names are found at the end of the walk (links_listed). */
static void defer_settle(int dfd, dev_t dev, unsigned first, size_t len, unsigned entries)
{
	unsigned n = 0, kept = first;

	for (unsigned i = first; i < hits_cur->n; i++) {
		const char *p = hits_cur->arena + hits_cur->hits[i].off + len + !!len;

		n += !strchr(p, '/') && hits_cur->hits[i].kind && hits_cur->hits[i].ino;
	}
	bool whole = len && n >= SCAN_DIR_MIN && entries <= 2 * n;
	for (unsigned i = first; i < hits_cur->n; i++) {
		struct scan_hit *h = &hits_cur->hits[i];
		const char *name = hits_cur->arena + h->off + len + !!len;
		struct stat st;

		hits_cur->hits[kept++] = *h;
		if (!h->listed || strchr(name, '/') ||
		    (whole && (h->kind == AJ_PATTERN_DENY || n > SCAN_STAND_IN_MAX)))
			continue; /* looked at, or a subfolder's (settled with it), or kept */
		h = &hits_cur->hits[kept - 1];
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
			if (errno == ENOENT) {
				kept--; /* removed, or moved: verify() finds where to */
				continue;
			}
			if (errno == ENOTDIR) {
				unstable = true;
				return;
			}
			diep("inspect", hits_cur->arena + h->off, errno,
			     errno == EACCES ? search_hint : NULL);
		}
		if (st.st_dev == dev && st.st_ino != h->ino) {
			unstable = true; /* another object under that name now */
			return;
		}
		h->dev = st.st_dev;
		h->ino = st.st_ino;
		h->mode = (uint16_t)(st.st_mode & 07777);
		h->listed = 0;
		hits_links_note(&st, h->kind);
	}
	hits_cur->n = kept;
}

/* After the walk: a matched file known by its listing only has another
 * name in the project only if an unmatched regular file was listed with
 * its device and inode (hits_seen; a hash, so now and then another file
 * too): only those are looked at, beneath the project, for the link
 * count the second walk needs.  A name made after its directory was
 * listed is in hits_seen too, verify() having read that directory again. */
void walk_links_listed(int pfd)
{
	for (unsigned i = 0; i < hits_cur->n && !unstable; i++) {
		const struct scan_hit *h = &hits_cur->hits[i];
		struct stat st;
		int fd;

		if (!h->listed || !hits_seen(h->dev, h->ino))
			continue;
		fd = openat2_(pfd, hits_cur->arena + h->off, O_PATH | O_NOFOLLOW,
		              RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
		if (fd < 0 || fstat(fd, &st) || (st.st_dev == h->dev && st.st_ino != h->ino))
			unstable = true; /* moved since: walk again */
		else
			hits_links_note(&st, h->kind);
		if (fd >= 0)
			close(fd);
	}
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
	if (S_ISSOCK(st.st_mode))
		return T_SOCK;
	return S_ISREG(st.st_mode) ? T_REG : T_OTHER;
}

/* The directory at fd (rel, len bytes) denied whole, the hits below it
 * dropped.  Out of room (full), the walk goes on in the parent if that
 * freed some, else the parent is denied in turn; the project cannot be. */
void walk_deny_dir(int fd, size_t len, uint8_t why)
{

	if (!len)
		die("scan the project", 0,
		    "its top directory alone holds more masked or denied entries than the jail "
		    "can cover one by one; move them into a folder, or narrow the policy's "
		    "patterns");
	rel[len] = '\0';
	hits_drop_below(rel, len);
	full = false;
	walk_add_hit(fd, NULL, 0, AJ_PATTERN_DENY, T_DIR, why, len);
	if (full) {
		/* Still no room: this deny from the reserve, and the parent
		 * is denied in turn (dropping this one). */
		reserve = true;
		walk_add_hit(fd, NULL, 0, AJ_PATTERN_DENY, T_DIR, why, len);
		reserve = false;
	}
}

/* A directory of depth components: walked, or at the bound.  ino is what
 * the listing said (dev the listing directory's): a name that leads
 * elsewhere now was renamed or exchanged since. */
static void enter(int dfd, dev_t dev, const char *name, uint64_t ino, size_t len, unsigned depth,
                  uint64_t state)
{
	struct stat st;
	int fd;

	if (depth >= sc->depth) {
		if (sc->bound != AJ_SCAN_BOUND_DENY)
			diep("scan", rel, 0,
			     "the project is nested deeper than the policy's 'scan depth', so not "
			     "every path can be checked for secrets; raise it, or prune the tree");
		if (!second_pass)
			walk_add_hit(dfd, name, ino, AJ_PATTERN_DENY, T_DIR, SCAN_BY_DEPTH, len);
		return;
	}
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		if (fstat(fd, &st))
			diep("scan", rel, errno, NULL);
		/* Another device: a mount point, whose listed inode is the one
		 * below the mount. */
		if (st.st_dev == dev && ino && st.st_ino != ino) {
			unstable = true;
		} else if (relisting && scanidx_has(st.st_ino)) {
			/* read already, and checked again on its own */
		} else {
			if (!second_pass)
				scanidx_note(&st, rel, len, depth, state, walk_st.recent);
			if (n_vanished && scanidx_vanished(st.st_ino))
				scanidx_vanished(st.st_ino)->walked = 1;
			/* Watched before it is read: nothing made in between
			 * is missed. */
			if (walk_on_dir && walk_on_dir(fd, *scanidx_slot(st.st_ino) - 1) < 0)
				broken = true;
			walk_dir(fd, st.st_dev, len, depth, state);
			if (full)
				walk_deny_dir(fd, len, SCAN_BY_COUNT);
		}
		close(fd);
		return;
	}
	if (errno == ENOENT)
		return; /* removed (a build's temporary folder), or moved: verify() finds where to
		         */
	if (errno == ENOTDIR || errno == ELOOP) {
		unstable = true; /* listed as a directory, replaced since */
		return;
	}
	if (errno != EACCES)
		diep("scan", rel, errno, NULL);
	if (second_pass)
		return;
	/* Not even stat-able: its parent cannot be searched, and whoever owns
	 * the parent could make it searchable. */
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) && (errno != EACCES || fstat(dfd, &st)))
		diep("inspect", rel, errno, NULL);
	if (st.st_uid == me)
		walk_add_hit(dfd, name, ino, AJ_PATTERN_DENY, T_DIR, SCAN_BY_PERM, len);
}

void walk_entry(int dfd, dev_t dev, const char *name, uint64_t ino, unsigned char type, size_t len,
                size_t nl, unsigned depth, uint64_t state)
{
	uint64_t inside = 0;
	uint8_t kind, why;
	bool listed = type != T_UNKNOWN;

	listing_dev = dev;
	if (n_vanished && ino && scanidx_vanished(ino))
		scanidx_vanished(ino)->seen = 1;
	if (type == T_UNKNOWN)
		type = type_of(dfd, name);
	if (type == T_UNKNOWN)
		return; /* listed, gone since: verify() finds where it went, if anywhere */
	/* A host service's socket: without the host's network, the jail
	 * reaches no host service through a socket file either. */
	if (type == T_SOCK && deny_sockets) {
		if (!second_pass)
			walk_add_hit(dfd, name, ino, AJ_PATTERN_DENY, type, SCAN_BY_SOCKET, len);
		return;
	}
	/* A symlink is classified as a directory too: a link named secrets/
	 * would otherwise lead past the deny to what it points at. */
	kind = match_classify(sc, name, nl, type == T_DIR || type == T_LNK, state, &inside);
	if (kind == AJ_PATTERN_PRUNE) {
		note_pruned(len);
		return;
	}
	if (kind) {
		if (second_pass)
			return; /* noted by the first walk */
		if (deferring && listed && type == T_REG && ino) {
			add_listed(ino, kind, len);
			return;
		}
		walk_add_hit(dfd, name, ino, kind, type, SCAN_BY_NAME, len);
		if (type == T_REG)
			note_links(dfd, name, kind);
		return;
	}
	/* An object that held a secret in an earlier run, under any name
	 * now (the fallback's record, fallback.c). */
	if (walk_recorded && walk_recorded(dfd, name, dev, ino)) {
		if (!second_pass)
			walk_add_hit(dfd, name, ino, AJ_PATTERN_DENY, type, SCAN_BY_RECORD, len);
		return;
	}
	if (type == T_DIR) {
		enter(dfd, dev, name, ino, len, depth, inside);
		return;
	}
	if (second_pass && type == T_REG && (kind = linked_kind(dfd, name, &why)))
		walk_add_hit(dfd, name, ino, kind, T_REG, why, len);
	else if (!second_pass && type == T_REG && ino)
		hits_seen_add(dev, ino);
}

/* The entries of a directory of depth components (0: the project). */
void walk_dir(int dfd, dev_t dev, size_t len, unsigned depth, uint64_t state)
{
	struct dir_iter it = {dfd, dbuf[depth], SCAN_BUF, 0, 0};
	unsigned first = hits_cur->n, entries = 0;

	/* rel holds this directory's path again whenever dir_next() reads. */
	for (struct aj_dirent *d;
	     !unstable && !full && (d = dir_next(&it, "scan", len ? rel : "."));) {
		const char *name = d->d_name;
		size_t nl = strlen(name), l = len;

		/* A name whose path no longer fits: what it is cannot be
		 * told by path, nor covered by one; the directory holding
		 * it is denied whole (its own path fits). */
		if (l + nl + 2 > sizeof(rel)) {
			walk_deny_dir(dfd, len, SCAN_BY_LONG);
			return;
		}
		if (l)
			rel[l++] = '/';
		memcpy(rel + l, name, nl + 1);
		walk_entry(dfd, dev, name, d->d_ino, d->d_type, l + nl, nl, depth + 1, state);
		rel[len] = '\0';
		entries++;
	}
	if (deferring && !unstable && !full)
		defer_settle(dfd, dev, first, len, entries);
	hits_note_entries(first, len, entries);
}
