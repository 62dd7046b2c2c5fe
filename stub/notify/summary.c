/* summary.c: the words of the line that tells what the jail refused
 * (refusals.c keeps the counts): "refused 2 connections (x:443, y:80) and
 * 1 call (ptrace)".  No system call here: unit tested with glibc. */
#include <string.h>

#include "notify/notify.h"

/* Counts one refusal of name, and keeps the name (a copy in store) while
 * there is room. */
void summary_add(struct refusal_list *l, const char *name, char (*store)[AJ_HOST_MAX])
{
	size_t len = strlen(name);

	l->n++;
	for (unsigned i = 0; i < l->shown; i++)
		if (!strcmp(l->name[i], name))
			return;
	if (l->shown == RF_SHOWN || len >= AJ_HOST_MAX) {
		l->more = true;
		return;
	}
	memcpy(store[l->shown], name, len + 1);
	l->name[l->shown] = store[l->shown];
	l->shown++;
}

static size_t put(char *buf, size_t at, size_t size, const char *s)
{
	size_t n = strlen(s);

	if (at + n >= size)
		n = at < size ? size - at - 1 : 0;
	memcpy(buf + at, s, n);
	buf[at + n] = '\0';
	return at + n;
}

static size_t list_text(char *buf, size_t at, size_t size, const struct refusal_list *l,
                        const char *one, const char *many, const char *sep)
{
	char num[AJ_DEC_MAX];

	out_fmt_u(num, l->n);
	at = put(buf, at, size, num);
	at = put(buf, at, size, l->n == 1 ? one : many);
	at = put(buf, at, size, " (");
	for (unsigned i = 0; i < l->shown; i++) {
		at = put(buf, at, size, i ? sep : "");
		at = put(buf, at, size, l->name[i]);
	}
	if (l->more)
		at = put(buf, at, size, l->shown ? sep : "");
	at = put(buf, at, size, l->more ? "…)" : ")");
	return at;
}

/* The summary line, with its newline; "" when nothing was refused. */
size_t summary_line(char *buf, size_t size, const char *prog, const struct refusal_list *c,
                    const struct refusal_list *k)
{
	size_t at = 0;

	buf[0] = '\0';
	if (!c->n && !k->n)
		return 0;
	at = put(buf, at, size, prog);
	at = put(buf, at, size, ": refused ");
	if (c->n)
		at = list_text(buf, at, size, c, " connection", " connections", ", ");
	if (c->n && k->n)
		at = put(buf, at, size, " and ");
	if (k->n)
		at = list_text(buf, at, size, k, " call", " calls", ", ");
	return put(buf, at, size, "\n");
}
