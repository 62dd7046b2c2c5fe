/* test_git.c: the git index reader (stub/scan/git.c) on indexes
 * built here byte by byte: versions 2, 3 (extended flags) and 4 (prefix
 * compression), SHA-256 ids, and every way an index the jail wrote could
 * lie: each truncation, lengths that contradict the path, a prefix to drop
 * longer than the last path, endless varints, random damage.  Each input
 * ends at a page boundary before an unmapped page, so a read past the end
 * crashes the test instead of passing unseen.  Then the whole look on real
 * directories: a project at the top of a repository and below it, a
 * worktree, a nested repository, and .git files that lead to a FIFO. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "scan/scan.h"

static struct scan_result result;
struct scan_result *hits_cur = &result;
static const struct aj_policy fake_policy = {.progname = "test"};
const struct aj_policy *const aj_the_policy = &fake_policy;

/* ---- building indexes -------------------------------------------------- */

struct ent {
	const char *path;
	unsigned ext; /* extended flags (version 3+); 0: none */
};

static unsigned char img[1 << 20];

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v;
}

/* An index of the entries, as git writes it; returns its length. */
static size_t build(unsigned version, const struct ent *e, unsigned n, size_t hashsz)
{
	size_t off = 12, prev = 0;
	const char *last = "";

	memcpy(img, "DIRC", 4);
	put32(img + 4, version);
	put32(img + 8, n);
	for (unsigned i = 0; i < n; i++) {
		size_t l = strlen(e[i].path), start = off, hdr = 40 + hashsz + 2;
		unsigned flags = (unsigned)(l < 0xfff ? l : 0xfff);

		memset(img + off, 0, hdr);
		put32(img + off + 24, 0100644);
		memset(img + off + 40, 0xab, hashsz);
		if (e[i].ext)
			flags |= 0x4000;
		img[off + hdr - 2] = (unsigned char)(flags >> 8);
		img[off + hdr - 1] = (unsigned char)flags;
		off += hdr;
		if (e[i].ext) {
			img[off] = (unsigned char)(e[i].ext >> 8);
			img[off + 1] = (unsigned char)e[i].ext;
			off += 2;
			hdr += 2;
		}
		if (version < 4) {
			size_t sz = (hdr + l + 8) & ~(size_t)7;

			memset(img + off, 0, sz - hdr);
			memcpy(img + off, e[i].path, l);
			off = start + sz;
		} else {
			size_t common = 0, strip;
			unsigned char v[16];
			unsigned pos = sizeof(v) - 1;

			while (common < prev && common < l && last[common] == e[i].path[common])
				common++;
			strip = prev - common;
			v[pos] = strip & 127;
			while (strip >>= 7)
				v[--pos] = (unsigned char)(128 | (--strip & 127));
			memcpy(img + off, v + pos, sizeof(v) - pos);
			off += sizeof(v) - pos;
			memcpy(img + off, e[i].path + common, l - common + 1);
			off += l - common + 1;
		}
		last = e[i].path;
		prev = l;
	}
	memcpy(img + off, "TREE\0\0\0\0", 8); /* an extension the reader skips */
	off += 8;
	memset(img + off, 0x5a, hashsz);
	return off + hashsz;
}

/* len bytes of img, ending where an unmapped page begins. */
static unsigned char *guarded(size_t len)
{
	static unsigned char *base;
	static size_t mapped;
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), need = (len + pg - 1) / pg * pg + pg;

	if (base)
		munmap(base, mapped);
	base = mmap(NULL, need, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(base != MAP_FAILED);
	mapped = need;
	assert_int_equal(mprotect(base + need - pg, pg, PROT_NONE), 0);
	memcpy(base + need - pg - len, img, len);
	return base + need - pg - len;
}

struct seen {
	unsigned n;
	char paths[16][128];
	unsigned stop_at; /* 1 + the entry to stop after; 0: never */
	bool damaged;     /* any mode, any path */
};

static int collect(void *ctx, const char *path, size_t len, uint32_t mode)
{
	struct seen *s = ctx;

	assert_int_equal(strlen(path), len);
	assert_true(len > 0);
	if (!s->damaged)
		assert_int_equal(mode, 0100644);
	if (s->n < 16 && len < 128)
		memcpy(s->paths[s->n], path, len + 1);
	s->n++;
	return s->stop_at && s->n == s->stop_at;
}

static int parse(size_t len, size_t hashsz, struct seen *s)
{
	memset(s->paths, 0, sizeof(s->paths));
	s->n = 0;
	return gitindex_parse(guarded(len), len, hashsz, collect, s);
}

static const struct ent sample[] = {
    {".env", 0}, {"a/b/c.txt", 0}, {"a/b/d.txt", 0x2000}, {"a/x", 0}, {"zz", 0x4000},
};
#define N_SAMPLE 5

static void expect_sample(int r, const struct seen *s)
{
	assert_int_equal(r, N_SAMPLE);
	assert_int_equal(s->n, N_SAMPLE);
	for (unsigned i = 0; i < N_SAMPLE; i++)
		assert_string_equal(s->paths[i], sample[i].path);
}

/* ---- the parser ------------------------------------------------------------- */

static void version2(void **state)
{
	static const struct ent plain[] = {{".env", 0}, {"a/b/c.txt", 0}, {"x", 0}};
	struct seen s = {0};
	size_t len = build(2, plain, 3, 20);
	int r = parse(len, 20, &s);

	(void)state;
	assert_int_equal(r, 3);
	assert_string_equal(s.paths[0], ".env");
	assert_string_equal(s.paths[1], "a/b/c.txt");
	assert_string_equal(s.paths[2], "x");
	/* Extended flags have no place in version 2. */
	len = build(2, sample, N_SAMPLE, 20);
	assert_int_equal(parse(len, 20, &s), GI_EFLAGS);
}

static void version3(void **state)
{
	struct seen s = {0};
	size_t len = build(3, sample, N_SAMPLE, 20);

	(void)state;
	expect_sample(parse(len, 20, &s), &s);
}

static void version4(void **state)
{
	struct seen s = {0};
	size_t len = build(4, sample, N_SAMPLE, 20);

	(void)state;
	expect_sample(parse(len, 20, &s), &s);
}

static void sha256(void **state)
{
	struct seen s = {0};
	size_t len = build(3, sample, N_SAMPLE, 32);

	(void)state;
	expect_sample(parse(len, 32, &s), &s);
	/* Read as SHA-1 ids it does not parse: the names fall elsewhere. */
	assert_true(parse(len, 20, &s) < 0);
}

static void long_names(void **state)
{
	static char p1[5000], p2[5000];
	struct ent e[2] = {{p1, 0}, {p2, 0}};
	struct seen s = {0};
	size_t len;

	(void)state;
	/* 0xfff and longer: the length field says 0xfff, the NUL decides. */
	memset(p1, 'a', 4095);
	memset(p2, 'a', 4000);
	memcpy(p2 + 4000, "/b", 3);
	len = build(4, e, 2, 20);
	assert_int_equal(parse(len, 20, &s), 2);
	len = build(2, e, 2, 20);
	assert_int_equal(parse(len, 20, &s), 2);
	/* Longer than any path the stub could mask: refused, not cut. */
	memset(p1, 'a', 4999);
	len = build(2, e, 1, 20);
	assert_int_equal(parse(len, 20, &s), GI_ENAME);
}

static void stops_early(void **state)
{
	struct seen s = {.stop_at = 2};
	size_t len = build(4, sample, N_SAMPLE, 20);

	(void)state;
	assert_int_equal(parse(len, 20, &s), 2);
	assert_int_equal(s.n, 2);
}

static void headers(void **state)
{
	struct seen s = {0};
	size_t len = build(2, sample, 2, 20);

	(void)state;
	assert_int_equal(parse(0, 20, &s), GI_ESIG);
	assert_int_equal(parse(31, 20, &s), GI_ESIG); /* shorter than header and checksum */
	img[0] = 'X';
	assert_int_equal(parse(len, 20, &s), GI_ESIG);
	img[0] = 'D';
	put32(img + 4, 1);
	assert_int_equal(parse(len, 20, &s), GI_EVERSION);
	put32(img + 4, 5);
	assert_int_equal(parse(len, 20, &s), GI_EVERSION);
	/* An empty index: nothing tracked. */
	len = build(2, sample, 0, 20);
	assert_int_equal(parse(len, 20, &s), 0);
}

/* Every prefix of a valid index fails, and reads nothing past its end. */
static void truncations(void **state)
{
	(void)state;
	for (unsigned version = 2; version <= 4; version++) {
		size_t full = build(version, sample, N_SAMPLE, 20);
		unsigned char copy[4096];

		assert_true(full < sizeof(copy));
		memcpy(copy, img, full);
		/* The extension and checksum (28 bytes) are not read: an index
		 * cut inside them still lists every entry. */
		for (size_t len = 0; len + 28 < full; len++) {
			struct seen s = {0};

			memcpy(img, copy, full);
			assert_true(parse(len, 20, &s) < 0);
		}
	}
}

static void lies(void **state)
{
	static const struct ent two[] = {{"abc", 0}, {"abd", 0}};
	struct seen s = {0};
	size_t len;

	(void)state;
	/* A length field that disagrees with the path. */
	len = build(2, two, 2, 20);
	img[12 + 61] = 2;
	assert_int_equal(parse(len, 20, &s), GI_ENAME);
	len = build(4, two, 2, 20);
	img[12 + 61] = 7;
	assert_int_equal(parse(len, 20, &s), GI_ENAME);
	/* More entries than the file holds. */
	len = build(2, two, 2, 20);
	put32(img + 8, 0xffffffff);
	assert_int_equal(parse(len, 20, &s), GI_ETRUNC);
	/* Version 4: a prefix to drop longer than the last path. */
	len = build(4, two, 2, 20);
	assert_int_equal(img[12 + 62 + 1 + 4 + 62], 1); /* the second entry drops 1 byte */
	img[12 + 62 + 1 + 4 + 62] = 4;
	assert_int_equal(parse(len, 20, &s), GI_ENAME);
	/* An endless varint, then one that runs off the end. */
	len = build(4, two, 2, 20);
	memset(img + 12 + 62 + 1 + 4 + 62, 0xff, 40);
	assert_true(parse(len, 20, &s) < 0);
	memset(img + 12 + 62 + 1 + 4 + 62, 0xff, len - (12 + 62 + 1 + 4 + 62));
	assert_true(parse(len, 20, &s) < 0);
	/* An empty path. */
	len = build(2, two, 1, 20);
	img[12 + 61] = 0;
	img[12 + 62] = 0;
	assert_int_equal(parse(len, 20, &s), GI_ENAME);
	/* A path with no NUL before the end. */
	len = build(2, two, 1, 20);
	memset(img + 12 + 62, 'a', len - 12 - 62);
	assert_true(parse(len, 20, &s) < 0);
}

/* Random damage to valid indexes: any answer but a crash or an overrun. */
static void damage(void **state)
{
	unsigned seed = 12345;

	(void)state;
	for (unsigned round = 0; round < 30000; round++) {
		unsigned version = 2 + round % 3;
		size_t len = build(version, sample, N_SAMPLE, 20);
		unsigned hits = 1 + (seed >> 8) % 8;
		struct seen s = {.damaged = true};

		for (unsigned k = 0; k < hits; k++) {
			seed = seed * 1103515245 + 12345;
			img[(seed >> 4) % len] = (unsigned char)(seed >> 20);
		}
		seed = seed * 1103515245 + 12345;
		if (seed & 0x10000)
			len -= (seed >> 18) % len;
		(void)parse(len, 20, &s);
		(void)parse(len, 32, &s);
	}
}

/* ---- the look on real directories ------------------------------------------- */

static char top[256];

static void mkdirs(const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	for (char *sl = p + strlen(top) + 1; (sl = strchr(sl, '/')); sl++) {
		*sl = '\0';
		mkdir(p, 0755);
		*sl = '/';
	}
	mkdir(p, 0755);
}

static void write_file(const char *rel, const void *data, size_t len)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	f = fopen(p, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

static void write_index(const char *gitdir, unsigned version, const struct ent *e, unsigned n)
{
	char p[512];
	size_t len = build(version, e, n, 20);

	mkdirs(gitdir);
	snprintf(p, sizeof(p), "%s/index", gitdir);
	write_file(p, img, len);
}

/* The scan's hits, as the walk would leave them ("name/": a directory). */
static void hits(const char *const *rel, const uint8_t *kind, unsigned n)
{
	memset(&result, 0, sizeof(result));
	for (unsigned i = 0; i < n; i++) {
		size_t l = strlen(rel[i]);
		bool isdir = rel[i][l - 1] == '/';

		memcpy(result.arena + result.used, rel[i], l - isdir);
		result.arena[result.used + l - isdir] = '\0';
		result.hits[i] =
		    (struct scan_hit){.kind = kind[i], .isdir = isdir, .off = result.used};
		result.used += (uint32_t)(l - isdir) + 1;
	}
	result.n = n;
}

static void look_at(const char *project_rel)
{
	char p[512];
	int fd;

	snprintf(p, sizeof(p), "%s%s%s", top, *project_rel ? "/" : "", project_rel);
	fd = open(p, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	git_tracked_scan(hits_cur, fd, p);
	close(fd);
}

static int setup_dir(void **state)
{
	(void)state;
	snprintf(top, sizeof(top), "/tmp/aj-gitindex-XXXXXX");
	return mkdtemp(top) ? 0 : -1;
}

static int teardown_dir(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	return system(cmd);
}

#define M AJ_PATTERN_MASK
#define D AJ_PATTERN_DENY

static void at_the_top(void **state)
{
	static const struct ent idx[] = {
	    {".env", 0}, {"a.txt", 0}, {"cfg/id_rsa", 0}, {"x.key", 0}};
	const char *rel[] = {".env", ".env.local", "x.key", "cfg/id_rsa", "secrets/", "y.key"};
	const uint8_t kind[] = {M, M, D, M, M, D};

	(void)state;
	write_index("top/.git", 4, idx, 4);
	mkdirs("top/cfg");
	mkdirs("top/secrets");
	hits(rel, kind, 6);
	look_at("top");
	assert_int_equal(result.hits[0].kind, D); /* tracked: denied, not masked */
	assert_string_equal(git_note(0), "\t(tracked by git: denied, not masked, so that no commit "
	                                 "empties it; its content is in the history)");
	assert_int_equal(result.hits[1].kind, M); /* untracked: as it was */
	assert_string_equal(git_note(1), "");
	assert_int_equal(result.hits[2].kind, D);
	assert_string_equal(git_note(2), "\t(tracked by git: its content is in the history)");
	assert_int_equal(result.hits[3].kind, D);
	assert_int_equal(result.hits[4].kind, M); /* a directory with nothing tracked in it */
	assert_string_equal(git_note(5), "");
}

static void below_the_top(void **state)
{
	static const struct ent idx[] = {
	    {".env", 0}, {"app/.env", 0}, {"app/secrets/db.txt", 0}, {"apple/.env.x", 0}};
	const char *rel[] = {".env", "secrets/", ".env.x"};
	const uint8_t kind[] = {M, M, M};

	(void)state;
	write_index("below/.git", 3, idx, 4);
	mkdirs("below/app/secrets");
	hits(rel, kind, 3);
	look_at("below/app");
	assert_int_equal(result.hits[0].kind, D);
	assert_int_equal(result.hits[1].kind, D); /* a directory that holds a tracked file */
	assert_int_equal(result.hits[2].kind, M); /* apple/ is not app/ */
}

static void worktree(void **state)
{
	static const struct ent main_idx[] = {{".env", 0}, {"a", 0}};
	static const struct ent watchtab_idx[] = {{"a", 0}};
	const char *rel[] = {".env"};
	const uint8_t kind[] = {M};

	(void)state;
	write_index("wt/main/.git", 2, main_idx, 2);
	write_index("wt/main/.git/worktrees/w", 2, watchtab_idx, 1);
	mkdirs("wt/w");
	write_file("wt/w/.git", "gitdir: ../main/.git/worktrees/w\n", 33);
	hits(rel, kind, 1);
	look_at("wt/w");
	assert_int_equal(result.hits[0].kind, M); /* the worktree's index, not the main one's */
	write_index("wt/main/.git/worktrees/w", 2, main_idx, 2);
	look_at("wt/w");
	assert_int_equal(result.hits[0].kind, D);
}

static void nested(void **state)
{
	static const struct ent outer[] = {{"a", 0}};
	static const struct ent inner[] = {{".env", 0}, {"deep/.env", 0}};
	const char *rel[] = {"inner/.env", "inner/deep/.env", "inner/other.pem", ".env"};
	const uint8_t kind[] = {M, M, M, M};

	(void)state;
	write_index("nest/.git", 2, outer, 1);
	write_index("nest/inner/.git", 4, inner, 2);
	mkdirs("nest/inner/deep");
	hits(rel, kind, 4);
	look_at("nest");
	assert_int_equal(result.hits[0].kind, D);
	assert_int_equal(result.hits[1].kind, D);
	assert_int_equal(result.hits[2].kind, M);
	assert_int_equal(result.hits[3].kind, M);
}

/* The look stops where the sorted index has passed every hit: "key.txt"
 * sorts before "key/x", so a directory hit is not given up at "key.txt";
 * a sparse index's "dir/" entry holds what is below it. */
static void sorted(void **state)
{
	static const struct ent idx[] = {
	    {"key", 0}, {"key.txt", 0}, {"key/x", 0}, {"sparse/", 0}, {"z", 0}};
	static const struct ent reordered[] = {{"b", 0}, {"a.pem", 0}};
	const char *rel[] = {"key/", "sparse/in/id_rsa", "sparse/", "key.pem", "zz.pem"};
	const uint8_t kind[] = {M, M, M, M, M};
	const char *rel2[] = {"a.pem"};

	(void)state;
	write_index("sorted/.git", 4, idx, 5);
	mkdirs("sorted/key");
	mkdirs("sorted/sparse/in");
	hits(rel, kind, 5);
	look_at("sorted");
	assert_int_equal(result.hits[0].kind, D);
	assert_int_equal(result.hits[1].kind, D);
	assert_int_equal(result.hits[2].kind, D);
	assert_int_equal(result.hits[3].kind, M);
	assert_int_equal(result.hits[4].kind, M);
	/* Out of order (git never writes that): a.pem comes after b, where
	 * the look has stopped. */
	write_index("sorted/.git", 2, reordered, 2);
	hits(rel2, kind, 1);
	look_at("sorted");
	assert_int_equal(result.hits[0].kind, M);
}

/* An index larger than the reader's buffer: entries cut at its end are
 * read whole with the next fill; the same index cut anywhere is unread,
 * but for what it held before the cut. */
static void large_index(void **state)
{
	static struct ent many[3002];
	static char names[3000][16];
	const char *rel[] = {"zy.pem", "zz.pem"};
	const uint8_t kind[] = {M, M};

	(void)state;
	for (unsigned i = 0; i < 3000; i++) {
		snprintf(names[i], sizeof(names[i]), "d/f%04u.txt", i);
		many[i].path = names[i];
		many[i].ext = i % 7 == 0 ? 0x2000 : 0;
	}
	many[3000].path = "zz.pem";
	many[3001].path = "zzz";
	for (unsigned version = 3; version <= 4; version++) {
		size_t full;
		char p[512];

		write_index("large/.git", version, many, 3002);
		hits(rel, kind, 2);
		look_at("large");
		assert_int_equal(result.hits[0].kind, M);
		assert_int_equal(result.hits[1].kind, D);
		full = build(version, many, 3002, 20);
		snprintf(p, sizeof(p), "%s/large/.git/index", top);
		for (size_t cut = 65536 - 300; cut < full - 28; cut += 97) {
			assert_int_equal(truncate(p, (off_t)cut), 0);
			hits(rel, kind, 2);
			look_at("large");
			/* Denied only when the cut spares the entry itself. */
			if (result.hits[1].kind == D)
				assert_true(cut + 100 > full);
			else
				assert_string_equal(git_note(1),
				                    "\t(in a git repository whose index "
				                    "could not be read: not known if tracked)");
			write_index("large/.git", version, many, 3002);
		}
	}
}

/* An index of n version-2 entries "d/fNNNNNNNN" (80 bytes each), then
 * last, written in pieces: larger than any buffer here. */
static size_t write_big_index(const char *gitdir, unsigned n, const char *last)
{
	static unsigned char chunk[80 * 1024];
	char p[512];
	size_t used = 0, total = 12;
	FILE *f;

	mkdirs(gitdir);
	snprintf(p, sizeof(p), "%s/%s/index", top, gitdir);
	f = fopen(p, "w");
	assert_non_null(f);
	memcpy(chunk, "DIRC", 4);
	put32(chunk + 4, 2);
	put32(chunk + 8, n + 1);
	assert_int_equal(fwrite(chunk, 1, 12, f), 12);
	for (unsigned i = 0; i <= n; i++) {
		unsigned char *e = chunk + used;
		char name[32];
		size_t l;

		snprintf(name, sizeof(name), "d/f%08u", i);
		if (i == n)
			snprintf(name, sizeof(name), "%s", last);
		l = strlen(name);
		memset(e, 0, 80);
		put32(e + 24, 0100644);
		memset(e + 40, 0xab, 20);
		e[60] = (unsigned char)(l >> 8);
		e[61] = (unsigned char)l;
		memcpy(e + 62, name, l);
		used += (62 + l + 8) & ~(size_t)7;
		if (used + 80 > sizeof(chunk) || i == n) {
			assert_int_equal(fwrite(chunk, 1, used, f), used);
			total += used;
			used = 0;
		}
	}
	memset(chunk, 0x5a, 20);
	assert_int_equal(fwrite(chunk, 1, 20, f), 20);
	assert_int_equal(fclose(f), 0);
	return total + 20;
}

/* The index is the jail's to write, its size too: one larger than
 * GI_INDEX_MAX is not read at all (a forged one of 2 GiB was read whole at
 * every launch), and says so; one below the cap is read to its end. */
static void huge_index(void **state)
{
	const char *rel[] = {"zz.pem"};
	const uint8_t kind[] = {M};
	unsigned over = GI_INDEX_MAX / 80 + 16, under = (GI_INDEX_MAX - 4096) / 80;
	char p[512], saved[sizeof(top)];

	(void)state;
	/* 64 MiB twice: in memory where there is a tmpfs with room for it.
	 * A container's /dev/shm is 64 MiB by default (Docker's), one byte
	 * too few for the index over the cap: then the usual folder. */
	memcpy(saved, top, sizeof(top));
	snprintf(top, sizeof(top), "/dev/shm/aj-gitindex-XXXXXX");
	if (!mkdtemp(top)) {
		memcpy(top, saved, sizeof(top));
	} else {
		struct statvfs sv;

		if (statvfs(top, &sv) != 0 ||
		    (uint64_t)sv.f_bavail * sv.f_frsize < (uint64_t)GI_INDEX_MAX + (8u << 20)) {
			rmdir(top);
			memcpy(top, saved, sizeof(top));
		}
	}
	assert_true(write_big_index("huge/.git", over, "zz.pem") > GI_INDEX_MAX);
	mkdirs("huge");
	hits(rel, kind, 1);
	look_at("huge");
	assert_int_equal(result.hits[0].kind, M); /* the entry past the cap is not seen */
	assert_string_equal(git_note(0), "\t(in a git repository whose index could not be read: "
	                                 "not known if tracked)");
	assert_true(write_big_index("huge/.git", under, "zz.pem") <= GI_INDEX_MAX);
	hits(rel, kind, 1);
	look_at("huge");
	assert_int_equal(result.hits[0].kind, D); /* read to its end */
	snprintf(p, sizeof(p), "%s/huge/.git/index", top);
	unlink(p);
	if (strcmp(top, saved)) {
		const char *const dirs[] = {"huge/.git", "huge"};

		for (unsigned i = 0; i < 2; i++) {
			snprintf(p, sizeof(p), "%s/%s", top, dirs[i]);
			rmdir(p);
		}
		rmdir(top);
		memcpy(top, saved, sizeof(top));
	}
}

/* A .git the jail wrote: a symlink, a gitdir that leads to a FIFO named
 * index, an index that does not parse.  Nothing blocks, nothing is
 * denied, and the last one is said. */
static void hostile(void **state)
{
	static const struct ent idx[] = {{".env", 0}};
	const char *rel[] = {".env"};
	const uint8_t kind[] = {M};
	char p[512], q[512];

	(void)state;
	write_index("elsewhere", 2, idx, 1);
	mkdirs("h1");
	snprintf(p, sizeof(p), "%s/elsewhere", top);
	snprintf(q, sizeof(q), "%s/h1/.git", top);
	assert_int_equal(symlink(p, q), 0);
	hits(rel, kind, 1);
	look_at("h1");
	assert_int_equal(result.hits[0].kind, M);

	mkdirs("h2/fifo");
	snprintf(p, sizeof(p), "%s/h2/fifo/index", top);
	assert_int_equal(mkfifo(p, 0644), 0);
	write_file("h2/.git", "gitdir: fifo", 12);
	look_at("h2");
	assert_int_equal(result.hits[0].kind, M);
	write_file("h2/.git", "gitdir: \n", 9);
	look_at("h2");
	assert_int_equal(result.hits[0].kind, M);

	mkdirs("h3/.git");
	write_file("h3/.git/index", "DIRC\0\0\0\2\0\0\0\1garbage-garbage-garbage-garbage", 44);
	look_at("h3");
	assert_int_equal(result.hits[0].kind, M);
	assert_string_equal(git_note(0), "\t(in a git repository whose index could not be read: "
	                                 "not known if tracked)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(version2),   cmocka_unit_test(version3),
	    cmocka_unit_test(version4),   cmocka_unit_test(sha256),
	    cmocka_unit_test(long_names), cmocka_unit_test(stops_early),
	    cmocka_unit_test(headers),    cmocka_unit_test(truncations),
	    cmocka_unit_test(lies),       cmocka_unit_test(damage),
	    cmocka_unit_test(at_the_top), cmocka_unit_test(below_the_top),
	    cmocka_unit_test(worktree),   cmocka_unit_test(nested),
	    cmocka_unit_test(sorted),     cmocka_unit_test(large_index),
	    cmocka_unit_test(hostile),    cmocka_unit_test(huge_index),
	};

	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
