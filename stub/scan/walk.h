/* walk.h: the walk's state, shared by walk.c (a directory's entries:
 * classified, covered or entered) and scan.c above it (the whole walk, its
 * check afterwards, the watcher's redo).  Included by these two only; the
 * old names of the state are macros, as scanidx.h's are. */
#ifndef AJ_STUB_WALK_H
#define AJ_STUB_WALK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "scan/scanidx.h"

enum { T_UNKNOWN = 0, T_OTHER = 1, T_DIR = 4, T_REG = 8, T_LNK = 10, T_SOCK = 12 };

struct walk_state {
	char rel[AJ_PATH_MAX]; /* the entry's path relative to the project */
	const struct aj_scan *sc;
	uid_t me;
	bool deny_sockets;
	/* The tree changed while it was walked (an entry listed is gone, or
	 * leads to another object now): the walk starts again. */
	bool unstable;
	bool second_pass;
	bool relisting;  /* re-reading a directory that changed after the walk read it */
	bool deferring;  /* the first walk: a matched file waits for its folder (walk.c) */
	bool full;       /* no room for a hit */
	bool broken;     /* a directory it could not watch */
	uint64_t recent; /* the walk's start, less two ticks */
};
extern struct walk_state walk_st;
#define rel          (walk_st.rel)
#define sc           (walk_st.sc)
#define me           (walk_st.me)
#define deny_sockets (walk_st.deny_sockets)
#define unstable     (walk_st.unstable)
#define second_pass  (walk_st.second_pass)
#define relisting    (walk_st.relisting)
#define deferring    (walk_st.deferring)
#define full         (walk_st.full)
#define broken       (walk_st.broken)

void walk_add_hit(int dfd, const char *name, uint64_t ino, uint8_t kind, unsigned char type,
                  uint8_t why, size_t len);
void walk_deny_dir(int fd, size_t len, uint8_t why);
void walk_dir(int dfd, dev_t dev, size_t len, unsigned depth, uint64_t state);
void walk_entry(int dfd, dev_t dev, const char *name, uint64_t ino, unsigned char type, size_t len,
                size_t nl, unsigned depth, uint64_t state);
void walk_links_listed(int pfd);

#endif
