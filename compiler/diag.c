/* diag.c: one way to report a problem in a policy, as gcc does. */
#include "diag.h"

#include <stdbool.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static FILE *out;
static int errors;

void diag_set_stream(FILE *f)
{
	out = f;
}

static FILE *stream(void)
{
	return out ? out : stderr;
}

const struct src *diag_src_new(const char *name, const char *text, size_t len)
{
	struct src *s = ast_alloc(sizeof(*s));
	s->name = ast_strdup(name);
	s->text = ast_strndup(text, len);
	s->len = len;
	return s;
}

/* Prints the source line of loc and a caret under the span. */
static void show_line(const struct loc *loc)
{
	const char *p = loc->src->text, *end = p + loc->src->len;
	for (int line = 1; line < loc->line && p < end; p++)
		if (*p == '\n')
			line++;
	const char *eol = memchr(p, '\n', (size_t)(end - p));
	if (!eol)
		eol = end;
	FILE *f = stream();
	fprintf(f, "%5d | %.*s\n      | ", loc->line, (int)(eol - p), p);
	/* Tabs are copied so the caret lines up whatever the tab width. */
	for (int c = 1; c < loc->col && p + c - 1 < eol; c++)
		fputc(p[c - 1] == '\t' ? '\t' : ' ', f);
	fputc('^', f);
	if (loc->end_line == loc->line)
		for (int c = loc->col; c < loc->end_col && p + c < eol; c++)
			fputc('~', f);
	fputc('\n', f);
}

/* quote: loc's source line may be shown (diag_error_in has none to show). */
static void vreport(const char *sev, const struct loc *loc, bool quote, const char *fmt, va_list ap)
{
	char msg[1024];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	FILE *f = stream();
	if (loc && loc->src)
		fprintf(f, "%s:%d:%d: %s: %s\n", loc->src->name, loc->line, loc->col, sev, msg);
	else
		fprintf(f, "aijail-compile: %s: %s\n", sev, msg);
	if (quote && loc && loc->src && loc->line > 0)
		show_line(loc);
}

void diag_error_at(const struct loc *loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("error", loc, true, fmt, ap);
	va_end(ap);
	errors++;
}

void diag_note_at(const struct loc *loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("note", loc, true, fmt, ap);
	va_end(ap);
}

void diag_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("error", NULL, false, fmt, ap);
	va_end(ap);
	errors++;
}

void diag_error_in(const char *file, int line, int col, const char *fmt, ...)
{
	struct src named = {file, NULL, 0};
	struct loc loc = {&named, line, col, line, col};
	va_list ap;
	va_start(ap, fmt);
	vreport("error", &loc, false, fmt, ap);
	va_end(ap);
	errors++;
}

int diag_error_count(void)
{
	return errors;
}

void diag_reset(void)
{
	errors = 0;
}

static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return (size_t)-1;
	size_t row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
			size_t best = diag + cost;
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

const char *diag_suggest(const char *word, const char *const *cands, size_t n)
{
	size_t len = strlen(word);
	size_t limit = len < 4 ? 1 : len < 9 ? 2 : 3;
	const char *best = NULL;
	size_t best_d = limit + 1;
	for (size_t i = 0; i < n; i++) {
		size_t d = distance(word, cands[i]);
		if (d < best_d) {
			best_d = d;
			best = cands[i];
		}
	}
	return best;
}
