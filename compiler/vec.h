/* vec.h: arrays that grow in the arena (ast.h), and the length of a fixed
 * one.  Every stage's types use them. */
#ifndef AJ_VEC_H
#define AJ_VEC_H

#include "ast.h"

#include <string.h>

#define VEC(type)                                                                                  \
	struct {                                                                                   \
		type *v;                                                                           \
		size_t n, cap;                                                                     \
	}

#define VEC_PUSH(vec, item)                                                                        \
	do {                                                                                       \
		if ((vec).n == (vec).cap) {                                                        \
			size_t cap_ = (vec).cap ? (vec).cap * 2 : 8;                               \
			void *nv_ = ast_alloc(cap_ * sizeof(*(vec).v));                            \
			if ((vec).n)                                                               \
				memcpy(nv_, (vec).v, (vec).n * sizeof(*(vec).v));                  \
			(vec).v = nv_;                                                             \
			(vec).cap = cap_;                                                          \
		}                                                                                  \
		(vec).v[(vec).n++] = (item);                                                       \
	} while (0)

#define N(a) (sizeof(a) / sizeof((a)[0]))

#endif
