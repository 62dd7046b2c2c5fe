/* load.h: files, includes and the 'extends' graph. */
#ifndef AJ_LOAD_H
#define AJ_LOAD_H

#include "program.h"

void load_init(struct program *p, const char **dirs, size_t n_dirs);
bool load_program(struct program *p, const char *path, const struct src *src);
struct policy *load_find(const struct program *p, const char *name);
bool load_resolve(struct program *p);

#endif
