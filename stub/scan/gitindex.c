/* gitindex.c: a git index file read (git.c asks it which paths a
 * repository tracks): the header, then each entry's path handed to a
 * callback, through a fixed buffer.  The index lives in the project, so it
 * is hostile input: every length is checked against the end before it is
 * used, and a file that does not parse is no index at all (git.c). */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "scan/scan.h"

/* ---- the index file -------------------------------------------------------
 *
 * "DIRC", version (2, 3 or 4), number of entries, all big-endian; then each
 * entry: ten 32-bit stat fields (mode at offset 24), the object id (20 bytes
 * for SHA-1, 32 for SHA-256), 16 bits of flags (extended bit 0x4000, name
 * length in the low 12 bits, 0xfff for 0xfff and longer), 16 more bits of
 * flags when extended (version 3 and later), the path.  Up to version 3 the
 * path ends in 1 to 8 NULs that pad the entry to a multiple of 8 bytes; in
 * version 4 it is a number of bytes to drop from the end of the previous
 * path (a varint) and a NUL-terminated suffix, unpadded.  Extensions and the
 * trailing checksum (one object id long) follow the entries. */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static char gi_path[AJ_PATH_MAX];

struct gi_reader {
	size_t hashsz;
	uint32_t version, n, i; /* i: entries seen */
	size_t plen;            /* version 4: the last path's length, in gi_path */
	git_index_fn *fn;
	void *ctx;
	bool stop;
};

/* The header, from the start of an index of len bytes. */
static int gi_header(struct gi_reader *g, const unsigned char *p, size_t len)
{
	if (len < 12 + g->hashsz || memcmp(p, "DIRC", 4))
		return GI_ESIG;
	g->version = be32(p + 4);
	g->n = be32(p + 8);
	g->i = 0;
	g->plen = 0;
	g->stop = false;
	return g->version < 2 || g->version > 4 ? GI_EVERSION : 0;
}

/* The entries that lie whole in p..p+avail; more: the entries go on past
 * avail (then an entry cut at avail waits for the next call).  Returns the
 * bytes of the whole entries, or a GI_E* error.  Nothing is kept of an
 * entry until it is whole. */
static long gi_entries(struct gi_reader *g, const unsigned char *p, size_t avail, bool more)
{
	const unsigned char *start = p, *end = p + avail;
	size_t fixed = 40 + g->hashsz + 2;

#define GI_SHORT() return more ? (long)(e - start) : GI_ETRUNC
	while (g->i < g->n && !g->stop) {
		const unsigned char *e = p, *name, *nul;
		const char *path = gi_path;
		size_t hdr = fixed, want, l;
		unsigned flags;

		if ((size_t)(end - e) < hdr)
			GI_SHORT();
		flags = (unsigned)e[fixed - 2] << 8 | e[fixed - 1];
		if (flags & 0x4000) {
			if (g->version < 3)
				return GI_EFLAGS;
			hdr += 2;
			if ((size_t)(end - e) < hdr)
				GI_SHORT();
		}
		want = flags & 0xfff;
		name = e + hdr;
		if (g->version < 4) {
			nul = memchr(name, 0, (size_t)(end - name));
			if (!nul && (size_t)(end - name) >= sizeof(gi_path))
				return GI_ENAME;
			if (!nul)
				GI_SHORT();
			l = (size_t)(nul - name);
			if (l >= sizeof(gi_path))
				return GI_ENAME;
			/* The entry's own length, padded: it must fit too. */
			if ((size_t)(end - e) < ((hdr + l + 8) & ~(size_t)7))
				GI_SHORT();
			path = (const char *)name; /* NUL-terminated where it lies */
			p = e + ((hdr + l + 8) & ~(size_t)7);
		} else {
			size_t strip = 0, sl;
			unsigned c;

			/* git's offset varint: each continuation adds one, so
			 * that every number has one spelling. */
			do {
				if (name == end)
					GI_SHORT();
				c = *name++;
				if (strip > sizeof(gi_path))
					return GI_ENAME;
				strip = (strip << 7) + (c & 127) + ((c & 128) ? 1 : 0);
			} while (c & 128);
			if (strip > g->plen)
				return GI_ENAME;
			nul = memchr(name, 0, (size_t)(end - name));
			if (!nul && (size_t)(end - name) >= sizeof(gi_path))
				return GI_ENAME;
			if (!nul)
				GI_SHORT();
			sl = (size_t)(nul - name);
			l = g->plen - strip;
			if (sl >= sizeof(gi_path) - l)
				return GI_ENAME;
			memcpy(gi_path + l, name, sl + 1);
			l += sl;
			p = nul + 1;
		}
#undef GI_SHORT
		if (want < 0xfff ? l != want : l < 0xfff)
			return GI_ENAME;
		if (!l)
			return GI_ENAME;
		g->plen = l;
		g->i++;
		g->stop = g->fn(g->ctx, path, l, be32(e + 24)) != 0;
	}
	return (long)(p - start);
}

int gitindex_parse(const unsigned char *p, size_t len, size_t hashsz, git_index_fn *fn, void *ctx)
{
	struct gi_reader g = {.hashsz = hashsz, .fn = fn, .ctx = ctx};
	int r = gi_header(&g, p, len);
	long used;

	if (r < 0)
		return r;
	used = gi_entries(&g, p + 12, len - 12 - hashsz, false);
	return used < 0 ? (int)used : (int)g.i;
}

static int first_only(void *ctx, const char *path, size_t len, uint32_t mode)
{
	(void)ctx, (void)path, (void)len, (void)mode;
	return 1;
}

/* The index open at fd, size bytes as fstat saw it, through a fixed
 * buffer: a mapping would die of SIGBUS if the file shrank under it (a
 * jailed git writing it meanwhile).  Entries are read until fn stops. */
int gitindex_read(int fd, size_t size, git_index_fn *fn, void *ctx)
{
	static unsigned char buf[1 << 16]; /* far more than one entry (< 4.2 KiB) */
	struct gi_reader g = {.hashsz = 20};
	size_t have, off = 0, pos = 12, got, region;
	long used;
	int r;

	got = have = out_read(fd, (char *)buf, size < sizeof(buf) ? size : sizeof(buf));
	if (have < 12 || have < (size < sizeof(buf) ? size : sizeof(buf)))
		return GI_ETRUNC;
	/* SHA-256's ids, when only they make the first entry whole. */
	for (size_t hs = 20; hs <= 32; hs += 12) {
		struct gi_reader t = {.hashsz = hs, .fn = first_only};

		if (!gi_header(&t, buf, size) &&
		    gi_entries(&t, buf + 12, (have < size - hs ? have : size - hs) - 12,
		               have < size - hs) >= 0 &&
		    (t.i || !t.n)) {
			g.hashsz = hs;
			break;
		}
	}
	g.fn = fn;
	g.ctx = ctx;
	if ((r = gi_header(&g, buf, size)) < 0)
		return r;
	region = size - g.hashsz; /* the entries end before the checksum */
	for (;;) {
		size_t lim = have < region - off ? have : region - off;
		bool more = off + have < region;

		used = gi_entries(&g, buf + pos, lim - pos, more);
		if (used < 0)
			return (int)used;
		if (g.i == g.n || g.stop)
			return (int)g.i;
		pos += (size_t)used;
		memmove(buf, buf + pos, have - pos);
		off += pos;
		have -= pos;
		pos = 0;
		if (have == sizeof(buf))
			return GI_ENAME; /* no whole entry in the buffer */
		size_t want = sizeof(buf) - have < size - got ? sizeof(buf) - have : size - got;
		size_t n = out_read(fd, (char *)(buf + have), want);

		if (n < want || !want)
			return GI_ETRUNC; /* shrunk since fstat */
		have += n;
		got += n;
	}
}

/* ---- the repositories, and which hits each tracks ---------------------- */
