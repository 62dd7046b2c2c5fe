/* variant/variant.h: the interface of the room variant/: the caller before any namespace: the mode,
 * the maps and toggles of the command line, the variables, the environment, resolving sources, why
 * namespaces cannot be had. Included by its files and by the rooms above it (docs/layout.md). */
#ifndef AJ_STUB_VARIANT_H
#define AJ_STUB_VARIANT_H

#include "base/base.h"
#include "aj_owndir.h"

/* vars.c: runtime variables.  vars_value() is NULL when the variable cannot
 * be resolved; vars_why() then says why, for a hint. */
#define AJ_PATH_UNRESOLVED (-1)
#define AJ_PATH_TOOLONG    (-2)
void vars_init(void);
void vars_set(unsigned var, const char *value);
const char *vars_value(unsigned var);
const char *vars_name(unsigned var);
const char *vars_why(unsigned var);
const char *vars_path_normal(const char *in, char *buf, size_t n);
int vars_path_join(const struct aj_path *p, char *out, size_t n);

/* env.c */
int env_build(char *const *host, const struct aj_variant *v, char **envp, size_t max, char *buf,
              size_t bufsz);
const char *env_get(char *const *envp, const char *name);
/* Does the span count in the variant's keep (drop: its drop) list, with
 * the toggles as the run has them? */
bool env_span_counts(const struct aj_env_span *s, const struct aj_variant *v, bool drop);

/* mode.c */
void mode_choose(struct run *r, const char *name, const char *opt);
void mode_seal(const struct run *r);
const char *mode_outer(void);

/* extra.c */
void extra_map(const char *path, bool rw, const char *opt);
void extra_net(int network, const char *opt);
void extra_net_max(int network); /* the network at most this level */
void extra_timeout(const char *seconds, const char *opt);
const char *extra_net_option(void);
bool extra_toggle(const char *name, const char *opt); /* false: not a toggle's NAME or no-NAME */
const char *extra_toggle_option(unsigned t);          /* the option that set it, or NULL */
const char *extra_option(const struct aj_mount *m);   /* NULL: not an AJ_MOUNT_MAP */
const struct aj_variant *extra_apply(const struct run *r);

/* resolve.c: the one rule for every mount source, and where no map may go. */
struct stat;
bool resolve_within(const char *a, const char *b);
/* Identities (device, inode): resolve_ident_chain() fills ids with the directory
 * dfd's and each one's above it up to the root (at most max; -1 and errno
 * when a step cannot be taken, or it is deeper), resolve_ident_chain_at() the
 * same for the directory at path, links followed.  A check "is X at or
 * below Y" is resolve_ident_in(chain of X, Y). */
struct ident {
	uint64_t dev, ino;
};
#define AJ_IDENT_DEPTH 512 /* directories from an object up to the root */
int resolve_ident_chain(int dfd, struct ident *ids, unsigned max);
int resolve_ident_chain_at(const char *path, struct ident *ids, unsigned max);
bool resolve_ident_in(const struct ident *ids, unsigned n, const struct stat *st);
void resolve_fd_path(char *buf, int fd);
int resolve_source(const char *path, bool follow, const char **why);
int resolve_source_open(const struct aj_mount *m, const char *path, const char **why);
const char *resolve_place_refused(const char *p, int fd);
const char *resolve_hides_project(int fd, const char *path);
unsigned resolve_host_layout(const char *path, char *target, size_t n);

/* nscause.c: why the namespaces cannot be had, and what lifts it. */
const char *nscause_why(int err);
const char *nscause_remedy(const struct aj_variant *v, const char *cause);
const char *nscause_mount_hint(int err, bool proc);
bool nscause_proc_covered(const char *proc);
const char *nscause_blocked(const struct aj_variant *v, bool explain);

/* own.c: the caller's own directory (the watcher's sockets, the
 * fallback's record), in the one order of include/aj_owndir.h (OWN_DIRS,
 * OWN_NONE, OWN_UNUSABLE there).  own_dir: candidate k; own_watch: the
 * watchers' directory, the first candidate that applies (its run/ under
 * a cache). */
int own_dir(unsigned k, bool make, char *path, size_t size, bool *absent);
int own_watch(bool make, char *path, size_t size, bool *absent, unsigned *k);
bool own_is(int fd, unsigned forbid);

/* xauth.c: the file at descriptor pfd is in the Xauthority format. */
bool xauth_is(int pfd);

#endif
