/* source.c: policy files read from disk without trusting what they are.
 *
 * A diagnostic quotes the line it is about, so whatever the compiler reads
 * it may print: an include that reached /etc/shadow would echo it line by
 * line, one that reached /dev/zero would never end.  A file is therefore
 * checked before a byte of it is parsed: reached without a symbolic link
 * beneath a folder the user named, a regular file (so never opened if it
 * is a device or a FIFO, where opening alone may block or act), at most
 * SRC_MAX_BYTES long, and text: UTF-8 without NUL or control characters
 * (which a terminal would act on when the line is quoted), no line over
 * SRC_MAX_LINE bytes.  A file that fails is named, never quoted. */
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static enum src_result refuse(struct src_fault *f, const char *path, const char *why)
{
	f->why = why;
	f->path = path;
	f->line = f->col = 0;
	return SRC_REFUSED;
}

static const char *not_regular(mode_t m)
{
	const char *what = S_ISDIR(m)    ? "a directory"
	                   : S_ISFIFO(m) ? "a FIFO"
	                   : S_ISCHR(m)  ? "a character device"
	                   : S_ISBLK(m)  ? "a block device"
	                   : S_ISSOCK(m) ? "a socket"
	                                 : NULL;
	return what ? ast_printf("it is %s, not a regular file", what) : "it is not a regular file";
}

/* The length of the UTF-8 sequence at p, or 0 when it is not one (overlong
 * forms and UTF-16 surrogates included, as RFC 3629 says). */
static size_t utf8_len(const unsigned char *p, size_t left)
{
	unsigned char c = p[0];
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (left < n || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

/* Columns count bytes, as the scanner's do. */
bool source_text_fault(const char *text, size_t len, struct src_fault *f)
{
	const unsigned char *t = (const unsigned char *)text;
	int line = 1, col = 1;
	for (size_t i = 0; i < len;) {
		size_t n = utf8_len(t + i, len - i);
		unsigned char c = t[i];
		const char *why = NULL;
		if (c == '\n') {
			line++;
			col = 1;
			i++;
			continue;
		}
		if (col > SRC_MAX_LINE)
			why = ast_printf("a line longer than %d bytes", SRC_MAX_LINE);
		else if (c == 0)
			why = "a NUL byte";
		else if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f ||
		         (c == 0xc2 && n == 2 && t[i + 1] < 0xa0))
			why = "a control character";
		else if (n == 0)
			why = "bytes that are not UTF-8";
		if (why) {
			f->why = why;
			f->line = line;
			f->col = col;
			return true;
		}
		i += n;
		col += (int)n;
	}
	return false;
}

/* fd was opened from the name that checked passed for. */
static enum src_result read_checked(int fd, const struct stat *checked, const char *path,
                                    const struct src **out, struct src_id *id,
                                    struct src_fault *fault)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return refuse(fault, path, ast_printf("%s", strerror(errno)));
	if (!S_ISREG(st.st_mode))
		return refuse(fault, path, not_regular(st.st_mode));
	if (checked && (st.st_dev != checked->st_dev || st.st_ino != checked->st_ino))
		return refuse(fault, path, "it was replaced while it was opened");
	const char *too_big = ast_printf("it is larger than %d MiB, the most a policy file may be",
	                                 SRC_MAX_BYTES >> 20);
	if (st.st_size > SRC_MAX_BYTES)
		return refuse(fault, path, too_big);
	char *buf = malloc(SRC_MAX_BYTES + 1);
	if (!buf)
		return refuse(fault, path, ast_printf("%s", strerror(ENOMEM)));
	/* Bounded by what is read, not by st_size: the file may grow. */
	size_t len = 0;
	while (len <= SRC_MAX_BYTES) {
		ssize_t n = read(fd, buf + len, SRC_MAX_BYTES + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			free(buf);
			return refuse(fault, path, ast_printf("%s", strerror(e)));
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > SRC_MAX_BYTES) {
		free(buf);
		return refuse(fault, path, too_big);
	}
	fault->path = path;
	if (source_text_fault(buf, len, fault)) {
		free(buf);
		return SRC_REFUSED;
	}
	*out = diag_src_new(path, buf, len);
	free(buf);
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	return SRC_READ;
}

/* O_NONBLOCK: a FIFO put in the file's place after the check must not hang
 * the open; O_NOCTTY: nor may a terminal become ours. */
#define SRC_OPEN_FLAGS (O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)

static char *join(const char *base, const char *rel)
{
	size_t n = strlen(base);
	if (!n)
		return ast_strdup(rel);
	return ast_printf("%s%s%s", base, base[n - 1] == '/' ? "" : "/", rel);
}

enum src_result source_read_beneath(const char *base, const char *rel, const struct src **out,
                                    struct src_id *id, struct src_fault *fault)
{
	char *path = join(base, rel);
	int dir = open(base[0] ? base : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return SRC_MISSING; /* an -I folder that is not there holds nothing */
	enum src_result r = SRC_MISSING;
	char *walk = ast_strdup(rel), *save = NULL;
	const char *done = base; /* what was reached so far, for messages */
	char *comp = strtok_r(walk, "/", &save);
	while (comp) {
		char *next = strtok_r(NULL, "/", &save);
		if (!strcmp(comp, ".")) {
			comp = next;
			continue;
		}
		char *here = join(done, comp);
		if (!strcmp(comp, "..")) {
			r = refuse(fault, path, "'..' would leave the folder it is searched in");
			break;
		}
		struct stat st;
		if (fstatat(dir, comp, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			if (errno != ENOENT && errno != ENOTDIR)
				r = refuse(fault, here, ast_printf("%s", strerror(errno)));
			break;
		}
		/* Wherever a link points, it was not checked: whoever can
		 * write the folder chooses its target. */
		if (S_ISLNK(st.st_mode)) {
			r = refuse(fault, here,
			           "it is a symbolic link, which an include never follows");
			break;
		}
		if (next) {
			if (!S_ISDIR(st.st_mode))
				break; /* not found here */
			int sub = openat(dir, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0) {
				r = refuse(fault, here, ast_printf("%s", strerror(errno)));
				break;
			}
			close(dir);
			dir = sub;
			done = here;
			comp = next;
			continue;
		}
		if (!S_ISREG(st.st_mode)) {
			r = refuse(fault, here, not_regular(st.st_mode));
			break;
		}
		int fd = openat(dir, comp, SRC_OPEN_FLAGS | O_NOFOLLOW);
		if (fd < 0) {
			r = refuse(fault, here, ast_printf("%s", strerror(errno)));
			break;
		}
		r = read_checked(fd, &st, path, out, id, fault);
		close(fd);
		break;
	}
	close(dir);
	return r;
}

enum src_result source_read_path(const char *path, const struct src **out, struct src_id *id,
                                 struct src_fault *fault)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		if (errno == ENOENT)
			return SRC_MISSING;
		return refuse(fault, path, ast_printf("%s", strerror(errno)));
	}
	if (!S_ISREG(st.st_mode))
		return refuse(fault, path, not_regular(st.st_mode));
	int fd = open(path, SRC_OPEN_FLAGS);
	if (fd < 0)
		return refuse(fault, path, ast_printf("%s", strerror(errno)));
	enum src_result r = read_checked(fd, &st, path, out, id, fault);
	close(fd);
	return r;
}
