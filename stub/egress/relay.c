/* relay.c: the data path of the proxy (proxy.c) and the forwards
 * (forward.c), in the stub's parent: what one side sent goes to the other
 * through a pipe, by splice(), so the kernel hands the pages on and the
 * parent never copies a byte.
 *
 * A pipe is held only while bytes are in it.  It is taken when the source
 * has something to read and given back as soon as it is drained, to a
 * small pool of empty pipes the next connection takes from: a connection
 * that is set up and closed, or that sits idle, holds none, and a
 * connection's set-up costs no pipe2() and no F_SETPIPE_SZ (measured in
 * docs/network.md).  A pipe goes back to the pool only when the kernel
 * says it is empty (FIONREAD), so no byte of one connection can reach
 * another; otherwise it is closed. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>

#include "egress/egress.h"

/* Empty pipes kept for the next connection: enough for the connections
 * a client opens in a burst; the rest are closed when drained. */
#define RELAY_POOL 8

static int pool[RELAY_POOL][2];
static unsigned n_pool;

void relay_init(struct relay *r)
{
	r->p[0] = r->p[1] = -1;
	r->in = 0;
	r->piped = 0;
	r->filled = false;
}

static bool take(struct relay *r)
{
	if (n_pool) {
		n_pool--;
		r->p[0] = pool[n_pool][0];
		r->p[1] = pool[n_pool][1];
		return true;
	}
	if (pipe2(r->p, O_CLOEXEC | O_NONBLOCK)) {
		r->p[0] = r->p[1] = -1;
		return false;
	}
	/* 1 MiB (the unprivileged maximum): a bulk transfer moves 1 MiB a
	 * splice() rather than 64 KiB; the default where the kernel says no. */
	syscall(SYS_fcntl, r->p[1], F_SETPIPE_SZ, 1 << 20);
	return true;
}

void relay_release(struct relay *r)
{
	int queued = -1;

	if (r->p[0] < 0)
		return;
	/* A pipe nothing went into is empty (a side's end, read at once)
	 * without asking. */
	if (!r->filled)
		queued = 0;
	else if (r->in || ioctl(r->p[0], FIONREAD, &queued))
		queued = -1;
	if (!queued && n_pool < RELAY_POOL) {
		pool[n_pool][0] = r->p[0];
		pool[n_pool][1] = r->p[1];
		n_pool++;
	} else {
		close(r->p[0]);
		close(r->p[1]);
	}
	r->p[0] = r->p[1] = -1;
	r->in = 0;
	r->filled = false;
}

bool relay_move(int from, int to, struct relay *r, bool *eof, uint64_t *left, bool readable)
{
	if (!r->in && (*eof || !readable || (left && !*left)))
		return true;
	if (r->p[0] < 0 && !take(r))
		return false; /* out of descriptors: this connection cannot go on */
	/* Until one side has to wait: one poll per splice would cost more
	 * than the splices. */
	for (;;) {
		if (!r->in && !*eof) {
			size_t want = 1 << 20;
			ssize_t n;

			if (left && !*left)
				break;
			if (left && *left < want)
				want = (size_t)*left;
			n = splice(from, NULL, r->p[1], NULL, want,
			           SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				break;
			if (n < 0)
				return false;
			if (!n)
				*eof = true;
			if (left)
				*left -= (uint64_t)n;
			r->in = (size_t)n;
			r->filled |= n > 0;
		}
		while (r->in) {
			ssize_t w = splice(r->p[0], NULL, to, NULL, r->in,
			                   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

			if (w < 0 && (errno == EAGAIN || errno == EINTR))
				return true; /* the pipe stays, with its bytes, until to drains */
			if (w <= 0)
				return false;
			r->in -= (size_t)w;
			r->piped += (uint64_t)w;
		}
		if (*eof)
			break;
	}
	relay_release(r);
	return true;
}

/* The run ends: the pool's pipes are the parent's last descriptors of
 * the relay. */
void relay_end(void)
{
	while (n_pool) {
		n_pool--;
		close(pool[n_pool][0]);
		close(pool[n_pool][1]);
	}
}
