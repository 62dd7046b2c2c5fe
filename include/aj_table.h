/* aj_table.h: the one contract between aijail-compile and the stub.
 *
 * The compiler includes this header to write initialisers into
 * build/gen/<policy>.h; the stub includes it to read them.  Every decision
 * that can be made ahead of time (inheritance, mode overlays, ordering of
 * rules, Landlock rights, syscall numbers, BPF) is already made in these
 * tables: the stub only substitutes runtime variables and walks them.
 *
 * Bump AJ_ABI on any layout change: a generated header records the ABI it
 * was written for and the stub refuses to build against another. */
#ifndef AJ_TABLE_H
#define AJ_TABLE_H

#include <stdint.h>

#define AJ_ABI 23

/* The enumerations are lists, each written once here: the enum, the names
 * a policy and --jail-explain use, and the identifiers the compiler
 * emits all come from the same line.  X(ID, NAME, ...) for each entry;
 * a list may say more of each after the name (the toggles). */
#define AJ_ENUM_ITEM(id, name, ...)  id,
#define AJ_NAME_ITEM(id, name, ...)  [id] = name,
#define AJ_IDENT_ITEM(id, name, ...) [id] = #id,
#define AJ_WORD_ITEM(id, name, ...)  " " name /* the names in one string literal */

/* Runtime variables, resolved once by the stub before anything is mounted.
 * A variable that cannot be resolved (unset, or not a Unix socket for
 * DOCKER_SOCKET) makes every entry that uses it absent: optional entries
 * are skipped, required ones fail closed.
 *   HOME            $HOME, never "/"
 *   PROJECT         the working directory at launch
 *   UID             decimal real uid of the caller
 *   XDG_RUNTIME_DIR $XDG_RUNTIME_DIR
 *   DOCKER_SOCKET   path of unix://… in $DOCKER_HOST, else /var/run/docker.sock
 *   X11_SOCKET      /tmp/.X11-unix/X<n> for a local $DISPLAY
 *   WAYLAND_SOCKET  $XDG_RUNTIME_DIR/$WAYLAND_DISPLAY (or an absolute $WAYLAND_DISPLAY)
 *   XAUTHORITY      $XAUTHORITY */
#define AJ_VARS(X)                                                                                 \
	X(AJ_VAR_NONE, "")                                                                         \
	X(AJ_VAR_HOME, "HOME")                                                                     \
	X(AJ_VAR_PROJECT, "PROJECT")                                                               \
	X(AJ_VAR_UID, "UID")                                                                       \
	X(AJ_VAR_XDG_RUNTIME_DIR, "XDG_RUNTIME_DIR")                                               \
	X(AJ_VAR_DOCKER_SOCKET, "DOCKER_SOCKET")                                                   \
	X(AJ_VAR_X11_SOCKET, "X11_SOCKET")                                                         \
	X(AJ_VAR_WAYLAND_SOCKET, "WAYLAND_SOCKET")                                                 \
	X(AJ_VAR_XAUTHORITY, "XAUTHORITY")

enum aj_var { AJ_VARS(AJ_ENUM_ITEM) AJ_VAR_COUNT };

/* The variables' names as a policy writes them ($HOME …). */
#define AJ_VAR_NAMES {AJ_VARS(AJ_NAME_ITEM)}

/* A path known only at run time: head, then the variable's value, then
 * tail.  With AJ_VAR_NONE, only head is used.  The compiler guarantees the
 * concatenation is absolute, normalised (no "." or ".." components, no
 * double or trailing slash) and shorter than AJ_PATH_MAX. */
struct aj_path {
	const char *head;
	uint8_t var;
	const char *tail;
};

#define AJ_PATH_MAX 4096

/* Capacities of the stub, fixed at build time.  Running out of any fails
 * closed (exit 125); the compiler refuses a policy whose tables exceed
 * what it can count (AJ_MAX_MOUNTS), the others depend on the host. */
#define AJ_MAX_MOUNTS 256 /* mount table entries of one variant, as compiled */
#define AJ_MAX_EXTRA  16  /* --ro and --rw maps a run adds to them */
#define AJ_ENV_MAX    256 /* variables passed to the target */
#define AJ_SCAN_MAX   16384 /* masked or denied entries in one project */

/* Mount plan operations, interpreted by the stub in the order of one rule:
 * by rank, and in table order between equal ranks, where an entry's rank
 * is twice the number of components of its resolved path, plus one when
 * the path starts with a variable.  So a destination is never mounted
 * before its parent, and a fixed path comes before a variable one of the
 * same depth.  The compiler writes the rank as far as it knows it
 * (aj_mount.rank: a fixed path's whole rank; for a path with a variable,
 * only the one when it starts with it) and each span in that order; the
 * stub adds twice the components of a path with a variable once it is
 * resolved, and of its own --ro and --rw maps, and sorts.  Only it can
 * sort: a variant's table is the concatenation of its spans, which are
 * shared with other variants. */
/*   RO       bind the same host path, recursively read-only
 *   RW       bind the same host path read-write
 *   TMPFS    a fresh, empty tmpfs mount (mode from .mode)
 *   SCRATCH  a fresh, empty, writable directory (mode from .mode) of the new
 *            root: where Landlock is enforced, a directory of the root's
 *            own tmpfs (a superblock less to make and tear down; Landlock
 *            confines writes beneath it, as a read-only root would), else
 *            a tmpfs of its own.  Also a tmpfs of its own when, at run
 *            time, the path is below a bind, /dev or /proc of the plan
 *            ($HOME below /opt): nothing is ever made in a host's tree
 *   LINK     a symbolic link at path pointing at .target
 *   DEV      a minimal /dev: null zero full random urandom tty, pts, shm, fd
 *            links, in a directory made as SCRATCH makes one
 *   PROC     a fresh procfs of the new pid namespace
 *   DEVICE   bind device nodes: the last component of path may be a glob
 * A policy's tmpfs is SCRATCH unless its path is below another bind, /dev
 * or /proc of the variant (compiler/emit.c).  The names are
 * --jail-explain's, and the policy's words for the ops a policy writes (it
 * spells ro and rw with ? and +; SCRATCH and DEVICE it never writes).
 *
 * X(ID, NAME, MAKE, IS): what each op makes (enum aj_mount_make), and what
 * it is (AJ_OP_*), which is all the plan (stub/root/plan.c), the
 * fallback and --jail-explain ask of an op: they dispatch on MAKE and test
 * IS, never name an op, so that a new op is one line here when it makes
 * what another makes, and a new MAKE a case where the switches say. */
#define AJ_MOUNT_OPS(X)                                                                            \
	X(AJ_MOUNT_RO, "ro", AJ_MAKE_BIND, AJ_OP_TREE)                                             \
	X(AJ_MOUNT_RW, "rw", AJ_MAKE_BIND, AJ_OP_TREE | AJ_OP_WRITES)                              \
	X(AJ_MOUNT_TMPFS, "tmpfs", AJ_MAKE_TMPFS, 0)                                               \
	X(AJ_MOUNT_SCRATCH, "scratch", AJ_MAKE_TMPFS, AJ_OP_ROOT_DIR)                              \
	X(AJ_MOUNT_LINK, "link", AJ_MAKE_LINK, 0)                                                  \
	X(AJ_MOUNT_DEV, "dev", AJ_MAKE_DEV, AJ_OP_TREE | AJ_OP_ROOT_DIR)                           \
	X(AJ_MOUNT_PROC, "proc", AJ_MAKE_PROC, AJ_OP_TREE)                                         \
	X(AJ_MOUNT_DEVICE, "device", AJ_MAKE_NODES, 0)

enum aj_mount_op { AJ_MOUNT_NONE = 0, AJ_MOUNT_OPS(AJ_ENUM_ITEM) AJ_MOUNT_OP_COUNT };

/* What an op makes at its path.  Without namespaces (the fallback) nothing
 * is mounted, and only what is the host's gets a Landlock rule: a bind's
 * source, the host's nodes that DEV names, the host's /proc. */
enum aj_mount_make {
	AJ_MAKE_NONE = 0, /* no op: the table is another stub's */
	AJ_MAKE_BIND,     /* the host path, bound: its Landlock rule goes on the bind itself */
	AJ_MAKE_TMPFS,    /* a fresh, empty tmpfs (or a directory of the root: AJ_OP_ROOT_DIR) */
	AJ_MAKE_LINK,     /* a symbolic link */
	AJ_MAKE_DEV,      /* a minimal /dev */
	AJ_MAKE_PROC,     /* a procfs */
	AJ_MAKE_NODES,    /* the host's device nodes, bound, under DEV's rule */
};

#define AJ_OP_WRITES   0x01 /* a bind the jail writes the host's tree through (else read-only) */
#define AJ_OP_TREE     0x02 /* a tree not of the root's tmpfs: a tmpfs below it is one of its own */
#define AJ_OP_ROOT_DIR 0x04 /* a directory of the root's tmpfs where Landlock confines it */

struct aj_mount_op_info {
	const char *name;
	uint8_t make; /* enum aj_mount_make */
	uint8_t is;   /* AJ_OP_* */
};

/* [op]: defined once in each program (AJ_TABLE_DEFINE below). */
extern const struct aj_mount_op_info aj_mount_ops[AJ_MOUNT_OP_COUNT];

/* An op's row; AJ_MOUNT_NONE's (no name, AJ_MAKE_NONE) for a number that
 * is no op. */
static inline const struct aj_mount_op_info *aj_op(unsigned op)
{
	return &aj_mount_ops[op < AJ_MOUNT_OP_COUNT ? op : AJ_MOUNT_NONE];
}

static inline int aj_op_is(unsigned op, unsigned is)
{
	return (aj_op(op)->is & is) != 0;
}

static inline int aj_op_binds(unsigned op)
{
	return aj_op(op)->make == AJ_MAKE_BIND;
}

#define AJ_MOUNT_OPTIONAL 0x01 /* skip silently when the host path is missing */
#define AJ_MOUNT_CREATE   0x02 /* create the host directory (as the caller) when missing */
#define AJ_MOUNT_WITH_DEVICES 0x04 /* only when a device entry of the plan has a node here */
/* LINK only ('link?'): as the host has it, decided at run time: its own
 * link where it has a link, a read-only bind (.landlock's rights) where it
 * has a directory, nothing where it has nothing (stub/root/plan.c). */
#define AJ_MOUNT_AS_HOST      0x08
#define AJ_MOUNT_MAP      0x80 /* never emitted: the stub's mark of an --ro or --rw map */

/* Landlock rules mirror the mounts: .landlock is what a rule on the mount's
 * path grants (AJ_LL_* rights; every filesystem right is below bit 16), 0
 * for none.  A mount skipped at run time (an optional source that is
 * missing, an unset variable) gets no rule. */
struct aj_mount {
	uint8_t op;
	uint8_t flags;
	uint16_t mode;     /* TMPFS, SCRATCH: permission bits of its root */
	uint16_t landlock; /* AJ_LL_* rights beneath it, full-ABI mask */
	uint8_t toggle;    /* 1 + enum aj_toggle when a toggle brings it, else 0 */
	uint8_t rank;      /* its order, as far as the compiler knows it (above) */
	struct aj_path path;
	const char *target; /* AJ_MOUNT_LINK only */
};

/* A span of a variant's mount table: a slice shared by the variants that
 * have it.  The mounts every variant has, those every variant of one mode
 * has (toggles), those of one command group (its caches) are each written
 * once, and a variant lists the spans that make its table. */
struct aj_mount_span {
	const struct aj_mount *v;
	uint16_t n;
};

/* Mask, deny and prune: one walk of the project decides every pattern.
 *
 * The compiler lowers each pattern into steps, one per path component,
 * that the stub runs without parsing anything.  A pattern without '/' (a
 * name at any depth, as in .gitignore) is one floating step, tried on every
 * entry.  A pattern with '/' is anchored at the project: its steps are the
 * states of one automaton for the whole variant.  Each directory carries
 * the set of steps active for its entries (a bit mask); an entry that
 * matches a step that does not complete its pattern hands .next on to its
 * own entries, and '**' (AJ_NAME_GLOBSTAR) hands itself on to every
 * directory below it.  When several patterns match one entry the highest
 * kind wins: deny over mask over prune. */
enum aj_pattern_kind {
	AJ_PATTERN_PRUNE = 1, /* a directory the walk does not enter: left as it is */
	AJ_PATTERN_MASK,      /* present, empty, read-only */
	AJ_PATTERN_DENY,      /* present, inaccessible (EACCES) */
};

/* How a step matches one name (a path component, never with '/'). */
enum aj_name_op {
	AJ_NAME_EXACT = 1, /* the name is .a */
	AJ_NAME_PREFIX,    /* starts with .a */
	AJ_NAME_SUFFIX,    /* ends with .b */
	AJ_NAME_AFFIX,     /* starts with .a and ends with .b (.la + .lb <= length) */
	AJ_NAME_GLOB,      /* .a is a token program (AJ_TOK_*) */
	AJ_NAME_ANY,       /* every name */
	AJ_NAME_GLOBSTAR,  /* anchored only: any number of directories, none included */
};

#define AJ_NAME_DIR    0x01 /* only a directory matches (the pattern's trailing '/') */
#define AJ_NAME_NOCASE 0x02 /* .a and .b are ASCII lower case: compare the lowered name */

/* A token program: NUL-terminated; a byte that is not a token stands for
 * itself.  Runs of stars are already one star. */
#define AJ_TOK_STAR 0x01 /* any run of bytes, none included */
#define AJ_TOK_ONE  0x02 /* any one byte */
#define AJ_TOK_SET  0x03 /* followed by N (1..255): one byte of the variant's set N-1 */
#define AJ_TOK_LIT  0x04 /* followed by one of the bytes 0x01..0x04, literally */

#define AJ_SCAN_STEPS     64 /* anchored steps of one variant: the bits of a state */
#define AJ_SCAN_DEPTH_MAX 64 /* the deepest 'scan depth' a policy may ask for */

struct aj_step {
	uint8_t op;    /* enum aj_name_op */
	uint8_t flags; /* AJ_NAME_DIR, AJ_NAME_NOCASE */
	uint8_t kind;  /* enum aj_pattern_kind when a match completes the pattern, else 0 */
	uint8_t first; /* quick filter: the name's first byte (0: any) */
	uint8_t min;   /* quick filter: the shortest name that can match */
	uint8_t max;   /* quick filter: the longest (255: any) */
	uint8_t la, lb;
	const char *a, *b;
	uint64_t next;    /* anchored: the steps active inside a matching directory */
	uint16_t pattern; /* index in aj_scan.patterns, for --jail-explain */
};

/* What the walk does with a directory at the depth bound. */
enum aj_scan_bound {
	AJ_SCAN_BOUND_FAIL = 0, /* refuse to start (exit 125): its content was not checked */
	AJ_SCAN_BOUND_DENY,     /* deny it as a whole */
};

struct aj_scan {
	const struct aj_step *floating; /* names at any depth: tried on every entry */
	const struct aj_step *steps;    /* anchored patterns, at most AJ_SCAN_STEPS */
	const uint8_t *sets;            /* AJ_TOK_SET: 256-bit byte sets, 32 bytes each */
	const char *const *patterns;    /* "mask\t.env" …, as written, for --jail-explain */
	/* Paths (relative, literal) that must not become readable during the
	 * run: masked when present (the compiler adds the pattern); when
	 * absent, Landlock refuses whatever appears there where it can do so
	 * at no cost (stub/root/mask.c, the fence). */
	const char *const *guards;
	uint64_t start; /* steps active for the project's own entries */
	uint16_t n_floating;
	uint16_t n_patterns;
	uint8_t n_steps;
	uint8_t n_sets;
	uint8_t n_guards;
	uint8_t depth; /* path components checked below the project: 1..AJ_SCAN_DEPTH_MAX */
	uint8_t bound; /* enum aj_scan_bound */
};

/* Landlock filesystem rights, with the kernel's UAPI values.  Debian 12's
 * <linux/landlock.h> stops at ABI 2, so we carry our own. */
#define AJ_LL_EXECUTE     (1ULL << 0)
#define AJ_LL_WRITE_FILE  (1ULL << 1)
#define AJ_LL_READ_FILE   (1ULL << 2)
#define AJ_LL_READ_DIR    (1ULL << 3)
#define AJ_LL_REMOVE_DIR  (1ULL << 4)
#define AJ_LL_REMOVE_FILE (1ULL << 5)
#define AJ_LL_MAKE_CHAR   (1ULL << 6)
#define AJ_LL_MAKE_DIR    (1ULL << 7)
#define AJ_LL_MAKE_REG    (1ULL << 8)
#define AJ_LL_MAKE_SOCK   (1ULL << 9)
#define AJ_LL_MAKE_FIFO   (1ULL << 10)
#define AJ_LL_MAKE_BLOCK  (1ULL << 11)
#define AJ_LL_MAKE_SYM    (1ULL << 12)
#define AJ_LL_REFER       (1ULL << 13) /* ABI 2 */
#define AJ_LL_TRUNCATE    (1ULL << 14) /* ABI 3 */
#define AJ_LL_IOCTL_DEV   (1ULL << 15) /* ABI 5 */

#define AJ_LL_RIGHTS_READ (AJ_LL_EXECUTE | AJ_LL_READ_FILE | AJ_LL_READ_DIR)
#define AJ_LL_RIGHTS_ALL  ((1ULL << 16) - 1)

/* Landlock network rights (ABI 4), and those each network level handles
 * with no rule, so that no TCP bind or connect is allowed at all: where
 * there is no network anyway (none) it costs nothing; for blocked it backs
 * the seccomp rule that refuses IP sockets.  The stub drops what the
 * kernel lacks. */
#define AJ_LL_NET_BIND_TCP    (1ULL << 0)
#define AJ_LL_NET_CONNECT_TCP (1ULL << 1)
#define AJ_LL_NET_TCP         (AJ_LL_NET_BIND_TCP | AJ_LL_NET_CONNECT_TCP)
#define AJ_LL_NET_HANDLED     {[AJ_NET_NONE] = AJ_LL_NET_TCP, [AJ_NET_BLOCKED] = AJ_LL_NET_TCP}

/* A rule that is not a mount's (the mounts carry their own): today only
 * "/" itself, which may be listed. */
struct aj_landlock_rule {
	struct aj_path path; /* inside the new root */
	uint64_t access;     /* full-ABI mask; the stub drops what the kernel lacks */
	uint8_t flags;       /* none defined: 0 */
};

enum aj_landlock_level {
	AJ_LANDLOCK_OFF = 0,
	AJ_LANDLOCK_ON,      /* best effort: highest ABI the kernel has, none if it has none */
	AJ_LANDLOCK_REQUIRE, /* at least .landlock_min_abi, or fail closed */
};

/* Ordered from the narrowest: a mode may only keep or lower it.
 *   NONE      a private network namespace without interfaces
 *   BLOCKED   no network namespace (it is the costliest step of a start):
 *             every socket family but AF_UNIX refused by seccomp (the
 *             compiler adds the rule), TCP by Landlock (ABI 4), abstract
 *             Unix sockets and signals of the host scoped away (ABI 6).
 *             Still readable: the host's network tables in /proc/net and
 *             /proc/sys/net, its interfaces through ioctls on a Unix
 *             socket; abstract names can still be bound (squatted).  Below
 *             Landlock ABI 6, or with Landlock off, the stub falls back to
 *             NONE's network namespace.
 *   LOOPBACK  a private network namespace with lo up
 *   ALLOW     LOOPBACK, and named hosts through a proxy that the stub's
 *             parent runs in the host's network namespace (stub/egress/proxy.c):
 *             aj_variant.hosts, and the registry the 'follow' tool's own
 *             configuration names
 *   PUBLIC    ALLOW's proxy for any name, but only to public addresses:
 *             every address a name resolves to, or a literal, must pass
 *             hosts_addr_refused() and be none of the host's own (the
 *             internet without the host; its ports only by a forward)
 *   HOST      the host's network namespace */
#define AJ_NETWORKS(X)                                                                             \
	X(AJ_NET_NONE, "none")                                                                     \
	X(AJ_NET_BLOCKED, "blocked")                                                               \
	X(AJ_NET_LOOPBACK, "loopback")                                                             \
	X(AJ_NET_ALLOW, "allow")                                                                   \
	X(AJ_NET_PUBLIC, "public")                                                                 \
	X(AJ_NET_HOST, "host")

enum aj_network { AJ_NETWORKS(AJ_ENUM_ITEM) AJ_NET_COUNT };
/* [level]: as a policy and --jail-explain spell it (AJ_TABLE_DEFINE). */
extern const char *const aj_network_names[AJ_NET_COUNT];

/* The levels whose traffic goes through the stub's proxy. */
#define AJ_NET_PROXIED(n) ((n) == AJ_NET_ALLOW || (n) == AJ_NET_PUBLIC)

/* An allowed host, as the compiler normalises it: "NAME:PORT", NAME in
 * lower case, a literal IPv4 address, or an IPv6 one in brackets; "*.NAME"
 * for every name below NAME (not NAME itself).  At most AJ_HOSTS_MAX in a
 * variant, each shorter than AJ_HOST_MAX. */
#define AJ_HOSTS_MAX  64
#define AJ_HOST_MAX   260
#define AJ_PROXY_PORT 3128 /* where the jail reaches the proxy, on its own 127.0.0.1 */

/* 'forward [HOST:]PORT;' (compiler/network.c, stub/egress/forward.c): a
 * port of the host's loopback, 127.0.0.1 or [::1] (v6), that the stub's
 * parent relays to from the jail's own loopback at the same port.  Only
 * with a network namespace of the jail's own (none, loopback, allow). */
#define AJ_FORWARDS_MAX 8
struct aj_forward {
	uint16_t port;
	uint8_t v6;
};

/* 'publish [ADDR:][HOSTPORT:]PORT;' (compiler/publish.c,
 * stub/egress/publish.c): the jail's own 127.0.0.1:port, on the host's
 * addr:host_port, where the stub's parent listens and relays into the
 * jail.  Only with a network namespace of the jail's own. */
#define AJ_PUBLISH_MAX 8
struct aj_publish {
	uint32_t addr; /* IPv4, network order: 127.0.0.1 unless the policy names one */
	uint16_t host_port;
	uint16_t port;
};

/* 'secret NAME "HOST[:PORT]"…;' (compiler/keys.c, stub/egress/secret.c):
 * the caller's variable NAME, a placeholder in the jail, its value added
 * by aijail-keys on the way to the hosts, as --jail-secret binds it
 * (docs/keys.md).  Hosts in their normal spelling, each one the variant's
 * proxy lets through.  At most KEYS_MAX keys of KEYS_HOSTS hosts
 * (common/keys.h). */
struct aj_key {
	const char *name;
	const char *const *hosts;
	uint8_t n_hosts;
	/* 'secret NAME follow': hosts are the followed tool's defaults, and
	 * the host its setting names at run time replaces them; bound only
	 * when the caller has NAME (an agent takes one of several keys, or a
	 * sign-in of its own). */
	uint8_t follows;
};

/* 'network allow follow TOOL': the registry that the tool's own
 * configuration names at run time replaces the statement's hosts (its
 * documented default); stub/egress/egress.c reads where, from the
 * variant's rows (aj_variant.follow). */
#define AJ_FOLLOWS(X)                                                                              \
	X(AJ_FOLLOW_NONE, "")                                                                      \
	X(AJ_FOLLOW_NPM, "npm")                                                                    \
	X(AJ_FOLLOW_PIP, "pip")                                                                    \
	X(AJ_FOLLOW_UV, "uv")                                                                      \
	X(AJ_FOLLOW_CARGO, "cargo")                                                                \
	X(AJ_FOLLOW_CLAUDE, "claude")                                                              \
	X(AJ_FOLLOW_CODEX, "codex")                                                                \
	X(AJ_FOLLOW_GEMINI, "gemini")                                                              \
	X(AJ_FOLLOW_OPENCODE, "opencode")

enum aj_follow { AJ_FOLLOWS(AJ_ENUM_ITEM) AJ_FOLLOW_COUNT };
/* [tool]: as 'follow TOOL' names it (AJ_TABLE_DEFINE). */
extern const char *const aj_follow_names[AJ_FOLLOW_COUNT];

/* Where the followed tool names its registry, as the compiler knows it
 * (compiler/follow.c) and emits it for the variants that follow the tool:
 * its variables, read first, then its files below $HOME.  The stub reads
 * nothing else of the tool's: in a file, only the lines "key = value"
 * whose key is listed, the value a URL whose host is allowed.  .replaces:
 * the value is the registry itself, whose host replaces the tool's
 * default hosts (the first one found holds, as the tool reads them); else
 * one more registry. */
struct aj_follow_env {
	const char *name; /* its value: URLs, one space between, each "[NAME=]URL" */
	uint8_t replaces;
};

struct aj_follow_key {
	const char *section; /* only in a section ("[x]", "[[x]]") so named, or whose
	                      * name starts so when it ends with '.'; NULL: any */
	const char *key;
	uint8_t replaces;
	uint8_t suffix; /* a key that ends so ("@scope:registry"), not only this one */
};

/* A file at dir_env's value, when that is an absolute path, else at $HOME
 * and home_dir (empty: $HOME itself), then tail. */
struct aj_follow_file {
	const char *dir_env; /* NULL: always below $HOME */
	const char *home_dir;
	const char *tail;
	/* The variable that hands a registry only this file named to the tool,
	 * whose own $HOME in the jail is empty (NULL: none). */
	const char *var;
};

struct aj_follow_conf {
	const struct aj_follow_env *envs;
	const struct aj_follow_key *keys;
	const struct aj_follow_file *files;
	uint8_t n_envs;
	uint8_t n_keys;
	uint8_t n_files;
};

/* A span of environment patterns, shared like the mount spans: a
 * variant's keep (or drop) list is the concatenation of its spans.  A
 * toggle's span (.toggle: 1 + enum aj_toggle) counts only while the run
 * has the toggle on, in a keep list, or off, in a drop list: the run's
 * options decide (aj_variant.features as the stub completes it). */
struct aj_env_span {
	const char *const *v;
	uint16_t n;
	uint8_t toggle; /* 0: always */
};

/* Environment: start empty, copy variables whose name matches a keep
 * pattern and no drop pattern ('*' and '?' only), then apply the fixed
 * assignments. */
struct aj_env_set {
	const char *name;
	struct aj_path value; /* not necessarily a path: head, variable, tail */
};

struct aj_rlimit {
	uint8_t resource; /* RLIMIT_* */
	uint64_t soft;    /* UINT64_MAX = unlimited */
	uint64_t hard;
};

/* Layout-identical to the kernel's struct sock_filter (checked by the stub),
 * so the compiler needs no kernel header to emit it. */
struct aj_bpf_insn {
	uint16_t code;
	uint8_t jt;
	uint8_t jf;
	uint32_t k;
};

/* One seccomp program.  A variant installs several: the kernel runs every
 * one and applies the most restrictive verdict, which is how "deny wins
 * over allow" is enforced for an allowlist plus argument denies. */
struct aj_filter {
	const struct aj_bpf_insn *insns;
	uint16_t n;
};

/* The refusals a run reports (stub/notify/notify.c): the calls the variant's first
 * filter refuses with an errno, aj_variant.refused.  The stub turns that
 * filter's errno verdicts into SECCOMP_RET_USER_NOTIF where the kernel
 * gives it a listener, and the stub's parent answers each with the errno
 * the unchanged filter returns for it, and counts it.  Every other verdict
 * is left as compiled: allowed calls never leave the kernel, the kill
 * rules kill, the other filters refuse unreported (a task's filters hold
 * one listener at most).  ENOSYS is no refusal: it is how a policy makes
 * libc fall back (clone3 to clone), and stays a plain verdict. */
#define AJ_ERRNO_QUIET 38 /* ENOSYS */

/* Toggles: a bit of aj_variant.features each, in this order (bit 1 << i
 * for the i-th), named as a policy switches them.  X(ID, NAME, OFF, WARN):
 * what --jail-explain says a jail lacks with the toggle off, and what it
 * warns of below what the toggle brings (NULL: nothing). */
#define AJ_TOGGLES(X)                                                                              \
	X(AJ_TOGGLE_GPU, "gpu", "no GPU device nodes, no GPU /sys", NULL)                          \
	X(AJ_TOGGLE_DOCKER, "docker", "no Docker socket",                                          \
	  "the Docker socket is host-root-equivalent: whatever runs in the jail\n"                 \
	  "    can start a privileged container that owns this host")                              \
	X(AJ_TOGGLE_DISPLAY, "display", "no X11 or Wayland socket, no X authority file", NULL)
#define AJ_TOGGLE_OFF_ITEM(id, name, off, warn)  [id] = off,
#define AJ_TOGGLE_WARN_ITEM(id, name, off, warn) [id] = warn,

enum aj_toggle { AJ_TOGGLES(AJ_ENUM_ITEM) AJ_TOGGLE_COUNT };

/* [toggle]: as a policy and the command line switch it (AJ_TABLE_DEFINE). */
extern const char *const aj_toggle_names[AJ_TOGGLE_COUNT];

#define AJ_TOGGLE_BIT(t) (1u << (t)) /* aj_variant.features */

/* The bits by name, as the unit tests write them. */
#define AJ_FEATURE_GPU     AJ_TOGGLE_BIT(AJ_TOGGLE_GPU)
#define AJ_FEATURE_DOCKER  AJ_TOGGLE_BIT(AJ_TOGGLE_DOCKER)
#define AJ_FEATURE_DISPLAY AJ_TOGGLE_BIT(AJ_TOGGLE_DISPLAY)

#define AJ_MEMORY_PERCENT (1ULL << 63) /* aj_variant.memory: low bits are a percentage */

#define AJ_VARIANT_NET_FIXED   0x01 /* a mode block set the network: --net cannot widen it */
#define AJ_VARIANT_PROJECT_RO  0x02 /* the project is mounted read-only: --rw is refused */
/* 'fallback landlock;': where no user namespace can be had (a container's
 * seccomp profile, a sysctl, AppArmor), run without namespaces, confined
 * by Landlock, seccomp and the rest (stub/fallback.c), instead of exit 125. */
#define AJ_VARIANT_FALLBACK    0x04

/* Where a run's --ro and --rw maps may not go (stub/variant/extra.c; the same rule
 * for paths from the environment, stub/variant/resolve.c): below the system trees,
 * which the jail has already, read-only, or which are the kernel's, and
 * exactly the system directories, the jail's own or a parent of other
 * users' homes.  They describe the jail's layout (policies/base.aj), not a
 * policy's choice, and are checked against paths only known at run time:
 * a list in the contract, not an emitted table, so that every stub carries
 * it once in .rodata. */
#define AJ_REFUSED_TREES                                                                           \
	{"/usr", "/etc",    "/proc",  "/sys",  "/dev", "/bin",          "/sbin",                    \
	 "/lib", "/lib32",  "/lib64", "/libx32", "/boot", "/run", "/tmp/.X11-unix"}
#define AJ_REFUSED_DIRS                                                                            \
	{"/tmp", "/var", "/var/tmp", "/var/run", "/opt", "/home", "/root", "/srv", "/mnt", "/media"}

/* One complete sandbox: a (command group, mode) pair of one policy.  Nothing
 * is merged at run time. */
struct aj_variant {
	const char *mode;    /* for --jail-explain */
	const char *command; /* command group name, "" for the default */
	const char *hostname;
	const struct aj_mount_span *mount_spans; /* its mount table, in spans */
	const struct aj_scan *scan; /* shared by the variants that scan alike */
	const struct aj_landlock_rule *landlock_rules; /* besides the mounts' own */
	const struct aj_env_span *env_keep; /* spans */
	const struct aj_env_span *env_drop; /* spans: never passed, whatever keeps them */
	const struct aj_env_set *env_set;
	const struct aj_rlimit *rlimits;
	const struct aj_filter *filters; /* installed in order, at least one */
	const char *seccomp_summary; /* deny rules by action, for --jail-explain */
	/* 'network allow': the hosts, and which of them a followed tool's
	 * configured registry replaces (the first n_followed). */
	const char *const *hosts;
	/* Where the followed tool names its registry (NULL: no tool is). */
	const struct aj_follow_conf *follow;
	/* 'forward PORT;': the host's loopback ports the jail reaches at its
	 * own loopback, before a run's --jail-forward. */
	const struct aj_forward *forwards;
	/* 'publish PORT;': the jail's ports on the host, before a run's
	 * --jail-publish. */
	const struct aj_publish *publishes;
	/* 'secret NAME "HOST"…;': keys bound under a run's --jail-secret. */
	const struct aj_key *keys;
	/* The calls a run reports (AJ_ERRNO_QUIET above), by number, and
	 * their names in the same order, one space between. */
	const uint16_t *refused;
	const char *refused_names;
	/* Containment of a runaway ('limit memory', 'limit processes'): the
	 * whole jail's bound, through a cgroup where the caller owns one
	 * (memory.max, pids.max), else per process (RLIMIT_DATA, and
	 * RLIMIT_NPROC, which Linux counts per user namespace since 5.14, so
	 * per jail).  0: unbounded. */
	uint64_t memory; /* bytes, or AJ_MEMORY_PERCENT | percent of physical memory */
	uint32_t processes; /* tasks (threads count) */
	/* The counts and small fields after the pointers: no padding between
	 * them, in a table the generic jail holds two dozen times. */
	uint32_t timeout; /* seconds, 0 = none */
	uint16_t n_landlock_rules;
	uint16_t n_env_keep; /* spans */
	uint16_t n_env_drop; /* spans */
	uint16_t n_env_set;
	uint16_t n_rlimits;
	uint16_t n_refused;
	uint8_t n_mount_spans;
	uint8_t n_filters;
	uint8_t network;  /* enum aj_network */
	uint8_t n_hosts;
	uint8_t n_followed; /* hosts[0 .. n_followed) are the followed tool's default */
	uint8_t n_forwards;
	uint8_t n_publishes;
	uint8_t n_keys;
	uint8_t landlock; /* enum aj_landlock_level */
	uint8_t landlock_min_abi;
	uint8_t features; /* AJ_FEATURE_* switched on */
	/* Toggles a mode block set: a run may switch one off, never on when
	 * the mode has it off (--jail-gpu…).  The mounts of a toggle the run
	 * may have on are in the table, tagged (aj_mount.toggle), and so are
	 * its variables (aj_env_span.toggle). */
	uint8_t toggles_fixed;
	uint8_t flags;    /* AJ_VARIANT_* */
	/* User namespaces the jail may create below its own ('userns N'), as
	 * user.max_user_namespaces of the jail's namespace: 0 but for a
	 * browser, whose own sandbox needs them.  The kernel counts every
	 * namespace below, at any depth, against it. */
	uint8_t userns;
};

/* A mode is chosen by an explicit option, else by the strongest trigger
 * whose environment variable is set (empty counts), else the policy's
 * default. */
struct aj_trigger {
	const char *env;
	uint8_t mode;
};

/* At most so many fixed arguments after 'exec COMMAND', and, where there
 * are some, so many of the caller's after them (stub/main.c). */
#define AJ_EXEC_ARGS_MAX   8
#define AJ_EXEC_CALLER_MAX 4096

/* The generic jail maps a command's basename to a command group. */
struct aj_command {
	const char *name;
	uint8_t group;
};

struct aj_policy {
	uint32_t abi; /* AJ_ABI at generation time */
	const char *name;
	const char *progname; /* for messages: "jail" for policy jail, else "jail-NAME" */
	const char *mode_env; /* the variable that names a mode (AIJAIL_MODE) */
	const char *exec; /* fixed target (per-tool stubs), NULL: argv[1] is the target */
	/* 'exec COMMAND ARG…': put between the target and the caller's
	 * arguments (jail-codex turns Codex's own sandbox off so). */
	const char *const *exec_args;
	uint8_t n_exec_args;
	const char *const *modes; /* weakest first: the index is the mode's strength */
	uint8_t n_modes;
	uint8_t default_mode;
	const struct aj_trigger *triggers;
	uint8_t n_triggers;
	const struct aj_command *commands;
	uint8_t n_commands;
	uint8_t n_groups; /* group 0 is the default */
	const struct aj_variant *variants; /* [group * n_modes + mode] */
	/* "sha256:HEX (aijail-compile VERSION, libseccomp V)": the hash of the
	 * tables above as emitted, and what emitted them (--jail-version). */
	const char *identity;
};

/* The contract's own tables, defined by the one file of each program that
 * defines AJ_TABLE_DEFINE before it includes this header (the stub's
 * stub/base/contract.c, the compiler's compiler/contract.c): their rows
 * are the lists above, written once. */
#ifdef AJ_TABLE_DEFINE
#define AJ_MOUNT_OP_INFO_ITEM(id, name, make, is) [id] = {name, make, is},
const struct aj_mount_op_info aj_mount_ops[AJ_MOUNT_OP_COUNT] = {
    AJ_MOUNT_OPS(AJ_MOUNT_OP_INFO_ITEM)};
const char *const aj_toggle_names[AJ_TOGGLE_COUNT] = {AJ_TOGGLES(AJ_NAME_ITEM)};
const char *const aj_network_names[AJ_NET_COUNT] = {AJ_NETWORKS(AJ_NAME_ITEM)};
const char *const aj_follow_names[AJ_FOLLOW_COUNT] = {AJ_FOLLOWS(AJ_NAME_ITEM)};
#endif

#endif
