/* fdpass.c: one descriptor and a few bytes over a Unix socket, in one
 * message: pid 1 hands the parent its proxy listener and its seccomp
 * listener this way (the scan, which carries several, has its own in
 * ns.c). */
#include <string.h>
#include <sys/socket.h>

#include "base/base.h"

union fd_cmsg {
	struct cmsghdr h;
	char buf[CMSG_SPACE(sizeof(int))];
};

bool fd_send(int sock, const void *data, size_t len, int fd)
{
	union fd_cmsg c = {0};
	struct iovec iov = {(void *)data, len};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};

	if (fd >= 0) {
		msg.msg_control = c.buf;
		msg.msg_controllen = sizeof(c.buf);
		c.h.cmsg_level = SOL_SOCKET;
		c.h.cmsg_type = SCM_RIGHTS;
		c.h.cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(&c.h), &fd, sizeof(int));
	}
	return syscall(SYS_sendmsg, sock, &msg, MSG_NOSIGNAL) == (long)len;
}

int fd_recv(int sock, void *data, size_t len)
{
	union fd_cmsg c;
	struct iovec iov = {data, len};
	struct msghdr msg = {.msg_iov = &iov,
	                     .msg_iovlen = 1,
	                     .msg_control = c.buf,
	                     .msg_controllen = sizeof(c.buf)};
	struct cmsghdr *h;
	int fd = -1;
	long r;

	while ((r = syscall(SYS_recvmsg, sock, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	if (r != (long)len)
		return -2; /* the sender is gone, or sent something else */
	h = CMSG_FIRSTHDR(&msg);
	if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS &&
	    h->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(h), sizeof(int));
	return fd;
}
