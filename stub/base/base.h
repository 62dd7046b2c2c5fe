/* base/base.h: the interface of the room base/: the syscall layer: output and the report writer,
 * die(), globs, descriptors passed, the kernel calls musl has no wrapper for, and the run every
 * room reads. Included by its files and by the rooms above it (docs/layout.md). */
#ifndef AJ_STUB_BASE_H
#define AJ_STUB_BASE_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>
#include <linux/mount.h>
#include <linux/openat2.h>

#include "aj_table.h"

/* The policy this binary was built for (stub/policy.c). */
extern const struct aj_policy *const aj_the_policy;

/* Fixed capacities besides the contract's (aj_table.h: AJ_MAX_MOUNTS,
 * AJ_MAX_EXTRA, AJ_ENV_MAX, AJ_SCAN_MAX).  Running out of any of them fails
 * closed (exit 125). */
#define AJ_PLAN_MAX   (AJ_MAX_MOUNTS + AJ_MAX_EXTRA) /* entries of a run's plan */
#define AJ_PLAN_ARENA 16384                          /* resolved mount paths */
#define AJ_SCAN_ARENA (1 << 20)                      /* their paths, relative to the project */
#define AJ_SCAN_LINKS 1024                           /* matched files that have other hard links */
#define AJ_ENV_ARENA  8192                           /* NAME=value strings the stub writes */

/* Exit codes, as env(1) and timeout(1) use them. */
#define AJ_EXIT_TIMEOUT  124
#define AJ_EXIT_SETUP    125
#define AJ_EXIT_CANNOT   126
#define AJ_EXIT_NOTFOUND 127

/* The name of this stub in its messages, as the compiler wrote it. */
#define aj_progname (aj_the_policy->progname)

/* die.c: the one way to fail before the target runs. */
extern int die_reap;
extern void (*die_undo)(void);
extern void (*die_cleanup)(void); /* removes the run's private directory (fallback.c) */
extern void (*die_term)(void);    /* first: the caller's terminal back as it was (term/term.c) */
/* last: the run's record of its end, or what the parent is told (proc/status.c) */
extern void (*die_status)(const char *step, const char *what, int err, const char *hint);
noreturn void die(const char *step, int err, const char *hint);
noreturn void diep(const char *step, const char *what, int err, const char *hint);
noreturn void die_usage(const char *what, const char *arg);

/* trace.c: the launch's own timing by step (issue 38).  Compiled out
 * unless AJ_TRACE is defined (make TRACE=1 builds into build-trace/): the
 * shipped stubs carry none of it.  Each process keeps its marks in a static
 * buffer (no allocation, no syscall but the clock's) and writes them to
 * stderr once, where its start-up ends, so that the writing does not fall
 * between two marks: the parent before its loop, pid 1 before it starts
 * the target, the target just before execve.  One line per mark:
 * "ajtrace\tWHO\tSTEP\tNS_SINCE_PREVIOUS\tCLOCK_MONOTONIC_NS". */
#ifdef AJ_TRACE
void trace_mark(const char *step);
void trace_who(const char *who); /* in a new process: its own marks from here */
void trace_flush(void);
#define TRACE_MARK(step) trace_mark(step)
#define TRACE_WHO(who)   trace_who(who)
#define TRACE_FLUSH()    trace_flush()
#else
#define TRACE_MARK(step) ((void)0)
#define TRACE_WHO(who)   ((void)0)
#define TRACE_FLUSH()    ((void)0)

#endif

/* out.c: a small buffered writer instead of stdio. */
void out_fd(int fd);
void out_s(const char *s);
void out_c(char c);
void out_u(unsigned long long u);
#define AJ_DEC_MAX 21 /* the digits of any unsigned long long, and a NUL */
size_t out_fmt_u(char *buf, unsigned long long u);
/* Up to size bytes of fd, to its end: how many (the one read loop). */
size_t out_read(int fd, char *buf, size_t size);
void out_o(unsigned u);
void out_flush(void);

/* glob.c: '*', '?', '[…]', '**' for the environment allowlist and device
 * names (mask, deny and prune patterns arrive compiled: match.c). */
bool glob_match(const char *pattern, const char *s);

/* The run, as main.c decides it. */
struct run {
	const struct aj_policy *pol;
	const struct aj_variant *v;
	unsigned mode;
	unsigned group;
	const char *why;     /* how the mode was chosen */
	const char *why_arg; /* the option or variable that chose it */
	const char *outer;   /* the mode of the jail this runs in, NULL outside any */
	unsigned floor;      /* the weakest mode it may use (stub/variant/mode.c) */
	char **argv;         /* the target's argv; argv[0] is searched in PATH */
	const char *project;
	char **envp;
	const char *fallback; /* why the namespaces cannot be had, when the fallback runs */
};

/* A source of the parent's one loop (proc/supervise.c: supervise_parent()):
 * fill() puts the descriptors it waits on now, with their events, in p (at
 * most max) and says how many; serve() gets them back, revents set. */
struct pollfd;
struct ev_source {
	unsigned (*fill)(struct pollfd *p, unsigned max);
	void (*serve)(const struct pollfd *p, unsigned n);
};
#define LOOP_SOURCES 6 /* refusals, the proxy, its names, the forwards, the keys, the terminal */

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

/* wire.c: the parent and pid 1's messages, in their order (wire.c has
 * the list).  wire_send() sends tag m, the iov and up to 8 fds as one
 * message; wire_recv() takes message m's first len bytes into buf, all of
 * them, and up to max fds: how many, or -1 (not m, or the sender gone). */
enum wire_msg { WIRE_SCAN = 1, WIRE_PROXY, WIRE_NAMES, WIRE_FORWARD, WIRE_NOTIFY, WIRE_NET };
#define WIRE_IOVS 4
struct iovec;
bool wire_send(int sock, enum wire_msg m, const struct iovec *iov, unsigned n, const int *fds,
               unsigned n_fds);
int wire_recv(int sock, enum wire_msg m, void *buf, size_t len, int *fds, unsigned max);
bool wire_read(int sock, void *buf, size_t n); /* the rest of a long message */

/* run.c: the fallback runs (no namespaces: fallback/fallback.c), one fact
 * of struct run: the namespaces cannot be had (r->fallback) and the
 * variant declares a fallback.  The supervisor ends the target's group,
 * not a namespace, and the reports and explain word things otherwise. */
bool run_in_fallback(const struct run *r);

/* out.c too: copies s at buf + at; the new end. */
size_t out_str_put(char *buf, size_t at, const char *s);

/* rp.c: the writer --jail-explain and the refusal log print through, as
 * text or as JSON (rp_json); rp_j* write JSON only, rp_t text only. */
extern bool rp_json;
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

#endif
