/* xauth.c: is a file an X authority file?  The display toggle shows the
 * jail $XAUTHORITY only when it is one (resolve.c), so that the variable
 * cannot point the jail at a key or a token. */
#include <string.h>

#include "variant/variant.h"

/* The Xauthority format: records of a 16-bit family and four counted
 * strings (address, display number, auth name, auth data), big-endian,
 * to the end of the file.  A key, a token file or a config file is not
 * that, so it is never shown as one. */
bool xauth_is(int pfd)
{
	static const char *const names[] = {"MIT-MAGIC-COOKIE-1", "XDM-AUTHORIZATION-1",
	                                    "SUN-DES-1", "MIT-KERBEROS-5"};
	static unsigned char buf[65536];
	char link[32] = "/proc/self/fd/";
	size_t n = 0, off = 0;
	unsigned records = 0;
	int fd;

	/* Read through the checked descriptor, never the name again. */
	link[14 + out_fmt_u(link + 14, (unsigned)pfd)] = '\0';
	fd = openat(AT_FDCWD, link, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return false;
	n = out_read(fd, (char *)buf, sizeof(buf));
	close(fd);
	if (n == 0 || n == sizeof(buf))
		return false;
	while (off < n) {
		size_t name = 0, name_len = 0;

		if (off + 2 > n)
			return false;
		off += 2; /* family */
		for (int f = 0; f < 4; f++) {
			size_t l;

			if (off + 2 > n)
				return false;
			l = (size_t)buf[off] << 8 | buf[off + 1];
			off += 2;
			if (off + l > n)
				return false;
			if (f == 2) {
				name = off;
				name_len = l;
			}
			off += l;
		}
		bool known = false;
		for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			known |=
			    name_len == strlen(names[i]) && !memcmp(buf + name, names[i], name_len);
		if (!known)
			return false;
		records++;
	}
	return records > 0;
}
