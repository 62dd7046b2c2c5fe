/* sysgroups.h: named syscall groups and sets of syscall numbers. */
#ifndef AJ_SYSGROUPS_H
#define AJ_SYSGROUPS_H

#include "ast.h"

#include <stdio.h>

/* A set of syscall numbers, each remembering where it was named. */
#define NR_LIMIT 1024

struct nrset {
	unsigned char in[NR_LIMIT];
	struct loc loc[NR_LIMIT];
};

/* Adds a name, "syscall[N]" or an @group to s; strict: a name libseccomp
 * does not know is an error (else skipped: another architecture's). */
bool sysgroups_set_add_token(struct nrset *s, const char *tok, const struct loc *loc, bool strict,
                             int depth);

/* group @NAME MEMBER… [except MEMBER…]; at the top of a file. */
bool sysgroups_define(const struct stmt *s);
void sysgroups_reset(void);
void sysgroups_list(FILE *f);
bool sysgroups_expand_print(FILE *f, const char *name);

#endif
