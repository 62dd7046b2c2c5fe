/* watch/watch.h: the interface of the room watch/, the watcher: below,
 * what the rest of the stub calls (main.c, explain/); then what the launch
 * (watch.c), the watcher (watchd.c) and what both use (watchtab.c) share:
 * the socket's messages,
 * the scan table flattened, the key and the runtime directory (the state
 * file and the share, which aijail-status reads too, are
 * include/aj_watchstate.h).  The rest
 * of the stub knows the watcher by watch_ask() and watch_scan().
 * The files call each other one way: watch.c -> watchd.c -> watchtab.c. */
#ifndef AJ_STUB_WATCH_H
#define AJ_STUB_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/base.h"
#include "variant/variant.h"
#include "scan/scan.h"
#include "aj_watchstate.h"

/* watch.c: the scan from a watcher of the project, else the walk.
 * watch_ask() before any namespace (-1: no watcher), watch_scan() where
 * the walk would run. */
extern const char *watch_source; /* "the walk" or "the watcher", for explain */
const char *watch_origin(void);  /* the same, for explain */
int watch_ask(const struct aj_variant *v, const char *mode);
const char *watch_explain(void); /* "on: …" or "off, because …" */
void watch_scan(int fd, const struct aj_variant *v);

#define WATCH_MAGIC     0x32776a61u /* "ajw2" */
#define WATCH_WAIT_MS   5000
#define WATCH_MIN       1000
#define WATCH_IDLE      900
#define WATCH_SLOW_NS   10000000ULL /* a walk of 10 ms */
#define WATCH_TABLES    8           /* scan tables one watcher serves */
#define WATCH_TABLE_MAX 65536       /* a flattened table's bytes */
#define WATCH_STEPS     2048        /* its steps, floating and anchored */
#define WATCH_LABELS    96          /* "jail-npm/lockdown …": who used a table, for the listing */

enum { ANS_OK = 0, ANS_WALK = 1 };
enum { OP_ASK = 0, OP_YIELD = 1 };

struct watch_req {
	uint32_t magic, op;
	uint64_t dev, ino;
	char key[24];
	char label[40]; /* the stub and mode, for aijail-status --watchers */
	uint32_t tlen, pad;
	/* tlen bytes follow: the scan table, flattened */
};

struct watch_ans {
	uint32_t magic, status;
	uint64_t dev, ino;
	uint32_t n, used;
};

/* A scan table flattened: the header, the steps (floating, then
 * anchored), the byte sets, then the steps' strings, each NUL-ended. */
struct watchtab_hdr {
	uint32_t len;
	uint16_t n_floating;
	uint8_t n_steps, n_sets, depth, bound, deny_sockets, pad;
	uint64_t start;
};
struct watchtab_step {
	uint8_t op, flags, kind, first, min, max, la, lb;
	uint64_t next;
	uint16_t pattern, pad;
	uint32_t a, b; /* offsets of the strings */
};

/* The watcher's copy of one table. */
struct watchtab_table {
	struct aj_scan sc;
	struct aj_variant v;
	struct aj_step steps[WATCH_STEPS];
	uint32_t len;
	bool ready;
	char labels[WATCH_LABELS];
	_Alignas(8) uint8_t blob[WATCH_TABLE_MAX];
	/* then the index, scanidx_size() bytes */
};

/* watchtab.c: the state a launch sets up and the watcher it forks
 * inherits. */
extern char watchtab_key[24]; /* "w-" and 16 hex digits: the project, in this mount namespace */
extern int watchtab_rdir;     /* the runtime directory, O_PATH */
extern uint64_t watchtab_proj_dev, watchtab_proj_ino;
extern const char *watchtab_why_no_dir;
extern bool watchtab_dir_absent; /* not made yet (a launch makes it when it marks a project) */
extern char watchtab_label[40];
extern uint8_t watchtab_flat[WATCH_TABLE_MAX]; /* this launch's table, flattened */
extern uint32_t watchtab_flat_len;
struct sockaddr_un;
unsigned watchtab_env_num(const char *name, unsigned dflt);
uint64_t watchtab_now_ns(void);
void watchtab_key_name(char *buf, const char *k, const char *suffix);
void watchtab_sun_of(struct sockaddr_un *a, const char *k);
int watchtab_runtime_dir(bool make);
bool watchtab_make_key(void);
bool watchtab_flatten(const struct aj_variant *v);
bool watchtab_unflatten(struct watchtab_table *t);
bool watchtab_peer_ok(int s);
unsigned watchtab_limit(void);
unsigned watchtab_num(const char *s);
long watchtab_marked(void);
bool watchtab_get(int s, void *buf, size_t n);

/* watchd.c: the watcher's entry point, in the second child of the
 * launch's fork (watch.c's spawn()). */
noreturn void watchd_main(void);

#endif
