/* wire.c: the one protocol between the parent and pid 1.  proc/ns.c makes
 * the socket pair; these messages go over it, in this order and no other:
 *
 *   WIRE_SCAN    parent -> pid 1  the scan (its header, hits and paths) and
 *                                 which bounds a cgroup holds, with the fds
 *                                 of the cgroups pid 1 joins itself
 *   WIRE_NET     parent -> pid 1  the jail's network namespace, made beside
 *                                 pid 1 (proc/ns.c), when pid 1 joins it
 *                                 once its root is built
 *   WIRE_PROXY   pid 1 -> parent  the proxy's listener ('network allow')
 *   WIRE_NAMES   pid 1 -> parent  with the proxy's: the UDP sockets on the
 *                                 nameservers' addresses (names.c)
 *   WIRE_FORWARD pid 1 -> parent  the listeners of the forwarded host ports
 *                                 (--jail-forward), one fd each, up to 8
 *   WIRE_NOTIFY  pid 1 -> parent  the refusal listener, or the errno of why
 *                                 there is none (a variant that reports)
 *
 * Each message starts with its tag: a receiver that reads another, or
 * nothing (the other side is gone), fails closed.  The host's sockets to
 * cover go over a pair of their own (root/sockets.c), sent while pid 1
 * builds the root; one stream cannot carry both without one waiting for
 * the other.  In base/ because three rooms speak it (proc, egress,
 * notify). */
#include <string.h>
#include <sys/socket.h>

#include "base/base.h"

#define WIRE_FDS 8 /* the most fds one message carries */

union wire_cmsg {
	struct cmsghdr h;
	char buf[CMSG_SPACE(WIRE_FDS * sizeof(int))];
};

bool wire_send(int sock, enum wire_msg m, const struct iovec *iov, unsigned n, const int *fds,
               unsigned n_fds)
{
	struct iovec v[1 + WIRE_IOVS];
	uint8_t tag = (uint8_t)m;
	union wire_cmsg c = {0};
	struct msghdr msg = {.msg_iov = v, .msg_iovlen = 1 + n};
	size_t total = 1;
	long sent;

	if (n > WIRE_IOVS || n_fds > WIRE_FDS) {
		errno = EINVAL;
		return false;
	}
	v[0] = (struct iovec){&tag, 1};
	for (unsigned i = 0; i < n; i++) {
		v[1 + i] = iov[i];
		total += iov[i].iov_len;
	}
	if (n_fds) {
		msg.msg_control = c.buf;
		msg.msg_controllen = CMSG_SPACE(n_fds * sizeof(int));
		c.h.cmsg_level = SOL_SOCKET;
		c.h.cmsg_type = SCM_RIGHTS;
		c.h.cmsg_len = CMSG_LEN(n_fds * sizeof(int));
		memcpy(CMSG_DATA(&c.h), fds, n_fds * sizeof(int));
	}
	while ((sent = syscall(SYS_sendmsg, sock, &msg, MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	if (sent >= 0 && sent != (long)total)
		errno = EPIPE; /* a stream socket takes all or fails here: the peer is gone */
	return sent == (long)total;
}

bool wire_read(int sock, void *buf, size_t n)
{
	for (char *p = buf; n;) {
		long r = syscall(SYS_read, sock, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		p += r;
		n -= (size_t)r;
	}
	return true;
}

int wire_recv(int sock, enum wire_msg m, void *buf, size_t len, int *fds, unsigned max)
{
	union wire_cmsg c;
	uint8_t tag = 0;
	struct iovec v[2] = {{&tag, 1}, {buf, len}};
	struct msghdr msg = {
	    .msg_iov = v, .msg_iovlen = 2, .msg_control = c.buf, .msg_controllen = sizeof(c.buf)};
	unsigned n = 0;
	long r;

	while ((r = syscall(SYS_recvmsg, sock, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	for (struct cmsghdr *h = r > 0 ? CMSG_FIRSTHDR(&msg) : NULL; h; h = CMSG_NXTHDR(&msg, h))
		if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS)
			for (size_t i = 0; CMSG_LEN((i + 1) * sizeof(int)) <= h->cmsg_len; i++) {
				int fd;

				memcpy(&fd, CMSG_DATA(h) + i * sizeof(int), sizeof(int));
				if (n < max)
					fds[n++] = fd;
				else
					close(fd); /* more than this message carries */
			}
	if (r <= 0 || tag != (uint8_t)m ||
	    !wire_read(sock, (char *)buf + (r - 1), len - (size_t)(r - 1))) {
		while (n)
			close(fds[--n]);
		return -1;
	}
	return (int)n;
}
