/* fallback/fallback.h: the interface of the room fallback/: the jail without namespaces: its
 * Landlock rules and filter, its private directory, its record of secrets, its --jail-explain
 * section. Included by its files and by the rooms above it (docs/layout.md). */
#ifndef AJ_STUB_FALLBACK_H
#define AJ_STUB_FALLBACK_H

#include "base/base.h"
#include "variant/variant.h"
#include "scan/scan.h"
#include "confine/confine.h"
#include "root/root.h"
#include "term/term.h"

/* fallback.c: the jail without them that a policy may declare
 * (AJ_VARIANT_FALLBACK). */
const char *private_home_path(bool make);
void private_release(void);
/* private.c's, for fallback.c and record.c */
extern char private_dir[64], private_home[80], private_tmp[80], private_tmpdir_env[96];
extern const char *private_home_why;
void private_make(bool make);
/* record.c's */
void record_load(const struct run *r, bool make);
void record_save(void);
void record_explain(void);
const char *record_why(void);
void fallback_prepare(const struct aj_variant *v, bool make);
void fallback_env(char **envp, size_t max);
void fallback_landlock(const struct run *r);
void fallback_unix_only(const struct aj_variant *v);
int fallback_explain(const struct run *r, const char *cause);
void fallback_explain_rules(const struct run *r);
unsigned fallback_fence(const struct run *r, const struct plan_entry **e);
void record_read(const struct run *r);
const char *record_refusal(const struct run *r);
unsigned fallback_socket_filter(const struct run *r);

#endif
