/* proc/proc.h: the interface of the room proc/: the processes: namespaces, pid 1's and the parent's
 * supervision, privileges, rlimits and cgroups, the seccomp filters. Included by its files and by
 * the rooms above it (docs/layout.md). */
#ifndef AJ_STUB_PROC_H
#define AJ_STUB_PROC_H

#include "base/base.h"
#include "variant/variant.h"
#include "scan/scan.h"
#include "confine/confine.h"
#include "root/root.h"
#include "notify/notify.h"
#include "egress/egress.h"
#include "term/term.h"

/* ns.c */
int ns_enter(const struct aj_variant *v);
const char *ns_start(const struct aj_variant *v);
pid_t ns_clone(unsigned long flags, int *parent_fd);
pid_t ns_fork_init(const struct aj_variant *v, int *parent_fd);
void ns_scan_send(int parent_fd);
/* netns.c: the network namespace made beside pid 1, where it can be */
bool netns_later(const struct aj_variant *v);
void netns_spawn(void);
void netns_send(int parent_fd);
void netns_join(const struct aj_variant *v, int sock);
void netns_loopback(const struct aj_variant *v);

void ns_scan_receive(void);
int ns_parent_sock(const struct aj_variant *v);
void ns_notify_send(int fd, int err);

int ns_init_prepare(const struct aj_variant *v);

/* privs.c: keep and keep2 stay open (-1: none) */
void privs_fds_close(int keep, int keep2, int keep3);
void privs_rlimit_tighten(int resource, uint64_t v);
void privs_caps_clear(int keep);
void privs_caps_raise(int cap);
void privs_drop(void);
void privs_confine(int ruleset, int keep, int keep2, int keep3);

/* limits.c: a variant's memory and task bounds, resolved for this host
 * (limits_resolve, in the caller), and how they are enforced: the parent
 * places pid 1 in a cgroup of the jail's own where it can (limits_place),
 * and pid 1 learns with the scan which bounds it must take as rlimits
 * (limits_how, limits_apply).  limits_probe() is --jail-explain's look. */
#define LIMIT_MEMORY 0
#define LIMIT_TASKS  1
#define LIMIT_N      2
struct limit {
	uint64_t value;   /* bytes or tasks; 0: unbounded */
	uint64_t total;   /* the physical memory a percentage is of */
	unsigned percent; /* the policy's percentage, 0 for a figure */
	bool v2;          /* the cgroup is v2's */
	bool by_cgroup;   /* enforced by .cgroup for the jail as a whole */
	const char *file; /* the cgroup file that holds the bound */
	const char *why;  /* why no cgroup */
	char cgroup[AJ_PATH_MAX];
};
extern struct limit limits[LIMIT_N];
const struct limit *limits_at(unsigned i); /* limits[i], for explain */
struct limits_how {
	uint8_t cgroup[LIMIT_N]; /* a cgroup holds this bound */
	uint8_t join[LIMIT_N];   /* pid 1 joins it itself, through an fd sent with the scan */
};
extern struct limits_how limits_how;
/* The kernel's files limits.c reads by name (a test's fake tree). */
struct limits_paths {
	const char *self, *uid_map; /* /proc/self/cgroup, /proc/self/uid_map */
	const char *v2[2];          /* where cgroup v2 may be mounted, in order */
	const char *v1[LIMIT_N];    /* the v1 hierarchies */
};
extern struct limits_paths limits_paths;
void limits_resolve(const struct aj_variant *v);
void limits_probe(void);
void limits_place(pid_t init);
unsigned limits_join_fds(int *fds);
void limits_joined(const int *fds, unsigned n);
void limits_release(void);
int limits_keep(void);
bool limits_nproc_here(void);
bool limits_host_root(void);
void limits_apply(void);
void limits_rlimits(const struct aj_variant *v);
void limits_userns(const struct aj_variant *v); /* the caller, from ns_enter */
void limits_take(const struct aj_variant *v, const int *fds, unsigned n); /* pid 1 */

/* seccomp.c */
void seccomp_install(const struct aj_variant *v);

/* supervise.c */
extern sigset_t supervise_sig_orig;
extern sigset_t supervise_sig_wait; /* what the parent and pid 1 take synchronously */
/* pid 1's other child, which covers names that appear during the run
 * (root/appear.c); 0: none.  Killed, stopped or failed, it ends the jail. */
extern pid_t supervise_helper;
void supervise_block(void);
void supervise_signal(pid_t child, int sig);
int supervise_signal_fd(void);
void supervise_signals_take(pid_t child, int sfd);

noreturn void supervise_parent(pid_t child, const struct ev_source *const *src, unsigned n_src);
noreturn void supervise_init(const struct run *r);

/* status.c: --jail-status-fd=N, the record of how the run ended, written
 * by the parent alone; the pipe that tells it what happened inside. */
void status_option(const char *value, const char *opt);
void status_off(void);
void status_pipe(void);   /* before the clone */
void status_parent(void); /* after it, in the parent */
void status_child(void);  /* after it, in the child: N closed */
int status_keep(void);    /* the child's end, kept by privs_fds_close */
void status_ran(void);
void status_notran(int err, const char *cause);
void status_end(int wstatus);
void status_timeout(void);
void status_report(int code, const char *step, const char *cause);

#endif
