/* sys.h: the kernel interfaces musl 1.2.3 has no wrapper for, and the
 * declarations of the stub's kernel-facing files.  musl only; never
 * include <linux/fcntl.h> here (it redefines struct flock). */
#ifndef AJ_SYS_H
#define AJ_SYS_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>
#include <linux/mount.h>
#include <linux/openat2.h>

#include "stub.h"

/* The kernel's linux_dirent64; musl's struct dirent has the same layout but
 * a fixed-size name, which would mislead about the buffer. */
struct aj_dirent {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* Reads a directory with getdents64 into a caller's buffer, one entry at a
 * time, "." and ".." left out.  The three walks of the stub (the project
 * scan, the fence, device globs) share it. */
struct dir_iter {
	int fd;
	char *buf;
	size_t size;
	long n, off;
};

/* The next entry, or NULL at the end; a read error ends the jail with step
 * and what. */
static inline struct aj_dirent *dir_next(struct dir_iter *it, const char *step, const char *what)
{
	for (;;) {
		if (it->off >= it->n) {
			it->n = syscall(SYS_getdents64, it->fd, it->buf, it->size);
			it->off = 0;
			/* A directory removed while it is read has no entries
			 * left (ENOENT): a build's temporary folder. */
			if (it->n < 0 && errno == ENOENT)
				return NULL;
			if (it->n < 0)
				diep(step, what, errno, NULL);
			if (it->n == 0)
				return NULL;
		}
		struct aj_dirent *d = (struct aj_dirent *)(it->buf + it->off);
		const char *name = d->d_name;

		it->off += d->d_reclen;
		if (!(name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]))))
			return d;
	}
}

static inline int sys_open_tree(int dfd, const char *path, unsigned flags)
{
	return (int)syscall(SYS_open_tree, dfd, path, flags);
}

static inline int sys_move_mount(int from_dfd, const char *from, int to_dfd, const char *to,
                                 unsigned flags)
{
	return (int)syscall(SYS_move_mount, from_dfd, from, to_dfd, to, flags);
}

static inline int sys_mount_setattr(int dfd, const char *path, unsigned flags,
                                    struct mount_attr *attr)
{
	return (int)syscall(SYS_mount_setattr, dfd, path, flags, attr, sizeof(*attr));
}

/* openat2(2), always close-on-exec: the resolution rules of resolve.c. */
static inline int openat2_(int dfd, const char *path, int flags, unsigned long long resolve)
{
	struct open_how how = {.flags = (unsigned)flags | O_CLOEXEC, .resolve = resolve};

	return (int)syscall(SYS_openat2, dfd, path, &how, sizeof(how));
}

static inline int sys_pivot_root(const char *new_root, const char *put_old)
{
	return (int)syscall(SYS_pivot_root, new_root, put_old);
}

/* fs.c: the paths of the new root (mount_plan.c, dev.c, mask.c). */
void mkdir_p(const char *path);
void mkfile_p(const char *path);
void make_link(const char *path, const char *target);

/* ns.c */
int ns_enter(const struct aj_variant *v);
void ns_limit_late(void);
const char *ns_start(const struct aj_variant *v);
pid_t ns_clone(unsigned long flags, int *parent_fd);
pid_t ns_fork_init(const struct aj_variant *v, int *parent_fd);
void ns_scan_send(int parent_fd);
void ns_scan_receive(void);
int ns_parent_sock(const struct aj_variant *v);
void ns_notify_send(int fd, int err);
/* fdpass.c: one descriptor (or none: -1) and len bytes in one message;
 * fd_recv returns the descriptor, -1 for none, -2 when len bytes did not
 * come (the sender is gone). */
bool fd_send(int sock, const void *data, size_t len, int fd);
int fd_recv(int sock, void *data, size_t len);
void init_prepare(const struct aj_variant *v);

/* landlock.c: landlock_create() is -1 where Landlock is not enforced;
 * every rule goes through landlock_rule() (isdir: 1, 0, or -1 for not
 * known). */
#define AJ_LL_ABI_KNOWN 9 /* the newest ABI landlock.c's table knows */
int landlock_abi(void);
uint64_t landlock_fs_handled(int abi, unsigned network);
uint64_t landlock_bind_extra(uint64_t handled, unsigned mode);
uint64_t landlock_socket_right(int fd);
bool net_blocked_here(const struct aj_variant *v);
int landlock_create(const struct aj_variant *v);
void landlock_rule(int ruleset, int fd, uint64_t access, int isdir, const char *path);
void landlock_enforce(int ruleset);

/* sockets.c: the host's named sockets beneath the binds (sockets_covered:
 * covered by pid 1; sockets_by_landlock: Landlock's resolve_unix). */
bool sockets_by_landlock(const struct aj_variant *v);
bool sockets_covered(const struct aj_variant *v);
void sockets_prepare(const struct aj_variant *v); /* the caller, before the fork */
void sockets_send(void);                          /* the parent */
int sockets_next(char *what, size_t size);        /* pid 1, from mask_apply */
void sockets_explain(const struct aj_variant *v, bool fallback);

/* privs.c */
void fds_close(int keep);
void rlimits_apply(const struct aj_variant *v);
void rlimit_tighten(int resource, uint64_t v);
void caps_clear(int keep);
void caps_raise(int cap);
void privs_drop(void);

/* limits.c: a variant's memory and task bounds, resolved for this host
 * (limits_resolve, in the caller), and how they are enforced: the parent
 * places pid 1 in a cgroup of the jail's own where it can (limits_place),
 * and pid 1 learns with the scan which bounds it must take as rlimits
 * (limit_how, limits_apply).  limits_probe() is --jail-explain's look. */
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
struct limit_how {
	uint8_t cgroup[LIMIT_N]; /* a cgroup holds this bound */
	uint8_t join[LIMIT_N];   /* pid 1 joins it itself, through an fd sent with the scan */
};
extern struct limit_how limit_how;
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

/* seccomp.c */
void seccomp_install(const struct aj_variant *v);

/* notify.c: the refused calls through a listener (pid 1 installs it, the
 * parent answers); refusals.c: what was refused, told at the end. */
int notify_filter(const struct aj_variant *v, int *err);
extern int notify_fd;
void notify_start(const struct aj_variant *v, int sock);
void notify_answer(void);
extern int reflog_fd; /* reflog.c: --jail-log's file, -1: none */
void reflog_open(const char *path, const char *opt);
bool reflog_named(void);
void reflog_guard(int fd, const char *path);
void refusals_listener(const struct aj_variant *v, int err);
void refusal_call(unsigned nr, int err);
void refusal_host(const char *kind, const char *target, const char *why);
void refusals_report(void);

/* supervise.c */
extern sigset_t sig_orig;
extern sigset_t sig_wait; /* what the parent and pid 1 take synchronously */
void signals_block(void);
void supervise_signal(pid_t child, int sig);
int signals_fd(void);
void signals_take(pid_t child, int sfd);
/* No pid namespace around the target: the fallback's run (fallback.c sets
 * it), where the end of the run kills the target's group, not the
 * namespace. */
extern bool fallback_active;
noreturn void supervise_parent(pid_t child);
noreturn void supervise_init(const struct run *r);

/* mode.c */
void mode_choose(struct run *r, const char *name, const char *opt);
void mode_seal(const struct run *r);
const char *mode_outer(void);

/* extra.c */
void extra_map(const char *path, bool rw, const char *opt);
void extra_net(int network, const char *opt);
const char *extra_net_option(void);
bool extra_toggle(const char *name, const char *opt); /* false: not a toggle's NAME or no-NAME */
const char *extra_toggle_option(unsigned t);          /* the option that set it, or NULL */
const char *extra_option(const struct aj_mount *m);   /* NULL: not an AJ_MOUNT_MAP */
const struct aj_variant *extra_apply(const struct run *r);

/* resolve.c: the one rule for every mount source, and where no map may go. */
struct stat;
bool path_within(const char *a, const char *b);
/* Identities (device, inode): ident_chain() fills ids with the directory
 * dfd's and each one's above it up to the root (at most max; -1 and errno
 * when a step cannot be taken, or it is deeper), ident_chain_at() the
 * same for the directory at path, links followed.  A check "is X at or
 * below Y" is ident_in(chain of X, Y). */
struct ident {
	uint64_t dev, ino;
};
#define AJ_IDENT_DEPTH 512 /* directories from an object up to the root */
int ident_chain(int dfd, struct ident *ids, unsigned max);
int ident_chain_at(const char *path, struct ident *ids, unsigned max);
bool ident_in(const struct ident *ids, unsigned n, const struct stat *st);
void fd_path(char *buf, int fd);
int source_resolve(const char *path, bool follow, const char **why);
int source_open(const struct aj_mount *m, const char *path, const char **why);
const char *place_refused(const char *p, int fd);
const char *source_hides_project(int fd, const char *path);
unsigned host_layout(const char *path, char *target, size_t n);

/* proxy.c: 'network allow' (hosts.c reads the hosts). */
void proxy_allow_host(const char *value, const char *opt);
const struct aj_variant *proxy_apply(const struct aj_variant *v);
void proxy_hosts(const struct aj_variant *v, char *const *envp);
void proxy_env(const struct aj_variant *v, char **envp, size_t max);
void proxy_explain(void);
void proxy_listen(int parent_sock);
noreturn void proxy_run(pid_t child, int fd, const struct aj_variant *v);

/* nscause.c: why the namespaces cannot be had, and what lifts it. */
size_t str_put(char *buf, size_t at, const char *s); /* copies s at buf + at: the new end */
const char *ns_cause(int err);
const char *ns_remedy(const struct aj_variant *v, const char *cause);
const char *ns_mount_hint(int err, bool proc);
bool proc_covered(const char *proc);
const char *ns_blocked(const struct aj_variant *v, bool explain);

/* fallback.c: the jail without them that a policy may declare
 * (AJ_VARIANT_FALLBACK). */
const char *home_private(bool make);
void private_release(void);
/* private.c's, for fallback.c and record.c */
extern char private_dir[64], private_home[80], private_tmp[80], tmpdir_env[96];
extern const char *home_why;
void private_make(bool make);
/* record.c's */
void record_load(const struct run *r, bool make);
void record_save(void);
void record_explain(void);
const char *record_why(void);
void fallback_prepare(const struct aj_variant *v, bool make);
void fallback_env(char **envp, size_t max);
noreturn void fallback_run(struct run *r);
int fallback_explain(const struct run *r, const char *cause);
void fallback_explain_rules(const struct run *r);
unsigned fallback_fence(const struct run *r, const struct plan_entry **e);
void fallback_record(const struct run *r);
const char *fallback_refusal(void);
unsigned fallback_socket_filter(const struct aj_variant *v);

/* explain.c, and report.c: the writer it prints through, as text or as
 * JSON (report_json); rp_j* write JSON only, rp_t text only. */
noreturn void explain(const struct run *r);
extern bool report_json;
void rp_open(const char *key, char kind);
void rp_close(void);
void rp_reset(void);
void rp_str(const char *key, const char *s);
void rp_strn(const char *key, const char *s, size_t n);
void rp_jstr(const char *key, const char *s);
void rp_u(const char *key, unsigned long long v);
void rp_ju(const char *key, unsigned long long v);
void rp_bool(const char *key, bool b);
void rp_t(const char *s);
void rp_field(const char *name);
void explain_process(const struct run *r, unsigned fb_filter);
void explain_landlock_rules(const struct aj_variant *v);
void explain_rule(const char *path, unsigned var, bool optional, uint64_t access);

#endif
