/* root/root.h: the interface of the room root/: the new root: the mount plan, the paths it makes,
 * /dev, the covers and the fence behind them, the host's sockets beneath binds, the refusal log
 * kept out of every writable mount. Included by its files and by the rooms above it
 * (docs/layout.md). */
#ifndef AJ_STUB_ROOT_H
#define AJ_STUB_ROOT_H

#include "base/base.h"
#include "variant/variant.h"
#include "scan/scan.h"
#include "confine/confine.h"

/* plan.c */
struct plan_entry {
	const struct aj_mount *m;
	const char *path; /* resolved, in plan_arena; NULL: an optional entry's variable is unset */
	uint16_t rank;    /* its order (aj_table.h), completed; UINT16_MAX: unresolved */
	uint8_t missing;  /* optional, and its source is absent on this host */
	uint8_t isdir;    /* RO/RW: the source is a directory */
	int fd;           /* RO/RW: the cloned source tree (open until privs_fds_close) */
	const char *why;  /* RO/RW: why the source was refused (skipped when optional) */
};
extern struct plan_entry plan[AJ_PLAN_MAX];
extern unsigned plan_n;
struct plan_entry *plan_entries(unsigned *n); /* the same, for the rooms above */
bool plan_scratch_dir(unsigned i); /* entry i (AJ_OP_ROOT_DIR) is a directory of the root */
void plan_resolve(const struct aj_variant *v);
int plan_source_open(const struct aj_mount *m, const char *path, const char **why);
bool plan_has_devices(void);
/* What plan_make leaves for the rest of the build (build.c): the covers'
 * stage (-1: none; stage_under, the mount that hides it), and whether the
 * root is remounted read-only at the end (no Landlock). */
struct plan_made {
	int stage_fd;
	const char *stage_under;
	bool root_ro;
};
void plan_make(struct plan_made *made);
void plan_landlock(int ruleset, const struct plan_entry *skip);
void plan_log_check(void);
int plan_open_inside(const char *path, unsigned before);

/* dev.c */
extern const char *const dev_nodes[];
const char *const *dev_names(void); /* the same, NULL-ended, for the rooms above */
void dev_build(const char *path, bool as_dir);
unsigned dev_match(const char *prefix, const char *path, bool bind);

/* mask.c: the covers. */
void mask_apply(const char *project, const struct aj_variant *v, const struct plan_made *made);
bool mask_appearing(const struct aj_variant *v); /* appear.c's covers wanted */
void mask_tell_unchecked(void);                  /* one line on stderr: what was denied unchecked */
/* The stage kept for appear.c by mask_apply, adopted by the watching
 * process; mask_cover_new() returns move_mount's errno. */
bool mask_stage_kept(void);
void mask_stage_adopt(void);
void mask_stage_fds(int fds[2]);
int mask_cover_new(int tfd, bool deny, bool isdir, unsigned mode);

/* maskdir.c: a directory full of hits, one cover for all of them
 * (mask_apply's): which hits it covers, and --jail-explain's word. */
void maskdir_group(void);
bool maskdir_holds(unsigned hit);
void maskdir_cover(int project_fd);
const char *maskdir_note(unsigned hit); /* NULL, "stand-in" or "absent" */

/* appear.c: names that appear in the project during the run, covered by
 * a process pid 1 forks before it confines itself.  appear_prepare() in
 * the parent before pid 1 is cloned (the inotify instance, which pid 1
 * inherits); appear_start(), by pid 1 once its root is built (main.c), returns the
 * process (0: none, a warning said why); appear_end() in the parent just
 * before it exits; appear_explain() for
 * --jail-explain. */
void appear_prepare(const struct aj_variant *v);
bool appear_wanted(const struct aj_variant *v);
pid_t appear_start(const struct aj_variant *v);
void appear_end(void);
void appear_explain(const struct aj_variant *v, bool fallback);

/* cage.c: the bounds of appear.c's covering process: how many directories
 * it may watch (at most most), its capabilities, its descriptors (all but
 * stderr and keep[]) and its system calls. */
unsigned cage_budget(bool raise, unsigned most);
void cage_caps(void);
void cage_fds(int *keep, unsigned n);
void cage_filter(void);

/* fence.c: Landlock behind the covers.  fence_plan() says which plan
 * entry the fence replaces the rule of, or why there is none (where: the
 * mount that reaches it, or NULL); fence_count() how many rules it takes;
 * fence_apply() adds them, then every mount's own (plan_landlock), and
 * returns the entry it replaced (NULL: none). */
const struct plan_entry *fence_plan(const struct aj_variant *v, const char **why,
                                    const char **where);
unsigned fence_count(const struct plan_entry *e);
const struct plan_entry *fence_apply(int ruleset, const struct aj_variant *v);
unsigned fence_project(int ruleset, const struct plan_entry *e);

/* fs.c: the paths of the new root (plan.c, dev.c, mask.c). */
void fs_mkdir_p(const char *path);
void fs_mkfile_p(const char *path);
void fs_link(const char *path, const char *target);

/* sockets.c: the host's named sockets beneath the binds (sockets_covered:
 * covered by pid 1; sockets_by_landlock: Landlock's resolve_unix). */
bool sockets_by_landlock(const struct aj_variant *v);
bool sockets_covered(const struct aj_variant *v);
void sockets_prepare(const struct aj_variant *v); /* the caller, before the fork */
void sockets_send(void);                          /* the parent */
int sockets_next(char *what, size_t size);        /* pid 1, from mask_apply */
void sockets_explain(const struct aj_variant *v, bool fallback);

extern int reflog_fd;        /* reflog.c: --jail-log's file, -1: none */
int reflog_descriptor(void); /* the same, for notify/ */
void reflog_open(const char *path, const char *opt);
bool reflog_named(void);
void reflog_guard(int fd, const char *path);

/* trust.c: pid 1, after plan_make(): with pem (the run's authority,
 * egress/secret.c), the jail's bundles covered by the system's plus it. */
void trust_mount(const char *pem);

/* build.c: pid 1's one way through the root (main.c's init_run), and the
 * scan's hand-over it receives on the way.  sock: pid 1's end of the
 * socket to the parent; tail, len: where the bytes that follow the scan
 * go (proc/'s bounds); fds, max_fds: the descriptors that come with them
 * (n_fds, how many came); pem: the run's authority (egress/secret.c) or
 * NULL; appear: the covering process (appear.c), 0 for none. */
struct build_hand {
	int sock;
	void *tail;
	size_t len;
	int *fds;
	unsigned max_fds, n_fds;
	const char *pem;
};
void build_root(const struct run *r, struct build_hand *h);
unsigned build_receive(int sock, void *tail, size_t len, int *fds, unsigned max_fds);

#endif
