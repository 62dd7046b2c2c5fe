/* load.h: files, includes and the 'extends' graph. */
#ifndef AJ_LOAD_H
#define AJ_LOAD_H

#include "program.h"

void program_init(struct program *p, const char **dirs, size_t n_dirs);
bool program_load(struct program *p, const char *path, const struct src *src);
struct policy *program_find(const struct program *p, const char *name);
bool program_resolve(struct program *p);

#endif
