/* variant.h: the compiler's shared types: policies as loaded, the changes
 * each block lowers to, and the complete variants (command group x mode)
 * that are emitted.  Types only: every stage's functions are in its own
 * header. */
#ifndef AJ_TYPES_H
#define AJ_TYPES_H

#include "aj_table.h"
#include "ast.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#define VEC(type)                                                                                  \
	struct {                                                                                   \
		type *v;                                                                           \
		size_t n, cap;                                                                     \
	}

#define VEC_PUSH(vec, item)                                                                        \
	do {                                                                                       \
		if ((vec).n == (vec).cap) {                                                        \
			size_t cap_ = (vec).cap ? (vec).cap * 2 : 8;                               \
			void *nv_ = xalloc(cap_ * sizeof(*(vec).v));                               \
			if ((vec).n)                                                               \
				memcpy(nv_, (vec).v, (vec).n * sizeof(*(vec).v));                  \
			(vec).v = nv_;                                                             \
			(vec).cap = cap_;                                                          \
		}                                                                                  \
		(vec).v[(vec).n++] = (item);                                                       \
	} while (0)

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

struct variant {
	const char *mode;
	const char *command;
	const char *hostname;
	int network;
	const char **hosts; /* 'network allow' (aj_variant.hosts) */
	int n_hosts, n_followed, follow;
	struct loc network_loc; /* the statement that set the network */
	int landlock;
	int landlock_min_abi;
	int features;
	int toggles_fixed; /* aj_variant.toggles_fixed: set by a mode block */
	int flags; /* AJ_VARIANT_* */
	unsigned long ns_allow; /* CLONE_NEW* the jail may make ('namespaces') */
	int userns;             /* aj_variant.userns */
	uint32_t timeout;
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

struct policy {
	char *name;
	struct loc loc;
	const struct stmt *stmt; /* the 'policy' statement */
	char *parent_name;
	struct loc parent_loc;
	struct policy *parent;
	int state; /* cycle detection: 0 new, 1 visiting, 2 done */
	struct policy *next;
};

/* A file read into the program, and where its includes are looked for
 * first: beside it, beneath the folder it was found in. */
struct loaded_file {
	const struct src *src;
	bool has_id; /* false for a text given in memory */
	dev_t dev;
	ino_t ino;
	const char *base; /* the folder searched: the main file's, or an -I one ("" = .) */
	const char *dir;  /* the file's own folder below base ("" = base) */
};

struct program {
	struct policy *policies;
	const char **include_dirs;
	size_t n_include_dirs;
	VEC(struct loaded_file) files; /* for include-once, by device and inode */
	struct policy *last_in_main;
};

struct command_group {
	const char *name;           /* the first command name */
	const struct stmt *overlay; /* statements applied over the policy */
	const struct policy *from;  /* "use POLICY": its mode blocks apply too */
};

struct compiled {
	const struct policy *policy;
	const char *exec;
	VEC(const char *) modes;   /* weakest first (check_mode_order) */
	VEC(struct loc) mode_locs; /* where each was first declared (normal: none) */
	int default_mode;
	VEC(struct aj_trigger) triggers;
	VEC(struct aj_command) commands;
	VEC(struct command_group) groups; /* [0] is the default */
	VEC(struct variant) variants;     /* [group * n_modes + mode] */
};

/* ---- a block, lowered (settings.c): the changes it makes, in order ------- */

enum change_kind {
	CH_MOUNT,            /* .mount: replaces the mount of the same path */
	CH_PATTERN,          /* .pattern: mask, deny, prune or guard, given once */
	CH_PRUNE_NONE,       /* takes back the prune patterns given before */
	CH_SCAN_DEPTH,       /* .scan */
	CH_ENV_KEEP,         /* .env: kept, given once */
	CH_ENV_DROP,         /* .env: dropped, given once */
	CH_ENV_SET,          /* .env_set: replaces the value of the same name */
	CH_RLIMIT,           /* .rlimit: replaces the same resource */
	CH_MEMORY,           /* .limit */
	CH_PROCESSES,        /* .limit */
	CH_HOSTNAME,         /* .hostname */
	CH_NETWORK,          /* .network */
	CH_LANDLOCK,         /* .landlock */
	CH_TIMEOUT,          /* .number */
	CH_TOGGLE,           /* .toggle */
	CH_SYSCALLS_DEFAULT, /* .action */
	CH_RULES,            /* .rules: the syscall rules of one target */
	CH_NAMESPACES,       /* .ns */
	CH_FALLBACK,         /* .number: 1 for 'fallback landlock' */
};

/* The kinds of namespace 'namespaces' names, by their clone flag. */
#define NS_KINDS(X)                                                                                \
	X(CLONE_NEWUSER, "user")                                                                   \
	X(CLONE_NEWPID, "pid")                                                                     \
	X(CLONE_NEWNET, "net")                                                                     \
	X(CLONE_NEWNS, "mount")                                                                    \
	X(CLONE_NEWIPC, "ipc")                                                                     \
	X(CLONE_NEWUTS, "uts")                                                                     \
	X(CLONE_NEWCGROUP, "cgroup")                                                               \
	X(CLONE_NEWTIME, "time")

struct change {
	enum change_kind kind;
	struct loc loc; /* what a second one in the same block is told about */
	union {
		struct m_mount mount;
		struct m_pattern pattern;
		struct m_env_pattern env;
		struct m_env_set env_set;
		struct m_rlimit rlimit;
		m_rule_list rules;
		const char *hostname;
		uint64_t number;
		int action;
		struct {
			uint64_t value;
			struct loc stmt; /* the whole statement, for check_mode_order's note */
		} limit;
		struct {
			int depth, bound;
		} scan;
		struct {
			int level;
			bool fixed; /* a mode said it: --net cannot widen it */
			/* 'network allow': normal hosts, the followed tool's first */
			const char **hosts;
			int n_hosts, n_followed, follow; /* follow: enum aj_follow */
		} network;
		struct {
			int level, min_abi;
		} landlock;
		struct {
			int toggle;
			bool on;
			bool fixed; /* a mode said it: the run cannot turn it on */
		} toggle;
		struct {
			unsigned long allow; /* CLONE_NEW* */
			int max;             /* user namespaces below the jail's */
		} ns;
	};
};

typedef VEC(struct change) change_list;

enum block_kind { BLOCK_POLICY, BLOCK_MODE, BLOCK_COMMAND };

/* One block being lowered: what a key's handler reads and appends to. */
struct lowering {
	enum block_kind kind;
	const struct stmt *first; /* the block's statements: what it may say once */
	change_list *out;
	int arg;   /* the key's: a mount op, a pattern kind, a toggle */
	int flags; /* a mount key's suffix: AJ_MOUNT_OPTIONAL, AJ_MOUNT_CREATE */
	/* The keys of a block, to tell a missing ';' from a bad path. */
	const char *const *keys;
	size_t n_keys;
};

typedef bool lower_fn(struct lowering *lw, const struct stmt *s);

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The variable that names a mode: set in the jail, read by a stub
 * (aj_policy.mode_env). */
#define M_MODE_ENV "AIJAIL_MODE"

#endif
