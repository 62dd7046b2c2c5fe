/* program.h: the first form, what load.c, structure.c and compile.c make
 * of the source: the policies as loaded, their command groups, and a
 * policy compiled (its structure, then its variants, variant.h).  Types
 * only. */
#ifndef AJ_PROGRAM_H
#define AJ_PROGRAM_H

#include "aj_table.h"
#include "ast.h"
#include "vec.h"

#include <stdbool.h>
#include <sys/types.h>

struct variant; /* variant.h */

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
	VEC(const char *) exec_args; /* 'exec COMMAND ARG…' */
	VEC(const char *) modes;   /* weakest first (check_mode_order) */
	VEC(struct loc) mode_locs; /* where each was first declared (normal: none) */
	int default_mode;
	VEC(struct aj_trigger) triggers;
	VEC(struct aj_command) commands;
	VEC(struct command_group) groups; /* [0] is the default */
	VEC(struct variant) variants;     /* [group * n_modes + mode] */
};

#endif
