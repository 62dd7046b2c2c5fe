/* git.c: which of the scan's masked and denied paths a git
 * repository tracks, read from the index of every repository whose work
 * tree holds them.
 *
 * A mask on a tracked file is a lie git believes: it sees the file
 * emptied, and `git commit -a` records that, so the host's next checkout
 * or reset loses the real file.  A tracked masked entry is denied instead:
 * git cannot read it, refuses to stage it and names it (docs/secrets.md
 * has the transcript behind the choice).  Masked or denied, a tracked
 * file's content is in the history, where no cover reaches; one line on
 * stderr says so, and --jail-explain names each one.
 *
 * The index lives in the project (.git is written by the jail's own runs),
 * so it is hostile input: read through a fixed buffer, every length
 * checked against the end before it is used, and a file that does not
 * parse, or is larger than GI_INDEX_MAX (64 MiB: writing a large index
 * costs the jail once, reading it would cost every launch), is treated as
 * no index at all (the covers stay as the scan decided).  The trailing
 * checksum is not verified: hashing a large index would cost more than the
 * rest of the start-up, and a forged index could carry a valid one
 * anyway.  Nothing here fails closed: it only ever turns a mask into a
 * deny.  No git process, no git library: the index format is small. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scan/scan.h"

/* The scan's results, which this reads and where it turns masks into
 * denies: the caller's (scan.c), so that this file needs nothing of it. */
static struct scan_result *sr;

#define GIT_REPOS_MAX 16
#define GIT_FILE_MAX  (AJ_PATH_MAX + 16) /* a .git file: "gitdir: PATH\n" */

enum { GIT_NONE, GIT_TRACKED, GIT_DENIED, GIT_UNREAD };
static uint8_t note[AJ_SCAN_MAX];
static uint8_t passed[AJ_SCAN_MAX]; /* the look sorted past hit i */
static unsigned n_tracked;
static uint32_t first_tracked;

/* One repository's look at the hits: an entry's path, less up (the
 * project's place in the repository: "" or "a/b/"), against each hit in
 * it, less down (the repository's place in the project: NULL, or "n" for
 * the hits in "n/"). */
struct look {
	const char *up;
	size_t ulen;
	const char *down;
	size_t dlen;
	unsigned left; /* hits not found tracked yet */
};

static bool candidate(const struct scan_hit *h)
{
	return h->kind && (h->why == SCAN_BY_NAME || h->why == SCAN_BY_HARDLINK);
}

/* Is hit i one this repository may judge: a covered name, not found
 * tracked by another, inside it? */
static bool open_question(const struct look *lk, unsigned i)
{
	const char *rel = sr->arena + sr->hits[i].off;

	return candidate(&sr->hits[i]) && (note[i] == GIT_NONE || note[i] == GIT_UNREAD) &&
	       (!lk->down || (!strncmp(rel, lk->down, lk->dlen) && rel[lk->dlen] == '/'));
}

/* The next part of a path compared with s: <0 or >0 as bytes compare (git
 * sorts its index so), 0 when the path goes on with s (then skipped). */
static int cmp_part(const char **p, size_t *len, const char *s, size_t sl)
{
	int c = memcmp(*p, s, *len < sl ? *len : sl);

	if (c || *len < sl)
		return c ? c : -1;
	*p += sl;
	*len -= sl;
	return 0;
}

/* Where an entry's path sorts against up, key and, for a directory, a
 * slash, joined: SORT_BEFORE; SORT_SAME; SORT_INSIDE, beginning with them;
 * SORT_AFTER. */
enum { SORT_BEFORE = -1, SORT_SAME, SORT_INSIDE, SORT_AFTER };
static int sort_against(const char *p, size_t len, const struct look *lk, const char *key,
                        size_t kl, bool slash)
{
	int c;

	if ((c = cmp_part(&p, &len, lk->up, lk->ulen)) || (c = cmp_part(&p, &len, key, kl)) ||
	    (slash && (c = cmp_part(&p, &len, "/", 1))))
		return c < 0 ? SORT_BEFORE : SORT_AFTER;
	return len ? SORT_INSIDE : SORT_SAME;
}

/* One entry against every hit still open.  The index is sorted, so once an
 * entry sorts after a hit (and after everything inside a directory hit),
 * no later entry can be it: when no hit is left open, the rest of the index
 * is not read.  (An index the jail reordered can only hide a tracked file
 * this way, which it could also do by leaving it out.) */
static int look_entry(void *ctx, const char *path, size_t len, uint32_t mode)
{
	struct look *lk = ctx;
	bool sparse = path[len - 1] == '/'; /* a sparse index's directory entry */

	(void)mode;
	for (unsigned i = 0; i < sr->n && lk->left; i++) {
		const struct scan_hit *h = &sr->hits[i];
		const char *key = sr->arena + h->off + (lk->down ? lk->dlen + 1 : 0);
		size_t kl;
		int at;

		if (passed[i] || !open_question(lk, i))
			continue;
		kl = strlen(key);
		at = sort_against(path, len, lk, key, kl, h->isdir);
		/* A hit inside a directory the index holds whole. */
		if (at == SORT_BEFORE && sparse && len > lk->ulen &&
		    !memcmp(path, lk->up, lk->ulen) && kl > len - lk->ulen &&
		    !memcmp(key, path + lk->ulen, len - lk->ulen))
			at = SORT_SAME;
		if (at == SORT_SAME || (h->isdir && at == SORT_INSIDE)) {
			note[i] = h->kind == AJ_PATTERN_MASK ? GIT_DENIED : GIT_TRACKED;
			passed[i] = 1;
			lk->left--;
		} else if (at == SORT_AFTER || (!h->isdir && at == SORT_INSIDE)) {
			passed[i] = 1;
			lk->left--;
		}
	}
	return !lk->left;
}

/* The index of the repository whose .git is in the directory dfd, or -1. */
static int open_index(int dfd)
{
	char buf[GIT_FILE_MAX + 1];
	struct stat st, ist;
	int gfd, ifd = -1;

	if (fstatat(dfd, ".git", &st, AT_SYMLINK_NOFOLLOW))
		return -1;
	if (S_ISDIR(st.st_mode)) {
		gfd = openat(dfd, ".git", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	} else if (S_ISREG(st.st_mode)) {
		/* A worktree's or a submodule's: "gitdir: PATH", PATH
		 * relative to the directory that holds the file. */
		int fd = openat(dfd, ".git", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, GIT_FILE_MAX);

		if (fd >= 0)
			close(fd);
		if (n < 8 || n == GIT_FILE_MAX || memcmp(buf, "gitdir: ", 8))
			return -1;
		while (n > 8 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
			n--;
		buf[n] = '\0';
		if (n == 8 || memchr(buf, 0, (size_t)n))
			return -1;
		gfd = openat(dfd, buf + 8, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	} else {
		return -1; /* a symlink: where it leads is the jail's to choose */
	}
	if (gfd < 0)
		return -1;
	/* A regular file before it is opened: opening a device or a FIFO
	 * could block or act. */
	if (!fstatat(gfd, "index", &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode)) {
		ifd = openat(gfd, "index", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (ifd >= 0 && (fstat(ifd, &ist) || ist.st_ino != st.st_ino ||
		                 ist.st_dev != st.st_dev || !S_ISREG(ist.st_mode))) {
			close(ifd);
			ifd = -1;
		}
	}
	close(gfd);
	return ifd;
}

/* The watcher asks for the same looks again and again: each is kept with
 * what identifies its index file (a rewrite by git is a rename: another
 * inode) and the hits it was asked about, and replayed while both hold. */
#define GIT_MEMO_MAX (GIT_REPOS_MAX + 1)
unsigned git_memo;

void git_memo_set(unsigned generation)
{
	git_memo = generation;
}
static struct memo {
	unsigned gen;
	uint64_t dev, ino, size, mtime, ctime;
	char where[AJ_PATH_MAX];  /* up, then down */
	uint8_t set[AJ_SCAN_MAX]; /* the note the look gave, or 0xff */
} memo[GIT_MEMO_MAX];
static unsigned memo_next;

static struct memo *memo_find(const struct stat *st, const struct look *lk, bool make)
{
	char where[AJ_PATH_MAX];
	size_t ul = lk->ulen, dl = lk->down ? lk->dlen : 0;
	struct memo *m;

	if (ul + dl + 2 > sizeof(where))
		return NULL;
	memcpy(where, lk->up ? lk->up : "", ul);
	where[ul] = '|';
	memcpy(where + ul + 1, lk->down ? lk->down : "", dl);
	where[ul + 1 + dl] = '\0';
	for (unsigned k = 0; k < GIT_MEMO_MAX; k++) {
		m = &memo[k];
		if (m->gen == git_memo && m->dev == st->st_dev && m->ino == st->st_ino &&
		    m->size == (uint64_t)st->st_size &&
		    m->mtime == (uint64_t)st->st_mtim.tv_sec * 1000000000u +
		                    (uint64_t)st->st_mtim.tv_nsec &&
		    m->ctime == (uint64_t)st->st_ctim.tv_sec * 1000000000u +
		                    (uint64_t)st->st_ctim.tv_nsec &&
		    !strcmp(m->where, where))
			return m;
	}
	if (!make)
		return NULL;
	m = &memo[memo_next++ % GIT_MEMO_MAX];
	m->gen = git_memo;
	m->dev = st->st_dev;
	m->ino = st->st_ino;
	m->size = (uint64_t)st->st_size;
	m->mtime = (uint64_t)st->st_mtim.tv_sec * 1000000000u + (uint64_t)st->st_mtim.tv_nsec;
	m->ctime = (uint64_t)st->st_ctim.tv_sec * 1000000000u + (uint64_t)st->st_ctim.tv_nsec;
	memcpy(m->where, where, strlen(where) + 1);
	return m;
}

/* Reads the index of the repository at dfd against the hits.  No index
 * (none yet, or a .git that leads nowhere): nothing tracked.  One that
 * does not parse: its hits are noted as unread, and stay as they are. */
static void look(int dfd, struct look *lk)
{
	static uint8_t before[AJ_SCAN_MAX];
	struct memo *m;
	struct stat st;
	int ifd, r = -1;

	lk->left = 0;
	memset(passed, 0, sizeof(passed));
	for (unsigned i = 0; i < sr->n; i++)
		lk->left += open_question(lk, i);
	if (!lk->left || (ifd = open_index(dfd)) < 0)
		return;
	if (fstat(ifd, &st)) {
		st.st_size = -1;
	} else if (git_memo && (m = memo_find(&st, lk, false))) {
		close(ifd);
		for (unsigned i = 0; i < sr->n; i++)
			if (m->set[i] != 0xff)
				note[i] = m->set[i];
		return;
	}
	if (git_memo)
		memcpy(before, note, sizeof(before));
	/* Bounded before anything is read: gitindex_read() never reads past the
	 * size fstat gave, and that is at most GI_INDEX_MAX. */
	if (st.st_size >= 0 && (uint64_t)st.st_size <= GI_INDEX_MAX)
		r = gitindex_read(ifd, (size_t)st.st_size, look_entry, lk);
	else
		r = GI_ETOOBIG;
	close(ifd);
	if (r < 0)
		for (unsigned i = 0; i < sr->n; i++)
			if (open_question(lk, i))
				note[i] = GIT_UNREAD;
	if (git_memo && st.st_size >= 0 && (m = memo_find(&st, lk, true)))
		for (unsigned i = 0; i < AJ_SCAN_MAX; i++)
			m->set[i] = i < sr->n && note[i] != before[i] ? note[i] : 0xff;
}

/* The repository around the project: the project or its nearest parent
 * that holds a .git, on the project's filesystem (git stops at a mount
 * too).  *up gets the project's path inside it ("" or "a/b"). */
static int outer_repo(int pfd, const char *project, const char **up)
{
	const char *p = project + strlen(project);
	int dfd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st, pst, g;

	if (dfd < 0)
		return -1;
	if (!fstat(dfd, &st) && project[0] == '/')
		for (;;) {
			int parent;

			if (!fstatat(dfd, ".git", &g, AT_SYMLINK_NOFOLLOW)) {
				*up = *p ? p + 1 : p;
				return dfd;
			}
			if (p <= project + 1)
				break; /* the root looked at */
			parent = openat(dfd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			close(dfd);
			dfd = parent;
			if (dfd < 0 || fstat(dfd, &pst) || pst.st_dev != st.st_dev)
				break;
			do
				p--;
			while (p > project && *p != '/');
		}
	if (dfd >= 0)
		close(dfd);
	return -1;
}

/* The repositories inside the project on the way to hit i: each directory
 * above it that holds a .git, looked at once, from the top down. */
static void nested_repos(int pfd, unsigned i, char (*nested)[AJ_PATH_MAX], unsigned *n_nested)
{
	const char *rel = sr->arena + sr->hits[i].off, *c = rel;
	char name[AJ_PATH_MAX];
	int cur = pfd;

	for (const char *sl = strchr(c, '/'); sl; c = sl + 1, sl = strchr(c, '/')) {
		size_t dl = (size_t)(sl - rel);
		struct stat g;
		unsigned k;
		int next;

		memcpy(name, c, (size_t)(sl - c));
		name[sl - c] = '\0';
		next = openat(cur, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cur != pfd)
			close(cur);
		if ((cur = next) < 0)
			return;
		if (fstatat(cur, ".git", &g, AT_SYMLINK_NOFOLLOW))
			continue;
		for (k = 0; k < *n_nested; k++)
			if (!strncmp(nested[k], rel, dl) && !nested[k][dl])
				break;
		if (k == *n_nested && k < GIT_REPOS_MAX) {
			struct look lk = {.up = "", .down = nested[k], .dlen = dl};

			memcpy(nested[k], rel, dl);
			nested[k][dl] = '\0';
			++*n_nested;
			look(cur, &lk);
		}
	}
	if (cur != pfd)
		close(cur);
}

/* One line, once: which, why it matters, what to do. */
static void warn(void)
{
	const char *first = sr->arena + sr->hits[first_tracked].off;
	char buf[2 * AJ_PATH_MAX + 512], num[AJ_DEC_MAX];
	bool more = n_tracked > 1;
	size_t n = 0;
	const char *parts[] = {
	    aj_progname,
	    ": warning: git tracks ",
	    first,
	    more ? " and " : "",
	    more ? num : "",
	    more ? " more (--jail-explain lists them): their content is" : ": its content is",
	    " in the repository's history, where no mask can hide it; the jail denies ",
	    more ? "them" : "it",
	    " instead of masking, so that no commit empties ",
	    more ? "them" : "it",
	    "; untrack ",
	    more ? "them" : "it",
	    " (git rm --cached ",
	    first,
	    more ? " ..." : "",
	    ") and rotate the secret\n",
	};

	num[out_fmt_u(num, n_tracked - 1)] = '\0';
	for (unsigned k = 0; k < sizeof(parts) / sizeof(parts[0]); k++) {
		size_t l = strlen(parts[k]);

		if (l > sizeof(buf) - n)
			l = sizeof(buf) - n;
		memcpy(buf + n, parts[k], l);
		n += l;
	}
	for (size_t done = 0; done < n;) {
		ssize_t w = write(2, buf + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break; /* nowhere to report a failed warning */
		done += (size_t)w;
	}
}

static void conclude(void);

void git_tracked_scan(struct scan_result *res, int pfd, const char *project)
{
	sr = res;
	static char nested[GIT_REPOS_MAX][AJ_PATH_MAX];
	char up[AJ_PATH_MAX];
	unsigned n_nested = 0, n_cand = 0;
	const char *where = "";
	int dfd;

	memset(note, 0, sizeof(note));
	n_tracked = 0;
	for (unsigned i = 0; i < sr->n; i++)
		n_cand += candidate(&sr->hits[i]);
	if (!n_cand)
		return; /* nothing covered: no git at all */
	/* Hits of one directory share every directory above them: looked
	 * at once (a folder of thousands of keys is one look, not one each). */
	for (unsigned i = 0, last = UINT32_MAX; i < sr->n; i++) {
		const char *rel = sr->arena + sr->hits[i].off, *sl = strrchr(rel, '/');

		if (!candidate(&sr->hits[i]) || !sl)
			continue;
		if (last != UINT32_MAX) {
			const char *prev = sr->arena + sr->hits[last].off;
			const char *psl = strrchr(prev, '/');

			if (psl - prev == sl - rel && !memcmp(prev, rel, (size_t)(sl - rel)))
				continue;
		}
		last = i;
		nested_repos(pfd, i, nested, &n_nested);
	}
	dfd = outer_repo(pfd, project, &where);
	if (dfd >= 0) {
		size_t ul = strlen(where);

		if (ul + 2 <= sizeof(up)) {
			struct look lk = {.up = up, .ulen = ul + !!ul};

			memcpy(up, where, ul);
			up[ul] = '/';
			up[ul + !!ul] = '\0';
			look(dfd, &lk);
		}
		close(dfd);
	}
	conclude();
}

/* Masks of tracked files denied, and the warning. */
static void conclude(void)
{
	n_tracked = 0;
	for (unsigned i = 0; i < sr->n; i++) {
		if (note[i] == GIT_DENIED)
			sr->hits[i].kind = AJ_PATTERN_DENY;
		if ((note[i] == GIT_DENIED || note[i] == GIT_TRACKED) && !n_tracked++)
			first_tracked = i;
	}
	if (n_tracked)
		warn();
}

const uint8_t *git_notes(void)
{
	return note;
}

void git_notes_apply(struct scan_result *res, const uint8_t *notes)
{
	sr = res;
	for (unsigned i = 0; i < AJ_SCAN_MAX; i++)
		note[i] = i < res->n && notes[i] <= GIT_UNREAD ? notes[i] : GIT_NONE;
	conclude();
}

const char *git_note(unsigned i)
{
	if (!sr || i >= sr->n || i >= AJ_SCAN_MAX)
		return "";
	switch (note[i]) {
	case GIT_TRACKED:
		return "\t(tracked by git: its content is in the history)";
	case GIT_DENIED:
		return "\t(tracked by git: denied, not masked, so that no commit empties it; its "
		       "content is in the history)";
	case GIT_UNREAD:
		return "\t(in a git repository whose index could not be read: not known if "
		       "tracked)";
	}
	return "";
}
