/* notify.c: the calls the filter refuses, told to the stub's parent.
 *
 * pid 1 installs the variant's first filter with its errno verdicts (but
 * AJ_ERRNO_QUIET's) turned into SECCOMP_RET_USER_NOTIF, and hands the
 * listener to the parent.  The parent, outside the jail and under no
 * filter, answers each notification with the errno the unchanged filter
 * returns for the same seccomp_data (it runs the compiled program itself),
 * so every call gets exactly the errno it got without the listener, and
 * counts it (refusals.c).  Allowed calls never leave the kernel: the
 * verdicts that allow are not touched.
 *
 * The answer is never SECCOMP_USER_NOTIF_FLAG_CONTINUE, and the target's
 * memory is never read: only the registers the kernel copied, so nothing
 * the target changes after the call matters.  The parent cannot block the
 * jail: pid 1 dies with it (PR_SET_PDEATHSIG), and a closed listener makes
 * the kernel fail the waiting call.  Where no listener can be had (a kernel
 * before 5.0, a jail inside a jail whose filters hold one already, a
 * program verdict.c does not know), the unchanged filter is
 * installed: the refusals stand, unreported. */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "notify/notify.h"

_Static_assert(AJ_ERRNO_QUIET == ENOSYS, "AJ_ERRNO_QUIET is ENOSYS");

#define NOTIFY_INSNS 4096 /* the kernel's BPF_MAXINSNS */

/* Linux 6.6; Debian 12's headers stop before it. */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, uint64_t)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP 1
#endif

/* Is insn a verdict to route through the parent? */
static bool reported(const struct aj_bpf_insn *i)
{
	return i->code == (BPF_RET | BPF_K) &&
	       (i->k & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO &&
	       (i->k & SECCOMP_RET_DATA) != AJ_ERRNO_QUIET;
}

/* ---- pid 1: the filter with a listener ------------------------------------ */

static struct sock_filter patched[NOTIFY_INSNS];

/* Installs v's first filter with the reported verdicts as notifications;
 * returns the listener, or -1 and *err why not (nothing installed then). */
int notify_filter(const struct aj_variant *v, int *err)
{
	const struct aj_filter *f = &v->filters[0];
	struct sock_fprog prog = {.len = f->n, .filter = patched};
	unsigned n = 0;
	long fd;

	*err = 0;
	if (!v->n_refused || f->n > NOTIFY_INSNS)
		return -1;
	if (!verdict_known(f)) {
		*err = ENOEXEC;
		return -1;
	}
	for (unsigned i = 0; i < f->n; i++) {
		memcpy(&patched[i], &f->insns[i], sizeof(patched[i]));
		if (reported(&f->insns[i])) {
			patched[i].k = SECCOMP_RET_USER_NOTIF;
			n++;
		}
	}
	if (!n)
		return -1;
	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (fd < 0)
		*err = errno;
	return (int)fd;
}

/* ---- the parent: the answers --------------------------------------------- */

int notify_fd = -1;
static const struct aj_filter *notify_prog;

/* The parent: pid 1's listener, or -1 with *err why not (0: pid 1 ended
 * first, and its status says why). */
static int receive_listener(int sock, int *err)
{
	int fd, n = wire_recv(sock, WIRE_NOTIFY, err, sizeof(*err), &fd, 1);

	if (n < 0) {
		*err = 0;
		return -1;
	}
	return n ? fd : -1;
}

/* The listener as a source of the parent's one loop (proc/supervise.c). */
static unsigned notify_fill(struct pollfd *p, unsigned max)
{
	if (notify_fd < 0 || !max)
		return 0;
	p[0] = (struct pollfd){.fd = notify_fd, .events = POLLIN};
	return 1;
}

static void notify_serve(const struct pollfd *p, unsigned n)
{
	if (n && (p[0].revents & POLLIN)) {
		notify_answer();
	} else if (n && p[0].revents) { /* every process of the filter is gone */
		close(notify_fd);
		notify_fd = -1;
	}
}

const struct ev_source notify_source = {notify_fill, notify_serve};

/* pid 1's listener, or why it has none; the parent waits for it when the
 * variant reports, before the target exists.  Its source answers nothing
 * while there is none. */
const struct ev_source *notify_start(const struct aj_variant *v, int sock)
{
	int err = 0;

	if (!v->n_refused)
		return &notify_source;
	notify_fd = receive_listener(sock, &err);
	notify_prog = &v->filters[0];
	/* The caller waits while we answer: wake us, and it, on the CPU it
	 * runs on, not across (measured here, 2 busy CPUs: 14-100 us a
	 * refusal across, 7 on one).  Older kernels wake as they did. */
	if (notify_fd >= 0)
		(void)ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
		            SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	refusals_listener(v, err);
	return &notify_source;
}

void notify_answer(void)
{
	struct seccomp_notif n;
	struct seccomp_notif_resp r = {0};
	uint32_t verdict;

	/* The kernel wants it zeroed. */
	memset(&n, 0, sizeof(n));
	if (ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_RECV, &n)) {
		/* ENOENT: the caller was killed before we read it. */
		if (errno != ENOENT && errno != EINTR) {
			close(notify_fd);
			notify_fd = -1; /* the kernel fails what waits: ENOSYS */
		}
		return;
	}
	verdict = verdict_run(notify_prog, &n.data);
	r.id = n.id;
	r.error = (verdict & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO
	              ? -(int)(verdict & SECCOMP_RET_DATA)
	              : -EPERM;
	if (!r.error) /* SECCOMP_RET_ERRNO | 0 would be a success */
		r.error = -EPERM;
	/* ENOENT: the caller was killed meanwhile; nothing to answer. */
	(void)ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_SEND, &r);
	refusals_call(n.data.nr, -r.error);
}
