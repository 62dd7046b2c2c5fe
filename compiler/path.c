/* path.c: paths as a policy writes them.  The layout must be known when
 * the policy is compiled: no '.', '..' or empty component, at most one
 * variable, and a variable that is a whole path starts it. */
#include "path.h"
#include "diag.h"
#include "toggles.h"

#include <stdlib.h>
#include <string.h>

static const char *const var_names[AJ_VAR_COUNT] = AJ_VAR_NAMES;

/* A policy names every variable but those a toggle brings (toggles.c). */
static void unknown_variable(const char *var, const struct loc *loc)
{
	const char *names[AJ_VAR_COUNT];
	size_t n = 0;
	char known[256] = "";
	for (int i = 1; i < AJ_VAR_COUNT; i++) {
		if (toggles_of_var(i) >= 0)
			continue;
		names[n++] = var_names[i];
		snprintf(known + strlen(known), sizeof(known) - strlen(known), "$%s ",
		         var_names[i]);
	}
	const char *hint = diag_suggest(var, names, n);
	if (hint)
		diag_error_at(loc, "unknown variable '$%s'; did you mean '$%s'?", var, hint);
	else
		diag_error_at(loc, "unknown variable '$%s'; known: %s(and ~)", var, known);
}

bool path_parse(const char *text, const struct loc *loc, bool absolute, struct m_path *out)
{
	memset(out, 0, sizeof(*out));
	const char *t = text;
	char *buf = NULL;
	if (t[0] == '~') {
		if (t[1] && t[1] != '/') {
			diag_error_at(loc,
			              "'~user' is not supported; use $HOME or an absolute path");
			return false;
		}
		buf = ast_printf("$HOME%s", t + 1);
		t = buf;
	}
	const char *dollar = strchr(t, '$');
	out->head = ast_strndup(t, dollar ? (size_t)(dollar - t) : strlen(t));
	out->tail = ast_strdup("");
	if (dollar) {
		const char *name = dollar + 1, *end = name;
		if (*end == '{') {
			diag_error_at(loc, "write $NAME, not ${NAME}");
			return false;
		}
		while ((*end >= 'A' && *end <= 'Z') || (*end >= '0' && *end <= '9') || *end == '_')
			end++;
		char *var = ast_strndup(name, (size_t)(end - name));
		for (int i = 1; i < AJ_VAR_COUNT; i++)
			if (strcmp(var, var_names[i]) == 0)
				out->var = i;
		if (out->var && toggles_of_var(out->var) >= 0) {
			diag_error_at(loc, "$%s belongs to the '%s' toggle: write '%s on;'", var,
			              aj_toggle_names[toggles_of_var(out->var)],
			              aj_toggle_names[toggles_of_var(out->var)]);
			return false;
		}
		if (!out->var) {
			unknown_variable(var, loc);
			return false;
		}
		if (strchr(end, '$')) {
			diag_error_at(loc, "at most one variable per path");
			return false;
		}
		out->tail = ast_strdup(end);
	}
	out->text = ast_printf("%s%s%s%s", out->head, out->var ? "$" : "",
	                       out->var ? var_names[out->var] : "", out->tail);
	if (!absolute)
		return true;

	bool var_is_path = out->var && out->var != AJ_VAR_UID;
	if (out->head[0] != '/' && !(var_is_path && out->head[0] == 0)) {
		diag_error_at(
		    loc, "path '%s' must be absolute (start with '/', '~' or a $VARIABLE)", text);
		return false;
	}
	if (var_is_path && out->head[0]) {
		diag_error_at(loc, "$%s is a whole path and must start the path",
		              var_names[out->var]);
		return false;
	}
	if (var_is_path && out->tail[0] && out->tail[0] != '/') {
		diag_error_at(loc, "expected '/' after $%s", var_names[out->var]);
		return false;
	}
	if (strlen(out->text) >= AJ_PATH_MAX / 2) {
		diag_error_at(loc, "path is too long");
		return false;
	}
	/* The layout must be known when the policy is compiled: no '.' or '..'
	 * that a symlink on the host could make mean something else. */
	const char *parts[2] = {out->head, out->tail};
	for (int i = 0; i < 2; i++) {
		const char *p = parts[i];
		while (*p) {
			if (*p == '/') {
				p++;
				continue;
			}
			const char *e = strchr(p, '/');
			size_t len = e ? (size_t)(e - p) : strlen(p);
			if ((len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.')) {
				diag_error_at(loc,
				              "impossible path '%s': '.' and '..' are not allowed",
				              text);
				return false;
			}
			p += len;
		}
	}
	if (strstr(out->text, "//")) {
		diag_error_at(loc, "impossible path '%s': empty component", text);
		return false;
	}
	size_t hl = strlen(out->head), tl = strlen(out->tail);
	if (out->var && tl && out->tail[tl - 1] == '/')
		out->tail[tl - 1] = 0;
	else if (!out->var && hl > 1 && out->head[hl - 1] == '/')
		out->head[hl - 1] = 0;
	out->text = ast_printf("%s%s%s%s", out->head, out->var ? "$" : "",
	                       out->var ? var_names[out->var] : "", out->tail);
	if (strpbrk(out->text, "*?[")) {
		diag_error_at(loc, "path '%s' contains a glob character; globs belong in mask/deny",
		              text);
		return false;
	}
	return true;
}
