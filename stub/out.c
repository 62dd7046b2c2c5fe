/* out.c: buffered output to one fd at a time, so that neither --jail-explain
 * nor die() pulls stdio and its printf into a static binary. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "stub.h"

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

void out_n(const char *s, size_t n)
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

void out_u(unsigned long long u)
{
	char b[24];
	char *p = b + sizeof(b);

	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	out_n(p, (size_t)(b + sizeof(b) - p));
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
