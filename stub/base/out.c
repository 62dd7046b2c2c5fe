/* out.c: buffered output to one fd at a time, so that neither --jail-explain
 * nor die() pulls stdio and its printf into a static binary; and the one
 * loop that reads a small file whole (out_read). */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"

static char out_buf[4096];
static size_t out_len;
static int out_to = 1;

void out_flush(void)
{
	size_t done = 0;

	while (done < out_len) {
		ssize_t w = write(out_to, out_buf + done, out_len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break; /* nowhere to report a failed report */
		done += (size_t)w;
	}
	out_len = 0;
}

void out_fd(int fd)
{
	if (fd != out_to)
		out_flush();
	out_to = fd;
}

static void out_n(const char *s, size_t n)
{
	while (n) {
		size_t room = sizeof(out_buf) - out_len;
		size_t k = n < room ? n : room;
		memcpy(out_buf + out_len, s, k);
		out_len += k;
		s += k;
		n -= k;
		if (out_len == sizeof(out_buf))
			out_flush();
	}
}

void out_s(const char *s)
{
	out_n(s, strlen(s));
}

void out_c(char c)
{
	out_n(&c, 1);
}

/* The stub's one decimal formatter: u's digits and a NUL into buf (room
 * for AJ_DEC_MAX bytes holds any u); returns the number of digits. */
size_t out_fmt_u(char *buf, unsigned long long u)
{
	char b[AJ_DEC_MAX];
	char *p = b + sizeof(b);
	size_t n;

	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	n = (size_t)(b + sizeof(b) - p);
	memcpy(buf, p, n);
	buf[n] = '\0';
	return n;
}

void out_u(unsigned long long u)
{
	char b[AJ_DEC_MAX];

	out_n(b, out_fmt_u(b, u));
}

void out_o(unsigned u)
{
	char b[8];
	char *p = b + sizeof(b);

	do
		*--p = (char)('0' + (u & 7));
	while (u >>= 3);
	*--p = '0';
	out_n(p, (size_t)(b + sizeof(b) - p));
}

/* Up to size bytes of fd, until its end (a read interrupted by a signal
 * is taken again): how many.  The fd is the caller's. */
size_t out_read(int fd, char *buf, size_t size)
{
	size_t n = 0;

	while (n < size) {
		ssize_t r = read(fd, buf + n, size - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	return n;
}

size_t out_str_put(char *buf, size_t at, const char *s)
{
	size_t n = strlen(s);

	memcpy(buf + at, s, n + 1);
	return at + n;
}
