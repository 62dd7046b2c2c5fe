/* variant.h: the third form, what replay.c resolves and emit.c writes: a
 * complete variant (command group x mode) and the parts a setting puts
 * into it (a mount, a pattern, a variable, an rlimit, a syscall rule),
 * which a change (changes.h) carries too.  Types only. */
#ifndef AJ_VARIANT_H
#define AJ_VARIANT_H

#include "aj_table.h"
#include "ast.h"
#include "vec.h"

#include <stdbool.h>
#include <stdint.h>

struct m_path {
	char *head;
	int var; /* enum aj_var */
	char *tail;
	char *text; /* as written after normalisation, e.g. "$HOME/.npm" */
};

struct m_mount {
	int op; /* enum aj_mount_op */
	int flags;
	int mode;
	unsigned landlock; /* AJ_LL_* rights beneath it (derive_landlock) */
	int toggle;        /* aj_mount.toggle: 1 + enum aj_toggle, 0 for none */
	struct m_path path;
	char *target;
	struct loc loc;
};

/* Mask, deny and prune patterns as written (kind: enum aj_pattern_kind). */
#define M_PAT_ANCHORED 0x01 /* had a '/': matched from the project root */
#define M_PAT_DIR      0x02 /* had a trailing '/' (always, for prune): directories only */
#define M_PAT_NOCASE   0x04 /* 'nocase': ASCII case is ignored */
#define M_PAT_GUARD    0x08 /* the mask of a 'scan guard' path */

struct m_pattern {
	int kind;
	int flags;
	char *glob; /* without the leading and trailing '/' */
	char *text; /* as written, for --jail-explain */
	struct loc loc;
};

/* The patterns compiled for the stub's walk (automaton.c): struct aj_scan with
 * the compiler's own vectors.  a holds a token program for AJ_NAME_GLOB. */
struct m_step {
	struct aj_step s;
	char *a, *b;
};

struct m_scan {
	VEC(struct m_step) floating;
	VEC(struct m_step) steps;
	VEC(uint8_t *) sets; /* 32 bytes each */
	VEC(char *) texts;
	VEC(char *) guards; /* 'scan guard' paths, relative */
	uint64_t start;
};

struct m_env_pattern {
	char *pattern;
	struct loc loc;
};

typedef VEC(struct m_env_pattern) m_env_list;

struct m_env_set {
	char *name;
	struct m_path value;
	struct loc loc;
};

struct m_rlimit {
	int resource;
	const char *name;
	uint64_t soft, hard;
	struct loc loc;
};

/* One libseccomp rule: every comparison must hold (AND). */
struct m_cmp {
	int arg;
	int op; /* enum scmp_compare */
	uint64_t mask, value;
};

#define M_ACT_KILL  (-1)
#define M_ACT_ALLOW (-2)

struct m_rule {
	int nr;
	const char *name;
	int action; /* errno value, or M_ACT_KILL */
	int n_cmp;
	struct m_cmp cmp[6];
	char *text; /* for --explain and diagnostics */
	struct loc loc;
};

typedef VEC(struct m_rule) m_rule_list;

struct m_filter {
	const char *role;
	VEC(struct aj_bpf_insn) insns;
};

/* The settings that take one number and are the field of struct
 * aj_variant of the same name, 0 when no block sets them.  A row is all
 * the compiler needs: the key (settings.c), the field of struct variant
 * below (the last block that sets it wins, replay.c) and its initialiser
 * in the header (emit.c).  A new one is this row, its field in
 * include/aj_table.h, and the stub that reads it.
 *
 *   X(key, field type, largest value, what follows the key, what it is) */
#define M_SCALARS(X) X(timeout, uint32_t, INT32_MAX, "SECONDS", "a number of seconds")

#define M_SCALAR_ENUM(key, ...) M_SCALAR_##key,
enum m_scalar { M_SCALARS(M_SCALAR_ENUM) M_SCALAR_COUNT };

/* 'forward [HOST:]PORT;' (aj_forward), and the block that said it: a
 * mode's 'network' keeps only its own block's. */
struct m_forward {
	uint16_t port;
	bool v6;
	struct loc loc;
	const void *block;
};

/* 'publish [ADDR:][HOSTPORT:]PORT;' (aj_publish), kept per block alike. */
struct m_publish {
	uint32_t addr;
	uint16_t host_port, port;
	struct loc loc;
	const void *block;
};

/* 'secret NAME "HOST[:PORT]"…;' (aj_key): the caller's NAME, a placeholder
 * in the jail, its value added on the way to the hosts (docs/keys.md);
 * kept per block as forwards are. */
struct m_key {
	const char *name;
	const char **hosts; /* normal: NAME:PORT */
	struct loc *host_locs;
	int n_hosts;
	/* 'secret NAME follow ["HOST"];': the followed tool's API host (HOST
	 * alone, when given), or the host its setting names instead; bound
	 * only when the caller has the variable. */
	bool follows;
	const char *follow_host;
	struct loc loc;
	const void *block;
};

struct variant {
	const char *mode;
	const char *command;
	const char *hostname;
	int network;
	const char **hosts; /* 'network allow' (aj_variant.hosts) */
	int n_hosts, n_followed, follow;
	struct loc network_loc; /* the statement that set the network */
	VEC(struct m_forward) forwards;
	VEC(struct m_publish) publishes;
	VEC(struct m_key) keys;
	int landlock;
	int landlock_min_abi;
	int features;
	int toggles_fixed;      /* aj_variant.toggles_fixed: set by a mode block */
	int flags;              /* AJ_VARIANT_* */
	unsigned long ns_allow; /* CLONE_NEW* the jail may make ('namespaces') */
	int userns;             /* aj_variant.userns */
#define M_SCALAR_FIELD(key, type, ...) type key;
	M_SCALARS(M_SCALAR_FIELD)
	uint64_t memory;    /* aj_variant.memory: bytes, AJ_MEMORY_PERCENT | percent, 0 none */
	uint32_t processes; /* tasks, 0 none */
	struct loc memory_loc, processes_loc; /* where they were set, for check_mode_order */
	int sys_default;                      /* M_ACT_ALLOW, M_ACT_KILL or an errno */
	VEC(struct m_mount) mounts;
	VEC(struct m_pattern) patterns;
	int scan_depth; /* path components the walk checks */
	int scan_bound; /* enum aj_scan_bound */
	struct m_scan scan;
	m_env_list env_keep;
	m_env_list env_drop; /* patterns never passed, whatever keeps them */
	VEC(struct m_env_set) env_set;
	VEC(struct m_rlimit) rlimits;
	VEC(struct m_rule) rules;
	VEC(struct aj_landlock_rule) landlock_rules; /* rules that are not a mount's */
	VEC(struct m_path) landlock_paths;
	VEC(struct m_filter) filters;
	/* aj_variant.refused: the calls the first filter refuses with a
	 * reported errno, by number (bpf.c). */
	VEC(int) refused;
};

/* The variable that names a mode: set in the jail, read by a stub
 * (aj_policy.mode_env). */
#define M_MODE_ENV "AIJAIL_MODE"

#endif
