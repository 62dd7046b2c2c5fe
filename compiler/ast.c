/* ast.c: the arena behind every allocation of one compiler run. */
#include "ast.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct block {
	struct block *next;
	max_align_t data[];
};

static struct block *arena;

void *ast_alloc(size_t n)
{
	struct block *b = calloc(1, sizeof(*b) + n);
	if (!b) {
		fputs("aijail-compile: fatal: out of memory\n", stderr);
		exit(2);
	}
	b->next = arena;
	arena = b;
	return b->data;
}

char *ast_strndup(const char *s, size_t n)
{
	char *p = ast_alloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *ast_strdup(const char *s)
{
	return ast_strndup(s, strlen(s));
}

char *ast_printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = ast_alloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void ast_arena_free(void)
{
	while (arena) {
		struct block *b = arena;
		arena = b->next;
		free(b);
	}
}

const char *ast_atom_kind_name(enum atom_kind k)
{
	switch (k) {
	case ATOM_WORD:
		return "word";
	case ATOM_STRING:
		return "string";
	case ATOM_NUMBER:
		return "number";
	case ATOM_PATH:
		return "path";
	case ATOM_GROUP:
		return "syscall group";
	case ATOM_STAR:
		return "'*'";
	case ATOM_ARROW:
		return "'->'";
	case ATOM_ASSIGN:
		return "assignment";
	case ATOM_CALL:
		return "syscall with arguments";
	}
	return "?";
}
