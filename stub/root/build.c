/* build.c: pid 1's one way through the root, in one call (main.c's
 * init_run): the plan's mounts (plan.c), the trust bundle (trust.c), the
 * scan's hand-over, the covers (mask.c), the old root gone.  Each file is
 * visited once, in this order; pid 1 then starts the covering process
 * (appear.c) itself, once it is in its network namespace (proc/ns.c).
 *
 * The parent walks the project while pid 1 mounts: the hand-over is
 * received after every mount that does not need the scan, so that the
 * walk and the mounts overlap, and before the covers, which are made from
 * it. */
#include <errno.h>
#include <stddef.h>

#include "root/root.h"

/* The scan's results from the parent, in one message (WIRE_SCAN, sent by
 * proc/ns.c's ns_scan_send): a header, the hits, the bytes of paths they
 * use, then len bytes for the room that sent them (proc/'s bounds), with
 * up to max_fds descriptors; how many came.  A parent that died on the
 * way (a scan that failed closed) sends nothing: pid 1 then stops.  Also
 * the fallback's child. */
unsigned build_receive(int sock, void *tail, size_t len, int *fds, unsigned max_fds)
{
	struct scan_result *s = hits_now();
	int n = wire_recv(sock, WIRE_SCAN, s, offsetof(struct scan_result, hits), fds, max_fds);

	if (n < 0)
		_exit(AJ_EXIT_SETUP); /* the parent has said why */
	if (s->n > AJ_SCAN_MAX || s->used > AJ_SCAN_ARENA)
		die("receive the scan", EPROTO, NULL);
	if (!wire_read(sock, s->hits, s->n * sizeof(s->hits[0])) ||
	    !wire_read(sock, s->arena, s->used) || !wire_read(sock, tail, len))
		_exit(AJ_EXIT_SETUP);
	return (unsigned)n;
}

/* The covers made, the host's root goes; without Landlock the new root
 * becomes read-only (plan.c says why). */
static void finish(const char *project, bool root_ro)
{
	if (umount2("/oldroot", MNT_DETACH))
		die("detach the old root", errno, NULL);
	if (rmdir("/oldroot"))
		die("remove /oldroot", errno, NULL);
	if (root_ro &&
	    mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL))
		die("make the new root read-only", errno, NULL);
	if (chdir(project))
		diep("enter the project", project, errno,
		     "the policy does not bring the project into the jail");
}

void build_root(const struct run *r, struct build_hand *h)
{
	struct plan_made made;

	plan_make(&made);
	trust_mount(h->pem);
	TRACE_MARK("mounts");
	h->n_fds = build_receive(h->sock, h->tail, h->len, h->fds, h->max_fds);
	TRACE_MARK("scan-wait");
	mask_apply(r->project, r->v, &made);
	TRACE_MARK("sockets-cover");
	finish(r->project, made.root_ro);
	TRACE_MARK("pivot");
}
