/* changes.h: the second form, what a block is lowered into (settings.c
 * and the handlers of its keys): the changes it makes to a variant, in
 * order, which replay.c replays into every variant the block is part of.
 * Types only. */
#ifndef AJ_CHANGES_H
#define AJ_CHANGES_H

#include "ast.h"
#include "variant.h"
#include "vec.h"

#include <stdbool.h>
#include <stdint.h>

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
	CH_FORWARD,          /* .forward: a port of the host's loopback, given once */
	CH_PUBLISH,          /* .publish: a port of the jail's on the host, given once */
	CH_KEY,              /* .key: replaces the key of the same name */
	CH_LANDLOCK,         /* .landlock */
	CH_SCALAR,           /* .scalar: one of M_SCALARS */
	CH_TOGGLE,           /* .toggle */
	CH_SYSCALLS_DEFAULT, /* .action */
	CH_RULES,            /* .rules: the syscall rules of one target */
	CH_NAMESPACES,       /* .ns */
	CH_FALLBACK,         /* .number: 1 for 'fallback landlock' */
};

struct change {
	enum change_kind kind;
	struct loc loc; /* what a second one in the same block is told about */
	union {
		struct m_mount mount;
		struct m_pattern pattern;
		struct m_env_pattern env;
		struct m_env_set env_set;
		struct m_rlimit rlimit;
		struct m_key key;
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
			enum m_scalar which;
			uint64_t value;
		} scalar;
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
			uint16_t port;
			bool v6;
		} forward;
		struct {
			uint32_t addr; /* IPv4, network order */
			uint16_t host_port, port;
		} publish;
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

#endif
