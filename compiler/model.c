/* model.c: the meaning of each statement, and the complete variants.
 *
 * A variant (command group x mode) is built by applying, in order: the
 * top-level statements of every policy from the root of the 'extends' chain
 * down to the compiled one; the command group's overlay; then the blocks of
 * the variant's mode, again root first.  Later statements replace earlier
 * ones (a mount by its path, a setting by its key); within one block, the
 * same thing said twice is an error. */
#include "diag.h"
#include "model.h"

#include <errno.h>
#include <seccomp.h>
#include <sys/socket.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static const char *const var_names[AJ_VAR_COUNT] = AJ_VAR_NAMES;
static const char *const net_names[AJ_NET_COUNT] = {AJ_NETWORKS(AJ_NAME_ITEM)};
static const char *const toggle_names[AJ_TOGGLE_COUNT] = {AJ_TOGGLES(AJ_NAME_ITEM)};

/* Keys a block may hold; the policy body also takes the policy_keys. */
static const char *const setting_keys[] = {
	"hostname", "network", "landlock", "ro", "ro?", "rw", "rw?", "rw+", "tmpfs", "link",
	"dev", "proc", "mask", "deny", "scan", "env", "rlimit", "limit", "timeout", "syscalls", "gpu",
	"docker", "display",
	"fallback", "link?", /* issue 11: the lead ports them to the settings table */
};
static const char *const policy_keys[] = {"exec", "mode", "command", "default"};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Records what one block said, to refuse saying it twice. */
struct said {
	const char *key;
	struct loc loc;
	struct said *next;
};

struct block_state {
	struct said *said;
	const void *id; /* the source block: the same for every variant built */
	bool mode;      /* a mode's block: what it sets, it means (AJ_VARIANT_NET_FIXED) */
};

static bool say_once(struct block_state *b, const char *key, const struct loc *loc,
		     const char *what)
{
	for (struct said *s = b->said; s; s = s->next) {
		if (strcmp(s->key, key) == 0) {
			error_at(loc, "%s", what);
			note_at(&s->loc, "first given here");
			return false;
		}
	}
	struct said *s = xalloc(sizeof(*s));
	s->key = key;
	s->loc = *loc;
	s->next = b->said;
	b->said = s;
	return true;
}

static int count_args(const struct stmt *s)
{
	int n = 0;
	for (const struct atom *a = s->args; a; a = a->next)
		n++;
	return n;
}

static bool want_args(const struct stmt *s, int min, int max, const char *usage)
{
	int n = count_args(s);
	if (n >= min && (max < 0 || n <= max))
		return true;
	const struct loc *l = &s->loc;
	if (n > max && max >= 0) {
		const struct atom *a = s->args;
		for (int i = 0; i < max; i++)
			a = a->next;
		l = &a->loc;
		error_at(l, "unexpected %s '%s'; expected: %s (a missing ';'?)",
			 atom_kind_name(a->kind), a->text ? a->text : "", usage);
	} else {
		error_at(l, "missing argument; expected: %s", usage);
	}
	return false;
}

static const char *word_of(const struct atom *a)
{
	return (a->kind == ATOM_WORD || a->kind == ATOM_STRING) ? a->text : NULL;
}

/* on|off style choices, with a suggestion for typos. */
static int choose(const struct atom *a, const char *what, const char *const *names, size_t n)
{
	const char *w = word_of(a);
	if (w)
		for (size_t i = 0; i < n; i++)
			if (strcmp(w, names[i]) == 0)
				return (int)i;
	char list[256] = "";
	for (size_t i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
			 names[i]);
	const char *hint = w ? suggest(w, names, n) : NULL;
	if (hint)
		error_at(&a->loc, "unknown %s '%s'; did you mean '%s'?", what, w, hint);
	else
		error_at(&a->loc, "unknown %s '%s'; expected one of: %s", what,
			 a->text ? a->text : atom_kind_name(a->kind), list);
	return -1;
}

bool path_parse(const char *text, const struct loc *loc, bool absolute, struct m_path *out)
{
	memset(out, 0, sizeof(*out));
	const char *t = text;
	char *buf = NULL;
	if (t[0] == '~') {
		if (t[1] && t[1] != '/') {
			error_at(loc, "'~user' is not supported; use $HOME or an absolute path");
			return false;
		}
		buf = xprintf("$HOME%s", t + 1);
		t = buf;
	}
	const char *dollar = strchr(t, '$');
	out->head = xstrndup(t, dollar ? (size_t)(dollar - t) : strlen(t));
	out->tail = xstrdup("");
	if (dollar) {
		const char *name = dollar + 1, *end = name;
		if (*end == '{') {
			error_at(loc, "write $NAME, not ${NAME}");
			return false;
		}
		while ((*end >= 'A' && *end <= 'Z') || (*end >= '0' && *end <= '9') || *end == '_')
			end++;
		char *var = xstrndup(name, (size_t)(end - name));
		for (int i = 1; i < AJ_VAR_COUNT; i++)
			if (strcmp(var, var_names[i]) == 0)
				out->var = i;
		if (!out->var) {
			const char *hint = suggest(var, var_names + 1, AJ_VAR_COUNT - 1);
			if (hint)
				error_at(loc, "unknown variable '$%s'; did you mean '$%s'?", var, hint);
			else
				error_at(loc,
					 "unknown variable '$%s'; known: $HOME $PROJECT $UID "
					 "$XDG_RUNTIME_DIR (and ~)",
					 var);
			return false;
		}
		if (strchr(end, '$')) {
			error_at(loc, "at most one variable per path");
			return false;
		}
		out->tail = xstrdup(end);
	}
	out->text = xprintf("%s%s%s%s", out->head, out->var ? "$" : "",
			    out->var ? var_names[out->var] : "", out->tail);
	if (!absolute)
		return true;

	bool var_is_path = out->var && out->var != AJ_VAR_UID;
	if (out->head[0] != '/' && !(var_is_path && out->head[0] == 0)) {
		error_at(loc, "path '%s' must be absolute (start with '/', '~' or a $VARIABLE)",
			 text);
		return false;
	}
	if (var_is_path && out->head[0]) {
		error_at(loc, "$%s is a whole path and must start the path", var_names[out->var]);
		return false;
	}
	if (var_is_path && out->tail[0] && out->tail[0] != '/') {
		error_at(loc, "expected '/' after $%s", var_names[out->var]);
		return false;
	}
	if (strlen(out->text) >= AJ_PATH_MAX / 2) {
		error_at(loc, "path is too long");
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
				error_at(loc, "impossible path '%s': '.' and '..' are not allowed",
					 text);
				return false;
			}
			p += len;
		}
	}
	if (strstr(out->text, "//")) {
		error_at(loc, "impossible path '%s': empty component", text);
		return false;
	}
	size_t hl = strlen(out->head), tl = strlen(out->tail);
	if (out->var && tl && out->tail[tl - 1] == '/')
		out->tail[tl - 1] = 0;
	else if (!out->var && hl > 1 && out->head[hl - 1] == '/')
		out->head[hl - 1] = 0;
	out->text = xprintf("%s%s%s%s", out->head, out->var ? "$" : "",
			    out->var ? var_names[out->var] : "", out->tail);
	if (strpbrk(out->text, "*?[")) {
		error_at(loc, "path '%s' contains a glob character; globs belong in mask/deny",
			 text);
		return false;
	}
	return true;
}

static bool atom_path(const struct atom *a, bool absolute, struct m_path *out)
{
	if (a->kind != ATOM_PATH && a->kind != ATOM_STRING && a->kind != ATOM_WORD) {
		error_at(&a->loc, "expected a path, found %s", atom_kind_name(a->kind));
		return false;
	}
	if (absolute && a->kind == ATOM_WORD) {
		bool known = false;
		for (size_t i = 0; i < N(setting_keys); i++)
			known |= strcmp(a->text, setting_keys[i]) == 0;
		if (known)
			error_at(&a->loc, "expected a path, found the key '%s' (a missing ';'?)",
				 a->text);
		else
			error_at(&a->loc, "path '%s' must be absolute (start with '/', '~' or a "
					  "$VARIABLE)",
				 a->text);
		return false;
	}
	return path_parse(a->text, &a->loc, absolute, out);
}

/* ---- mounts ------------------------------------------------------------ */

static void put_mount(struct variant *v, const struct m_mount *m)
{
	for (size_t i = 0; i < v->mounts.n; i++) {
		if (strcmp(v->mounts.v[i].path.text, m->path.text) == 0) {
			v->mounts.v[i] = *m;
			return;
		}
	}
	VEC_PUSH(v->mounts, *m);
}

static const char *op_word(int op)
{
	switch (op) {
	case AJ_MOUNT_RO:
		return "ro";
	case AJ_MOUNT_RW:
		return "rw";
	case AJ_MOUNT_TMPFS:
		return "tmpfs";
	case AJ_MOUNT_LINK:
		return "link";
	case AJ_MOUNT_DEV:
		return "dev";
	case AJ_MOUNT_PROC:
		return "proc";
	case AJ_MOUNT_DEVICE:
		return "device";
	}
	return "?";
}

static bool mount_claim(struct block_state *b, const struct m_mount *m)
{
	char *key = xprintf("mount %s", m->path.text);
	for (struct said *s = b->said; s; s = s->next) {
		if (strcmp(s->key, key) == 0) {
			error_at(&m->loc, "'%s' is mounted twice in this block", m->path.text);
			note_at(&s->loc, "first mounted here");
			return false;
		}
	}
	return say_once(b, key, &m->loc, "");
}

static bool do_mounts(struct variant *v, struct block_state *b, const struct stmt *s)
{
	const char *k = s->key;
	struct m_mount m = {0};
	m.loc = s->loc;
	if (strncmp(k, "ro", 2) == 0) {
		m.op = AJ_MOUNT_RO;
	} else if (strncmp(k, "rw", 2) == 0) {
		m.op = AJ_MOUNT_RW;
	} else {
		m.op = AJ_MOUNT_TMPFS;
		m.mode = 0755;
	}
	if (k[strlen(k) - 1] == '?')
		m.flags |= AJ_MOUNT_OPTIONAL;
	if (k[strlen(k) - 1] == '+')
		m.flags |= AJ_MOUNT_CREATE;
	if (!want_args(s, 1, -1, "ro|rw|tmpfs PATH…;"))
		return false;
	bool ok = true;
	for (const struct atom *a = s->args; a; a = a->next) {
		struct m_mount one = m;
		one.loc = a->loc;
		if (!atom_path(a, true, &one.path)) {
			ok = false;
			continue;
		}
		if (strcmp(one.path.text, "/") == 0) {
			error_at(&a->loc, "cannot mount over '/': the stub builds the root itself");
			ok = false;
			continue;
		}
		if (one.op != AJ_MOUNT_TMPFS && one.path.var == AJ_VAR_HOME && !one.path.tail[0]) {
			error_at(&a->loc,
				 "'%s $HOME' would expose the whole home directory; name the "
				 "directories the tool needs",
				 op_word(one.op));
			ok = false;
			continue;
		}
		if (one.op == AJ_MOUNT_TMPFS && one.path.var == AJ_VAR_HOME && !one.path.tail[0])
			one.mode = 0700;
		if (!mount_claim(b, &one)) {
			ok = false;
			continue;
		}
		put_mount(v, &one);
	}
	return ok;
}

static bool do_link(struct variant *v, struct block_state *b, const struct stmt *s)
{
	const struct atom *a = s->args;
	if (count_args(s) != 3 || a->next->kind != ATOM_ARROW) {
		error_at(a ? &a->loc : &s->loc, "expected: link PATH -> TARGET;");
		return false;
	}
	struct m_mount m = {.op = AJ_MOUNT_LINK, .loc = a->loc};
	/* 'link?': as the host has it (aj_table.h, AJ_MOUNT_AS_HOST). */
	if (!strcmp(s->key, "link?"))
		m.flags |= AJ_MOUNT_AS_HOST;
	if (!atom_path(a, true, &m.path))
		return false;
	const struct atom *t = a->next->next;
	if (t->kind != ATOM_PATH && t->kind != ATOM_WORD && t->kind != ATOM_STRING) {
		error_at(&t->loc, "expected the link's target, found %s", atom_kind_name(t->kind));
		return false;
	}
	if (strchr(t->text, '$') || t->text[0] == '~') {
		error_at(&t->loc, "a link target is written literally: no variables");
		return false;
	}
	m.target = t->text;
	if (!mount_claim(b, &m))
		return false;
	put_mount(v, &m);
	return true;
}

static bool do_fixed_mount(struct variant *v, struct block_state *b, const struct stmt *s)
{
	struct m_mount m = {.loc = s->loc};
	if (strcmp(s->key, "proc") == 0) {
		if (!want_args(s, 0, 0, "proc;"))
			return false;
		m.op = AJ_MOUNT_PROC;
		path_parse("/proc", &s->loc, true, &m.path);
	} else {
		static const char *const kinds[] = {"minimal"};
		if (!want_args(s, 1, 1, "dev minimal;") || choose(s->args, "dev kind", kinds, 1) < 0)
			return false;
		m.op = AJ_MOUNT_DEV;
		path_parse("/dev", &s->loc, true, &m.path);
	}
	if (!mount_claim(b, &m))
		return false;
	put_mount(v, &m);
	return true;
}

/* ---- masks and denies ---------------------------------------------------- */

static bool glob_check(const char *g, const struct loc *loc)
{
	for (const char *p = g; *p; p++) {
		if (*p == '[') {
			const char *q = p + 1;
			if (*q == '!' || *q == '^')
				q++;
			if (*q == ']')
				q++;
			while (*q && *q != ']' && *q != '/')
				q++;
			if (*q != ']') {
				error_at(loc, "unterminated '[' in pattern \"%s\"", g);
				return false;
			}
			p = q;
		} else if (p[0] == '*' && p[1] == '*') {
			bool start_ok = p == g || p[-1] == '/';
			bool end_ok = p[2] == 0 || p[2] == '/';
			if (!start_ok || !end_ok) {
				error_at(loc, "'**' must be a whole path component in \"%s\"", g);
				return false;
			}
			p++;
		} else if (*p == '\\') {
			error_at(loc, "backslash escapes are not supported in patterns");
			return false;
		}
	}
	return true;
}

/* One pattern of mask, deny or scan prune: split into its flags and glob,
 * checked, and added unless an earlier block gave it already. */
static bool add_pattern(struct variant *v, struct block_state *b, const char *key, int kind,
			int flags, const struct atom *a)
{
	struct m_pattern p = {.kind = kind, .flags = flags, .text = a->text, .loc = a->loc};
	char *g = xstrdup(a->text);
	size_t len = strlen(g);
	if (len && g[len - 1] == '/') {
		p.flags |= M_PAT_DIR;
		g[--len] = 0;
	}
	if (g[0] == '/') {
		p.flags |= M_PAT_ANCHORED;
		g++;
	}
	if (!g[0]) {
		error_at(&a->loc, "empty pattern");
		return false;
	}
	if (strstr(g, "//") || strcmp(g, "..") == 0 || strncmp(g, "../", 3) == 0 ||
	    strstr(g, "/../") || (len > 3 && strcmp(g + strlen(g) - 3, "/..") == 0) ||
	    strcmp(g, ".") == 0 || strncmp(g, "./", 2) == 0 || strstr(g, "/./") ||
	    (strlen(g) >= 2 && strcmp(g + strlen(g) - 2, "/.") == 0)) {
		error_at(&a->loc, "impossible pattern \"%s\": patterns are relative to the "
				  "project, without '.', '..' or empty components",
			 a->text);
		return false;
	}
	if (strchr(g, '/'))
		p.flags |= M_PAT_ANCHORED;
	if (!glob_check(g, &a->loc))
		return false;
	for (const char *c = g; *c;) {
		size_t n = strcspn(c, "/");
		if (n > 255) {
			error_at(&a->loc, "a name in pattern \"%s\" is longer than 255 bytes: it can "
					  "never match",
				 a->text);
			return false;
		}
		c += n + (c[n] == '/');
	}
	p.glob = g;
	if (!say_once(b, xprintf("%s %s%s%s", key, p.flags & M_PAT_NOCASE ? "nocase " : "", g,
				 p.flags & M_PAT_DIR ? "/" : ""),
		      &a->loc, "this pattern is already given in this block"))
		return false;
	for (size_t i = 0; i < v->patterns.n; i++) {
		struct m_pattern *o = &v->patterns.v[i];
		if (strcmp(o->glob, p.glob) != 0 ||
		    (o->flags & ~M_PAT_GUARD) != (p.flags & ~M_PAT_GUARD))
			continue;
		if (o->kind != p.kind && o->kind != AJ_PATTERN_PRUNE && p.kind != AJ_PATTERN_PRUNE &&
		    !((o->flags | p.flags) & M_PAT_GUARD)) {
			error_at(&a->loc, "\"%s\" is both masked and denied", a->text);
			note_at(&o->loc, "%s here", o->kind == AJ_PATTERN_MASK ? "masked" : "denied");
			return false;
		}
		if (o->kind == p.kind && (o->flags & M_PAT_GUARD) == (p.flags & M_PAT_GUARD))
			return true;
	}
	VEC_PUSH(v->patterns, p);
	return true;
}

/* Patterns and guarded paths are always quoted: unquoted, '*' and '#'
 * would be read as other tokens. */
static bool quoted(const struct atom *a, const char *noun, const char *usage)
{
	if (a->kind == ATOM_STRING)
		return true;
	error_at(&a->loc, "%s are quoted strings: %s \"%s\"", noun, usage, a->text ? a->text : "…");
	return false;
}

/* mask|deny [nocase] "PATTERN"… */
static bool do_patterns(struct variant *v, struct block_state *b, const struct stmt *s)
{
	int kind = strcmp(s->key, "mask") == 0 ? AJ_PATTERN_MASK : AJ_PATTERN_DENY;
	int flags = 0;
	if (!want_args(s, 1, -1, "mask|deny [nocase] \"PATTERN\"…;"))
		return false;
	const struct atom *a = s->args;
	if (a->kind == ATOM_WORD && strcmp(a->text, "nocase") == 0) {
		flags = M_PAT_NOCASE;
		a = a->next;
		if (!a) {
			error_at(&s->end, "missing patterns after 'nocase'");
			return false;
		}
	}
	bool ok = true;
	for (; a; a = a->next) {
		if (a->kind == ATOM_WORD && strcmp(a->text, "nocase") == 0) {
			error_at(&a->loc, "'nocase' comes first: %s nocase \"PATTERN\"…;", s->key);
			ok = false;
		} else if (!quoted(a, "patterns", s->key)) {
			ok = false;
		} else {
			ok = add_pattern(v, b, s->key, kind, flags, a) && ok;
		}
	}
	return ok;
}

/* scan guard "PATH"…: a path that must not become readable during the run.
 * Present, it is masked like any pattern; absent, the stub's fence may
 * keep it unreadable (stub/mask.c). */
static bool do_guard(struct variant *v, struct block_state *b, const struct atom *a)
{
	bool ok = true;
	for (; a; a = a->next) {
		if (!quoted(a, "paths", "scan guard")) {
			ok = false;
			continue;
		}
		if (strpbrk(a->text, "*?[")) {
			error_at(&a->loc, "a guard names one path, from the project root, without '*', "
					  "'?' or '[': \"%s\"",
				 a->text);
			ok = false;
			continue;
		}
		ok = add_pattern(v, b, "scan guard", AJ_PATTERN_MASK, M_PAT_ANCHORED | M_PAT_GUARD,
				 a) &&
		     ok;
	}
	return ok;
}

/* scan prune "DIR"… | none;   scan depth N [fail|deny];   scan guard "PATH"…; */
static bool do_scan(struct variant *v, struct block_state *b, const struct stmt *s)
{
	static const char *const verbs[] = {"prune", "depth", "guard"};
	static const char *const bounds[] = {"fail", "deny"};
	const char *usage = "scan prune \"DIR\"…; scan depth N [fail|deny]; or scan guard \"PATH\"…;";
	if (!want_args(s, 2, -1, usage))
		return false;
	int verb = choose(s->args, "scan setting", verbs, 3);
	if (verb < 0)
		return false;
	const struct atom *a = s->args->next;
	if (verb == 2)
		return do_guard(v, b, a);
	if (verb == 1) {
		if (!want_args(s, 2, 3, "scan depth N [fail|deny];"))
			return false;
		if (a->kind != ATOM_NUMBER || a->num < 1 || a->num > AJ_SCAN_DEPTH_MAX) {
			error_at(&a->loc, "scan depth is a number of path components, 1 to %d",
				 AJ_SCAN_DEPTH_MAX);
			return false;
		}
		int bound = AJ_SCAN_BOUND_FAIL;
		if (a->next) {
			bound = choose(a->next, "depth bound", bounds, 2);
			if (bound < 0)
				return false;
		}
		if (!say_once(b, "scan depth", &s->loc, "'scan depth' is already set in this block"))
			return false;
		v->scan_depth = (int)a->num;
		v->scan_bound = bound == 1 ? AJ_SCAN_BOUND_DENY : AJ_SCAN_BOUND_FAIL;
		return true;
	}
	if (a->kind == ATOM_WORD && strcmp(a->text, "none") == 0) {
		if (a->next) {
			error_at(&a->next->loc, "'scan prune none;' stands alone");
			return false;
		}
		if (!say_once(b, "scan prune none", &a->loc,
			      "'scan prune none' is already given in this block"))
			return false;
		size_t n = 0;
		for (size_t i = 0; i < v->patterns.n; i++)
			if (v->patterns.v[i].kind != AJ_PATTERN_PRUNE)
				v->patterns.v[n++] = v->patterns.v[i];
		v->patterns.n = n;
		return true;
	}
	bool ok = true;
	for (; a; a = a->next) {
		if (!quoted(a, "patterns", "scan prune")) {
			ok = false;
			continue;
		}
		ok = add_pattern(v, b, "scan prune", AJ_PATTERN_PRUNE, M_PAT_DIR, a) && ok;
	}
	return ok;
}

/* ---- environment --------------------------------------------------------- */

static bool env_name_ok(const char *n, bool glob)
{
	if (!*n)
		return false;
	for (const char *p = n; *p; p++) {
		bool alpha = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || *p == '_';
		bool digit = *p >= '0' && *p <= '9';
		bool g = glob && (*p == '*' || *p == '?');
		if (!alpha && !(digit && p != n) && !g)
			return false;
	}
	return true;
}

static void env_list_add(m_env_list *l, const char *pattern, const struct loc *loc)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].pattern, pattern) == 0)
			return;
	VEC_PUSH(*l, ((struct m_env_keep){xstrdup(pattern), loc ? *loc : (struct loc){0}}));
}

/* keep and drop are both lists that accumulate; at run time a variable
 * is passed when a keep pattern matches it and no drop pattern does, so
 * a mode can take back what the policy or a command group keeps. */
static bool do_env(struct variant *v, struct block_state *b, const struct stmt *s)
{
	static const char *const verbs[] = {"keep", "set", "drop"};
	if (!want_args(s, 2, -1, "env keep NAME…; env drop NAME…; or env set NAME=VALUE…;"))
		return false;
	int verb = choose(s->args, "env verb", verbs, N(verbs));
	if (verb < 0)
		return false;
	bool ok = true;
	for (const struct atom *a = s->args->next; a; a = a->next) {
		if (verb != 1) {
			const char *n = word_of(a);
			if (!n || !env_name_ok(n, true)) {
				error_at(&a->loc, "expected a variable name or pattern (quote "
						  "patterns: \"LC_*\")");
				ok = false;
				continue;
			}
			if (!say_once(b, xprintf("env %s %s", verbs[verb], n), &a->loc,
				      verb == 0 ? "this variable is already kept in this block"
						: "this variable is already dropped in this block")) {
				ok = false;
				continue;
			}
			env_list_add(verb == 0 ? &v->env_keep : &v->env_drop, n, &a->loc);
			continue;
		}
		if (a->kind != ATOM_ASSIGN) {
			error_at(&a->loc, "expected NAME=VALUE after 'env set'");
			ok = false;
			continue;
		}
		if (!env_name_ok(a->text, false)) {
			error_at(&a->loc, "'%s' is not a valid variable name", a->text);
			ok = false;
			continue;
		}
		const struct atom *val = a->value;
		struct m_env_set e = {.name = a->text, .loc = a->loc};
		const char *text = val->kind == ATOM_NUMBER ? xprintf("%llu", (unsigned long long)val->num)
							    : val->text;
		if (!text || !path_parse(text, &val->loc, false, &e.value)) {
			ok = false;
			continue;
		}
		if (!say_once(b, xprintf("env set %s", a->text), &a->loc,
			      "this variable is already set in this block")) {
			ok = false;
			continue;
		}
		bool replaced = false;
		for (size_t i = 0; i < v->env_set.n; i++) {
			if (strcmp(v->env_set.v[i].name, e.name) == 0) {
				v->env_set.v[i] = e;
				replaced = true;
			}
		}
		if (!replaced)
			VEC_PUSH(v->env_set, e);
	}
	return ok;
}

/* ---- scalars --------------------------------------------------------------- */

static const struct {
	const char *name;
	int resource;
} rlimits[] = {
	{"as", RLIMIT_AS},       {"core", RLIMIT_CORE},       {"cpu", RLIMIT_CPU},
	{"data", RLIMIT_DATA},   {"fsize", RLIMIT_FSIZE},     {"memlock", RLIMIT_MEMLOCK},
	{"nofile", RLIMIT_NOFILE}, {"nproc", RLIMIT_NPROC},   {"stack", RLIMIT_STACK},
	{"msgqueue", RLIMIT_MSGQUEUE}, {"sigpending", RLIMIT_SIGPENDING},
};

static bool rlimit_value(const struct atom *a, uint64_t *out)
{
	if (a->kind == ATOM_NUMBER) {
		*out = a->num;
		return true;
	}
	if (a->kind == ATOM_WORD && strcmp(a->text, "unlimited") == 0) {
		*out = UINT64_MAX;
		return true;
	}
	error_at(&a->loc, "expected a number or 'unlimited'");
	return false;
}

static bool do_rlimit(struct variant *v, struct block_state *b, const struct stmt *s)
{
	if (!want_args(s, 2, 3, "rlimit NAME SOFT [HARD];"))
		return false;
	const char *names[N(rlimits)];
	for (size_t i = 0; i < N(rlimits); i++)
		names[i] = rlimits[i].name;
	int r = choose(s->args, "rlimit", names, N(rlimits));
	if (r < 0)
		return false;
	/* The stub derives it from the jail's bound: two sources would
	 * disagree on which one holds. */
	if (rlimits[r].resource == RLIMIT_NPROC) {
		error_at(&s->args->loc,
			 "'rlimit nproc' is set by 'limit processes N;', the jail's bound on tasks");
		return false;
	}
	struct m_rlimit l = {.resource = rlimits[r].resource, .name = rlimits[r].name,
			     .loc = s->args->loc};
	if (!rlimit_value(s->args->next, &l.soft))
		return false;
	l.hard = l.soft;
	if (s->args->next->next && !rlimit_value(s->args->next->next, &l.hard))
		return false;
	if (l.soft > l.hard) {
		error_at(&s->args->next->loc, "soft limit above the hard limit");
		return false;
	}
	if (!say_once(b, xprintf("rlimit %s", l.name), &s->args->loc,
		      "this rlimit is already set in this block"))
		return false;
	for (size_t i = 0; i < v->rlimits.n; i++) {
		if (v->rlimits.v[i].resource == l.resource) {
			v->rlimits.v[i] = l;
			return true;
		}
	}
	VEC_PUSH(v->rlimits, l);
	return true;
}

/* What a runaway meets (aj_variant.memory and .processes): one bound for the
 * whole jail where the stub has a cgroup, each process's otherwise. */
static const char *const limit_names[] = {"memory", "processes"};

/* PID_MAX_LIMIT on 64-bit: Linux never has more tasks than that. */
#define LIMIT_PROCESSES_MAX 4194304
/* Less than that cannot start a dynamic executable. */
#define LIMIT_MEMORY_MIN (1ULL << 20)

const char *limit_memory_text(uint64_t m)
{
	static const char suffix[] = "KMGT";
	if (!m)
		return "unlimited";
	if (m & AJ_MEMORY_PERCENT)
		return xprintf("%llu percent", (unsigned long long)(m & ~AJ_MEMORY_PERCENT));
	int k = 0;
	while (k < 4 && m % 1024 == 0) {
		m /= 1024;
		k++;
	}
	return k ? xprintf("%llu%c", (unsigned long long)m, suffix[k - 1])
		 : xprintf("%llu bytes", (unsigned long long)m);
}

/* 'unlimited', or an error that suggests it. */
static bool limit_unlimited(const struct atom *a, const char *expected)
{
	static const char *const un[] = {"unlimited"};
	const char *w = word_of(a);
	if (w && !strcmp(w, "unlimited"))
		return true;
	const char *hint = w ? suggest(w, un, 1) : NULL;
	if (hint)
		error_at(&a->loc, "expected %s; did you mean 'unlimited'?", expected);
	else
		error_at(&a->loc, "expected %s", expected);
	return false;
}

static bool limit_memory(const struct atom *a, uint64_t *out)
{
	static const char *const units[] = {"percent"};
	static const char expected[] =
	    "a size (512M, 4G), a share of physical memory (25 percent) or 'unlimited'";
	const struct atom *unit = a->next;
	if (a->kind != ATOM_NUMBER) {
		if (!limit_unlimited(a, expected))
			return false;
		if (unit) {
			error_at(&unit->loc, "nothing follows 'unlimited'");
			return false;
		}
		*out = 0;
		return true;
	}
	if (unit) {
		const char *w = word_of(unit);
		if (!w || strcmp(w, "percent") != 0) {
			const char *hint = w ? suggest(w, units, 1) : NULL;
			if (hint)
				error_at(&unit->loc, "unknown unit '%s'; did you mean 'percent'?",
					 w);
			else
				error_at(&unit->loc,
					 "expected 'percent' after the number, or nothing: %s",
					 expected);
			return false;
		}
		if (a->num < 1 || a->num > 100) {
			error_at(&a->loc, "a share of physical memory is 1 to 100 percent");
			return false;
		}
		*out = AJ_MEMORY_PERCENT | a->num;
		return true;
	}
	if (a->num >= AJ_MEMORY_PERCENT) {
		error_at(&a->loc, "a memory limit must be below 8E (2^63 bytes)");
		return false;
	}
	/* A plain number is bytes: 'limit memory 512;' was surely not meant. */
	if (a->num < LIMIT_MEMORY_MIN) {
		if (a->num)
			error_at(&a->loc,
				 "%llu bytes cannot run a program (the least is 1M); did you mean "
				 "'%lluM'?",
				 (unsigned long long)a->num, (unsigned long long)a->num);
		else
			error_at(&a->loc, "a memory limit is at least 1M; 'unlimited' means none");
		return false;
	}
	*out = a->num;
	return true;
}

static bool do_limit(struct variant *v, struct block_state *b, const struct stmt *s)
{
	if (!want_args(s, 2, 3, "limit memory SIZE|N percent|unlimited; or limit processes N;"))
		return false;
	int k = choose(s->args, "limit", limit_names, N(limit_names));
	if (k < 0)
		return false;
	const struct atom *a = s->args->next;
	uint64_t memory = 0, processes = 0;
	if (k == 0) {
		if (!limit_memory(a, &memory))
			return false;
	} else if (a->kind == ATOM_NUMBER) {
		if (a->next) {
			error_at(&a->next->loc,
				 "a process limit is a number of tasks, or 'unlimited'");
			return false;
		}
		if (a->num < 1 || a->num > LIMIT_PROCESSES_MAX) {
			error_at(&a->loc, "a process limit is 1 to %d tasks, or 'unlimited'",
				 LIMIT_PROCESSES_MAX);
			return false;
		}
		processes = a->num;
	} else if (!limit_unlimited(a, "a number of processes or 'unlimited'")) {
		return false;
	} else if (a->next) {
		error_at(&a->next->loc, "nothing follows 'unlimited'");
		return false;
	}
	if (!say_once(b, xprintf("limit %s", limit_names[k]), &s->args->loc,
		      "this limit is already set in this block"))
		return false;
	if (k == 0) {
		v->memory = memory;
		v->memory_loc = s->loc;
	} else {
		v->processes = (uint32_t)processes;
		v->processes_loc = s->loc;
	}
	return true;
}

static bool do_scalar(struct variant *v, struct block_state *b, const struct stmt *s)
{
	const char *k = s->key;
	if (!say_once(b, k, &s->loc, xprintf("'%s' is already set in this block", k)))
		return false;
	if (strcmp(k, "hostname") == 0) {
		if (!want_args(s, 1, 1, "hostname NAME;"))
			return false;
		const char *h = word_of(s->args);
		bool ok = h && h[0] && strlen(h) <= 64;
		for (const char *p = h; ok && *p; p++)
			ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			     (*p >= '0' && *p <= '9') || *p == '-' || *p == '.';
		if (!ok) {
			error_at(&s->args->loc, "a hostname is 1 to 64 letters, digits, '-' or '.'");
			return false;
		}
		v->hostname = h;
		return true;
	}
	if (strcmp(k, "network") == 0) {
		if (!want_args(s, 1, 1, "network none|blocked|loopback|host;"))
			return false;
		int n = choose(s->args, "network", net_names, AJ_NET_COUNT);
		if (n < 0)
			return false;
		v->network = n; /* the order of enum aj_network */
		if (b->mode)
			v->flags |= AJ_VARIANT_NET_FIXED;
		return true;
	}
	if (strcmp(k, "landlock") == 0) {
		static const char *const lv[] = {"off", "on", "require"};
		if (!want_args(s, 1, 2, "landlock on|off|require [ABI];"))
			return false;
		int n = choose(s->args, "landlock level", lv, 3);
		if (n < 0)
			return false;
		v->landlock = n == 0 ? AJ_LANDLOCK_OFF : n == 1 ? AJ_LANDLOCK_ON : AJ_LANDLOCK_REQUIRE;
		v->landlock_min_abi = n == 2 ? 1 : 0;
		const struct atom *abi = s->args->next;
		if (abi) {
			if (n != 2 || abi->kind != ATOM_NUMBER || abi->num < 1 || abi->num > 255) {
				error_at(&abi->loc, "only 'landlock require' takes an ABI version "
						    "(1 to 255)");
				return false;
			}
			v->landlock_min_abi = (int)abi->num;
		}
		return true;
	}
	/* 'fallback landlock;': where no user namespace can be had, run with
	 * Landlock and the other layers alone (stub/fallback.c); 'fallback
	 * none;' fails closed, the default. */
	if (strcmp(k, "fallback") == 0) {
		static const char *const fv[] = {"none", "landlock"};
		if (!want_args(s, 1, 1, "fallback none|landlock;"))
			return false;
		int n = choose(s->args, "fallback", fv, 2);
		if (n < 0)
			return false;
		v->flags = n ? (v->flags | AJ_VARIANT_FALLBACK) : (v->flags & ~AJ_VARIANT_FALLBACK);
		return true;
	}
	if (strcmp(k, "timeout") == 0) {
		if (!want_args(s, 1, 1, "timeout SECONDS;"))
			return false;
		if (s->args->kind != ATOM_NUMBER || s->args->num > INT32_MAX) {
			error_at(&s->args->loc, "expected a number of seconds");
			return false;
		}
		v->timeout = (uint32_t)s->args->num;
		return true;
	}
	/* gpu, docker, display */
	static const char *const onoff[] = {"off", "on"};
	if (!want_args(s, 1, 1, xprintf("%s on|off;", k)))
		return false;
	int on = choose(s->args, xprintf("%s setting", k), onoff, 2);
	if (on < 0)
		return false;
	int bit = 0;
	for (int t = 0; t < AJ_TOGGLE_COUNT; t++)
		if (strcmp(k, toggle_names[t]) == 0)
			bit = 1 << t;
	v->features = on ? (v->features | bit) : (v->features & ~bit);
	return true;
}

/* ---- syscalls ---------------------------------------------------------------- */

static bool parse_action(const struct atom **ap, int *action, bool for_default)
{
	static const char *const verbs[] = {"allow", "deny", "kill", "return"};
	const struct atom *a = *ap;
	int verb = choose(a, for_default ? "syscalls default" : "syscalls verb", verbs, N(verbs));
	if (verb < 0)
		return false;
	*action = verb == 0 ? M_ACT_ALLOW : verb == 1 ? EPERM : M_ACT_KILL;
	if (verb == 3) {
		const struct atom *e = a->next;
		if (e && e->kind == ATOM_NUMBER && e->num >= 1 && e->num < 4096) {
			*action = (int)e->num;
		} else if (e && e->kind == ATOM_WORD && errno_lookup(e->text) > 0) {
			*action = errno_lookup(e->text);
		} else {
			error_at(e ? &e->loc : &a->loc,
				 "expected an errno name (EPERM, ENOSYS, …) or number after 'return'");
			return false;
		}
		a = e;
	}
	*ap = a->next;
	return true;
}

static bool do_syscalls(struct variant *v, struct block_state *b, const struct stmt *s)
{
	if (!want_args(s, 2, -1, "syscalls allow|deny|kill|return ERRNO TARGET…;"))
		return false;
	const struct atom *a = s->args;
	if (word_of(a) && strcmp(a->text, "default") == 0) {
		if (!say_once(b, "syscalls default", &s->loc,
			      "'syscalls default' is already set in this block"))
			return false;
		a = a->next;
		int action;
		if (!parse_action(&a, &action, true))
			return false;
		if (a) {
			error_at(&a->loc, "expected: syscalls default allow|deny|kill|return ERRNO;");
			return false;
		}
		v->sys_default = action;
		return true;
	}
	int action;
	if (!parse_action(&a, &action, false))
		return false;
	if (!a) {
		error_at(&s->end, "missing syscalls to %s", s->args->text);
		return false;
	}
	return syscalls_add(v, a, action, b->id);
}

/* ---- blocks -------------------------------------------------------------------- */

enum block_kind { BLOCK_POLICY, BLOCK_MODE, BLOCK_COMMAND };

static bool apply_setting(struct variant *v, struct block_state *b, const struct stmt *s)
{
	const char *k = s->key;
	if (s->has_block) {
		error_at(&s->end, "'%s' takes no block", k);
		return false;
	}
	if (!strncmp(k, "ro", 2) || !strncmp(k, "rw", 2) || !strcmp(k, "tmpfs"))
		return do_mounts(v, b, s);
	if (!strcmp(k, "link") || !strcmp(k, "link?"))
		return do_link(v, b, s);
	if (!strcmp(k, "dev") || !strcmp(k, "proc"))
		return do_fixed_mount(v, b, s);
	if (!strcmp(k, "mask") || !strcmp(k, "deny"))
		return do_patterns(v, b, s);
	if (!strcmp(k, "scan"))
		return do_scan(v, b, s);
	if (!strcmp(k, "env"))
		return do_env(v, b, s);
	if (!strcmp(k, "rlimit"))
		return do_rlimit(v, b, s);
	if (!strcmp(k, "limit"))
		return do_limit(v, b, s);
	if (!strcmp(k, "syscalls"))
		return do_syscalls(v, b, s);
	return do_scalar(v, b, s);
}

static bool is_setting(const char *k)
{
	for (size_t i = 0; i < N(setting_keys); i++)
		if (strcmp(k, setting_keys[i]) == 0)
			return true;
	return false;
}

static bool is_policy_key(const char *k)
{
	for (size_t i = 0; i < N(policy_keys); i++)
		if (strcmp(k, policy_keys[i]) == 0)
			return true;
	return false;
}

static void unknown_key(const struct stmt *s, enum block_kind kind)
{
	const char *all[N(setting_keys) + N(policy_keys)];
	size_t n = 0;
	for (size_t i = 0; i < N(setting_keys); i++)
		all[n++] = setting_keys[i];
	for (size_t i = 0; i < N(policy_keys); i++)
		all[n++] = policy_keys[i];
	if (is_policy_key(s->key)) {
		error_at(&s->loc, "'%s' is only allowed directly in a policy, not inside a %s block",
			 s->key, kind == BLOCK_MODE ? "mode" : "command");
		return;
	}
	const char *hint = suggest(s->key, all, n);
	if (hint)
		error_at(&s->loc, "unknown key '%s'; did you mean '%s'?", s->key, hint);
	else
		error_at(&s->loc, "unknown key '%s'", s->key);
}

/* Applies the settings of one block; structure keys (exec, mode, command,
 * default) are checked here and acted upon by compile_policy(). */
static bool apply_block(struct variant *v, const struct stmt *list, const void *id,
			enum block_kind kind)
{
	struct block_state b = {NULL, id, kind == BLOCK_MODE};
	bool ok = true;
	for (const struct stmt *s = list; s; s = s->next) {
		if (is_setting(s->key)) {
			ok = apply_setting(v, &b, s) && ok;
		} else if (kind != BLOCK_POLICY || !is_policy_key(s->key)) {
			unknown_key(s, kind);
			ok = false;
		}
	}
	return ok;
}

/* ---- the structure of a policy: exec, modes, commands -------------------------- */

typedef VEC(const struct policy *) chain_t;

static int mode_index(const struct compiled *c, const char *name)
{
	for (size_t i = 0; i < c->modes.n; i++)
		if (strcmp(c->modes.v[i], name) == 0)
			return (int)i;
	return -1;
}

static bool check_mode_stmt(struct compiled *c, const struct stmt *s, struct block_state *b)
{
	const struct atom *a = s->args;
	if (!a || a->kind != ATOM_WORD) {
		error_at(a ? &a->loc : &s->loc, "expected: mode NAME [when env VAR…] { … }");
		return false;
	}
	if (!s->has_block) {
		error_at(&s->end, "expected '{' to open the body of mode '%s'", a->text);
		return false;
	}
	if (!say_once(b, xprintf("mode %s", a->text), &a->loc,
		      xprintf("mode '%s' is defined twice in this policy", a->text)))
		return false;
	if (mode_index(c, a->text) < 0) {
		if (c->modes.n >= 16) {
			error_at(&a->loc, "too many modes (at most 16)");
			return false;
		}
		/* The stub records it in the jail's NIS domain name (64 bytes),
		 * for the jails started inside (stub/mode.c). */
		if (strlen(a->text) > 48) {
			error_at(&a->loc, "a mode's name has at most 48 characters");
			return false;
		}
		VEC_PUSH(c->modes, a->text);
		VEC_PUSH(c->mode_locs, a->loc);
	}
	int m = mode_index(c, a->text);
	a = a->next;
	if (!a)
		return true;
	if (a->kind != ATOM_WORD || strcmp(a->text, "when") != 0 || !a->next ||
	    a->next->kind != ATOM_WORD || strcmp(a->next->text, "env") != 0 || !a->next->next) {
		error_at(&a->loc, "expected: mode NAME when env VAR… { … }");
		return false;
	}
	for (a = a->next->next; a; a = a->next) {
		if (a->kind != ATOM_WORD || !env_name_ok(a->text, false)) {
			error_at(&a->loc, "expected an environment variable name");
			return false;
		}
		bool dup = false;
		for (size_t i = 0; i < c->triggers.n; i++) {
			if (strcmp(c->triggers.v[i].env, a->text) == 0) {
				if (c->triggers.v[i].mode != m) {
					error_at(&a->loc, "$%s already selects mode '%s'", a->text,
						 c->modes.v[c->triggers.v[i].mode]);
					return false;
				}
				dup = true;
			}
		}
		if (!dup)
			VEC_PUSH(c->triggers, ((struct aj_trigger){a->text, (uint8_t)m}));
	}
	return true;
}

static bool check_command_stmt(struct compiled *c, const struct program *prog, const struct stmt *s)
{
	const struct atom *a = s->args;
	if (!a) {
		error_at(&s->loc, "expected: command NAME… use POLICY; or command NAME… { … }");
		return false;
	}
	struct command_group g = {0};
	const struct atom *names = a, *end = NULL;
	for (; a; a = a->next) {
		if (a->kind == ATOM_WORD && strcmp(a->text, "use") == 0) {
			end = a;
			break;
		}
		if (a->kind != ATOM_WORD || strchr(a->text, '/')) {
			error_at(&a->loc, "expected a command name (a basename such as python3)");
			return false;
		}
	}
	if (end) {
		if (s->has_block || !end->next || end->next->kind != ATOM_WORD || end->next->next) {
			error_at(&end->loc, "expected: command NAME… use POLICY;");
			return false;
		}
		const struct policy *from = program_find(prog, end->next->text);
		if (!from) {
			error_at(&end->next->loc, "unknown policy '%s' (is its file included?)",
				 end->next->text);
			return false;
		}
		g.from = from;
		g.overlay = from->stmt->body;
	} else if (s->has_block) {
		g.overlay = s->body;
	} else {
		error_at(&s->end, "expected 'use POLICY' or a block after the command names");
		return false;
	}
	if (names == end) {
		error_at(&names->loc, "expected at least one command name before 'use'");
		return false;
	}
	g.name = names->text;
	int group = (int)c->groups.n;
	if (group > 200) {
		error_at(&s->loc, "too many command groups");
		return false;
	}
	for (a = names; a != end; a = a->next) {
		for (size_t i = 0; i < c->commands.n; i++) {
			if (strcmp(c->commands.v[i].name, a->text) == 0) {
				error_at(&a->loc, "command '%s' is already mapped", a->text);
				return false;
			}
		}
		VEC_PUSH(c->commands, ((struct aj_command){a->text, (uint8_t)group}));
	}
	VEC_PUSH(c->groups, g);
	return true;
}

static bool collect_structure(struct compiled *c, const struct program *prog, const chain_t *chain)
{
	bool ok = true;
	VEC_PUSH(c->modes, "normal");
	VEC_PUSH(c->mode_locs, ((struct loc){0}));
	VEC_PUSH(c->groups, ((struct command_group){"", NULL, NULL}));
	const char *default_mode = NULL;
	struct loc default_loc = {0};
	for (size_t i = 0; i < chain->n; i++) {
		struct block_state b = {0};
		for (const struct stmt *s = chain->v[i]->stmt->body; s; s = s->next) {
			if (strcmp(s->key, "mode") == 0) {
				ok = check_mode_stmt(c, s, &b) && ok;
			} else if (strcmp(s->key, "command") == 0) {
				ok = check_command_stmt(c, prog, s) && ok;
			} else if (strcmp(s->key, "exec") == 0) {
				if (!say_once(&b, "exec", &s->loc, "'exec' is already set in this policy"))
					ok = false;
				else if (s->has_block || !want_args(s, 1, 1, "exec COMMAND;"))
					ok = false;
				else if (s->args->kind == ATOM_WORD || s->args->kind == ATOM_STRING ||
					 s->args->kind == ATOM_PATH)
					c->exec = s->args->text;
				else {
					error_at(&s->args->loc, "expected a command after 'exec'");
					ok = false;
				}
			} else if (strcmp(s->key, "default") == 0) {
				const struct atom *a = s->args;
				if (!a || a->kind != ATOM_WORD || strcmp(a->text, "mode") != 0 ||
				    !a->next || a->next->kind != ATOM_WORD || a->next->next ||
				    s->has_block) {
					error_at(a ? &a->loc : &s->loc, "expected: default mode NAME;");
					ok = false;
				} else if (!say_once(&b, "default", &s->loc,
						     "'default mode' is already set in this policy")) {
					ok = false;
				} else {
					default_mode = a->next->text;
					default_loc = a->next->loc;
				}
			}
		}
	}
	if (default_mode) {
		int m = mode_index(c, default_mode);
		if (m < 0) {
			const char *hint = suggest(default_mode, c->modes.v, c->modes.n);
			if (hint)
				error_at(&default_loc, "unknown mode '%s'; did you mean '%s'?",
					 default_mode, hint);
			else
				error_at(&default_loc, "unknown mode '%s'", default_mode);
			ok = false;
		}
		c->default_mode = m < 0 ? 0 : m;
	}
	if (c->exec && c->groups.n > 1) {
		error_at(&chain->v[chain->n - 1]->loc,
			 "policy '%s' has both 'exec' and 'command' groups: a fixed target "
			 "never chooses by command name",
			 chain->v[chain->n - 1]->name);
		ok = false;
	}
	return ok;
}

/* What the toggles mean.  GPU: the NVIDIA nodes (the [0-9] keeps
 * nvidia-caps, a directory, to its own entry), DRM render and card nodes,
 * ROCm's kfd, and the read-only /sys the drivers' user-space libraries
 * read (PCI topology, the DRM and kfd classes, the NVIDIA modules), the
 * latter only on a host that has one of the nodes.  Docker: the Unix
 * socket.  Display: the X11 socket of a local $DISPLAY, the Wayland socket
 * of $WAYLAND_DISPLAY (never the rest of $XDG_RUNTIME_DIR), the X
 * authority file.  A toggle that is on keeps its variables; one that is
 * off drops them, whatever else keeps them. */
static void add_feature_mounts(struct variant *v)
{
	enum { GPU_SYS = AJ_MOUNT_OPTIONAL | AJ_MOUNT_WITH_DEVICES };
	static const struct {
		int feature, op, flags;
		const char *path;
	} dev[] = {
		{AJ_FEATURE_GPU, AJ_MOUNT_DEVICE, AJ_MOUNT_OPTIONAL, "/dev/nvidiactl"},
		{AJ_FEATURE_GPU, AJ_MOUNT_DEVICE, AJ_MOUNT_OPTIONAL, "/dev/nvidia[0-9]*"},
		{AJ_FEATURE_GPU, AJ_MOUNT_DEVICE, AJ_MOUNT_OPTIONAL, "/dev/nvidia-uvm"},
		{AJ_FEATURE_GPU, AJ_MOUNT_DEVICE, AJ_MOUNT_OPTIONAL, "/dev/nvidia-uvm-tools"},
		{AJ_FEATURE_GPU, AJ_MOUNT_DEVICE, AJ_MOUNT_OPTIONAL, "/dev/nvidia-modeset"},
		{AJ_FEATURE_GPU, AJ_MOUNT_DEVICE, AJ_MOUNT_OPTIONAL, "/dev/nvidia-caps/*"},
		{AJ_FEATURE_GPU, AJ_MOUNT_DEVICE, AJ_MOUNT_OPTIONAL, "/dev/dri/*"},
		{AJ_FEATURE_GPU, AJ_MOUNT_DEVICE, AJ_MOUNT_OPTIONAL, "/dev/kfd"},
		{AJ_FEATURE_GPU, AJ_MOUNT_RO, GPU_SYS, "/sys/devices"},
		{AJ_FEATURE_GPU, AJ_MOUNT_RO, GPU_SYS, "/sys/bus/pci"},
		{AJ_FEATURE_GPU, AJ_MOUNT_RO, GPU_SYS, "/sys/class/drm"},
		{AJ_FEATURE_GPU, AJ_MOUNT_RO, GPU_SYS, "/sys/class/kfd"},
		{AJ_FEATURE_GPU, AJ_MOUNT_RO, GPU_SYS, "/sys/module/nvidia"},
		{AJ_FEATURE_GPU, AJ_MOUNT_RO, GPU_SYS, "/sys/module/nvidia_uvm"},
		{AJ_FEATURE_DOCKER, AJ_MOUNT_RW, AJ_MOUNT_OPTIONAL, "$DOCKER_SOCKET"},
		{AJ_FEATURE_DISPLAY, AJ_MOUNT_RO, AJ_MOUNT_OPTIONAL, "$X11_SOCKET"},
		{AJ_FEATURE_DISPLAY, AJ_MOUNT_RO, AJ_MOUNT_OPTIONAL, "$WAYLAND_SOCKET"},
		{AJ_FEATURE_DISPLAY, AJ_MOUNT_RO, AJ_MOUNT_OPTIONAL, "$XAUTHORITY"},
	};
	static const struct {
		int feature;
		bool drop_when_off;
		const char *name;
	} env[] = {
		{AJ_FEATURE_GPU, true, "CUDA_*"},
		{AJ_FEATURE_GPU, true, "NVIDIA_*"},
		{AJ_FEATURE_GPU, true, "ROCR_*"},
		{AJ_FEATURE_GPU, true, "HIP_*"},
		{AJ_FEATURE_GPU, true, "HSA_*"},
		{AJ_FEATURE_GPU, true, "GPU_DEVICE_ORDINAL"},
		{AJ_FEATURE_DOCKER, true, "DOCKER_HOST"},
		{AJ_FEATURE_DISPLAY, true, "DISPLAY"},
		{AJ_FEATURE_DISPLAY, true, "WAYLAND_DISPLAY"},
		{AJ_FEATURE_DISPLAY, true, "XAUTHORITY"},
		{AJ_FEATURE_DISPLAY, false, "XDG_RUNTIME_DIR"}, /* a relative $WAYLAND_DISPLAY */
	};
	for (size_t i = 0; i < N(dev); i++) {
		if (!(v->features & dev[i].feature))
			continue;
		struct m_mount m = {.op = dev[i].op, .flags = dev[i].flags,
				    .toggle = 1 + __builtin_ctz((unsigned)dev[i].feature)};
		m.path.text = xstrdup(dev[i].path);
		if (dev[i].path[0] == '$') {
			path_parse(dev[i].path, NULL, false, &m.path);
		} else {
			m.path.head = m.path.text;
			m.path.tail = xstrdup("");
		}
		put_mount(v, &m);
	}
	for (size_t i = 0; i < N(env); i++) {
		if (v->features & env[i].feature)
			env_list_add(&v->env_keep, env[i].name, NULL);
		else if (env[i].drop_when_off)
			env_list_add(&v->env_drop, env[i].name, NULL);
	}
}

static int path_depth(const struct m_mount *m)
{
	int d = 0;
	for (const char *p = m->path.text; *p; p++)
		d += *p == '/';
	return d;
}

/* Parents before children for fixed paths; paths that start with a runtime
 * variable go last, and the stub orders them by their resolved depth. */
static int mount_order(const struct m_mount *m)
{
	return m->path.var && !m->path.head[0] ? 1000 + path_depth(m) : path_depth(m);
}

static void sort_mounts(struct variant *v)
{
	for (size_t i = 1; i < v->mounts.n; i++) {
		struct m_mount cur = v->mounts.v[i];
		size_t j = i;
		while (j > 0 && mount_order(&v->mounts.v[j - 1]) > mount_order(&cur)) {
			v->mounts.v[j] = v->mounts.v[j - 1];
			j--;
		}
		v->mounts.v[j] = cur;
	}
}

/* Landlock mirrors the mount table: what is mounted read-only is readable
 * and executable, what is mounted writable is fully usable, nothing else.
 * Each mount carries its own rights (the stub adds the rule only when it
 * made the mount); the root itself, the one rule that is not a mount's,
 * only lets directories be listed. */
static void derive_landlock(struct variant *v)
{
	struct m_path root;
	path_parse("/", NULL, false, &root);
	VEC_PUSH(v->landlock_paths, root);
	VEC_PUSH(v->landlock_rules, ((struct aj_landlock_rule){{0}, AJ_LL_READ_DIR, 0}));
	for (size_t i = 0; i < v->mounts.n; i++) {
		struct m_mount *m = &v->mounts.v[i];
		switch (m->op) {
		case AJ_MOUNT_RO:
			m->landlock = AJ_LL_RIGHTS_READ;
			break;
		case AJ_MOUNT_RW:
		case AJ_MOUNT_TMPFS:
			m->landlock = AJ_LL_RIGHTS_ALL;
			break;
		case AJ_MOUNT_DEV:
			m->landlock =
			    AJ_LL_RIGHTS_ALL & ~(AJ_LL_MAKE_CHAR | AJ_LL_MAKE_BLOCK | AJ_LL_EXECUTE);
			break;
		case AJ_MOUNT_PROC:
			m->landlock = AJ_LL_READ_FILE | AJ_LL_READ_DIR | AJ_LL_WRITE_FILE;
			break;
		case AJ_MOUNT_LINK:
			/* 'link?' is bound read-only where the host has a directory. */
			m->landlock = m->flags & AJ_MOUNT_AS_HOST ? AJ_LL_RIGHTS_READ : 0;
			break;
		default:
			m->landlock = 0; /* device nodes live under /dev's rule */
		}
	}
}

/* 'network blocked' keeps the host's network namespace: no socket family
 * but AF_UNIX may be created, so no IP (TCP, UDP, ICMP, raw), no netlink
 * (the host's routes, addresses, connections through sock_diag), no
 * packet, vsock or any family a later kernel adds.  The comparison is on
 * the whole 64-bit argument: a value whose low 32 bits say AF_UNIX but
 * whose high bits are set is refused too, never the other way round. */
static void block_sockets(struct variant *v)
{
	struct m_rule r = {.nr = syscall_lookup("socket", NULL),
			   .name = "socket",
			   .action = EAFNOSUPPORT,
			   .n_cmp = 1,
			   .cmp = {{0, SCMP_CMP_NE, 0, AF_UNIX}},
			   .text = xstrdup("socket(arg0 != AF_UNIX)")};
	VEC_PUSH(v->rules, r);
}

static bool build_variant(struct compiled *c, const chain_t *chain, size_t group, size_t mode,
			  struct variant *v)
{
	memset(v, 0, sizeof(*v));
	v->mode = c->modes.v[mode];
	v->command = c->groups.v[group].name;
	v->hostname = "jail";
	v->network = AJ_NET_NONE;
	v->landlock = AJ_LANDLOCK_ON;
	v->sys_default = M_ACT_ALLOW;
	v->scan_depth = 32;
	v->scan_bound = AJ_SCAN_BOUND_FAIL;
	bool ok = true;
	for (size_t i = 0; i < chain->n; i++)
		ok = apply_block(v, chain->v[i]->stmt->body, chain->v[i]->stmt, BLOCK_POLICY) && ok;
	const struct command_group *g = &c->groups.v[group];
	if (g->overlay) {
		for (const struct stmt *s = g->overlay; s; s = s->next) {
			/* A used policy's exec and modes are its own business. */
			if (g->from && (is_policy_key(s->key)))
				continue;
			struct stmt one = *s;
			one.next = NULL;
			ok = apply_block(v, &one, s, g->from ? BLOCK_POLICY : BLOCK_COMMAND) && ok;
		}
	}
	for (size_t i = 0; i < chain->n + 1; i++) {
		const struct stmt *body = i < chain->n ? chain->v[i]->stmt->body
				   : g->from             ? g->from->stmt->body
							 : NULL;
		for (const struct stmt *s = body; s; s = s->next)
			if (strcmp(s->key, "mode") == 0 && s->has_block && s->args &&
			    strcmp(s->args->text, v->mode) == 0)
				ok = apply_block(v, s->body, s, BLOCK_MODE) && ok;
	}
	if (!ok)
		return false;
	/* The target may ask which mode it runs in; a nested stub does not
	 * trust it (stub/mode.c). */
	struct m_env_set e = {.name = M_MODE_ENV};
	path_parse(v->mode, NULL, false, &e.value);
	size_t k = 0;
	while (k < v->env_set.n && strcmp(v->env_set.v[k].name, e.name) != 0)
		k++;
	if (k < v->env_set.n)
		v->env_set.v[k] = e;
	else
		VEC_PUSH(v->env_set, e);
	if (!pattern_check_pruned(v) || !scan_lower(v))
		return false;
	add_feature_mounts(v);
	sort_mounts(v);
	if (v->landlock != AJ_LANDLOCK_OFF)
		derive_landlock(v);
	if (v->network == AJ_NET_BLOCKED)
		block_sockets(v);
	return seccomp_build(v);
}

/* Does variant w have pattern p (kind, glob and flags)? */
static bool has_pattern(const struct variant *w, const struct m_pattern *p)
{
	for (size_t i = 0; i < w->patterns.n; i++)
		if (w->patterns.v[i].kind == p->kind && w->patterns.v[i].flags == p->flags &&
		    !strcmp(w->patterns.v[i].glob, p->glob))
			return true;
	return false;
}

/* Is bound a above bound b?  0 is none, above every number. */
static bool bound_above(uint64_t a, uint64_t b)
{
	return a != b && (a == 0 || (b != 0 && a > b));
}

/* Why mode s's limits are looser than mode w's, or NULL; *where is the
 * statement that set s's. */
static const char *limits_looser(const struct variant *s, const struct variant *w,
				 const struct loc **where)
{
	*where = &s->processes_loc;
	if (bound_above(s->processes, w->processes))
		return xprintf("it allows %s processes, mode '%s' allows %u",
			       s->processes ? xprintf("%u", s->processes) : "unlimited", w->mode,
			       w->processes);
	*where = &s->memory_loc;
	/* Bytes against a share of memory: which is less depends on the host
	 * the stub runs on, so they are not compared.  Nothing is lost for a
	 * nested jail: its cgroup sits below its parent's, and an rlimit is
	 * never raised inside a user namespace. */
	if (s->memory && w->memory && (s->memory ^ w->memory) & AJ_MEMORY_PERCENT)
		return NULL;
	if (bound_above(s->memory, w->memory))
		return xprintf("its memory limit is %s, mode '%s' has %s",
			       limit_memory_text(s->memory), w->mode, limit_memory_text(w->memory));
	return NULL;
}

/* A mode's strength is its place: normal first, then the others as they
 * are first declared (stub/mode.c keeps a nested jail at or above the
 * mode of its own).  So each mode must be at least as strict as the one
 * before it, in every command group: no toggle on that the weaker mode has
 * off, no wider network, no directory pruned that the weaker mode walks,
 * no higher bound on memory or processes. */
static bool check_mode_order(const struct compiled *c)
{
	size_t nm = c->modes.n;
	bool ok = true;
	for (size_t m = 1; m < nm; m++) {
		for (size_t g = 0; g < c->groups.n; g++) {
			const struct variant *w = &c->variants.v[g * nm + m - 1];
			const struct variant *s = &c->variants.v[g * nm + m];
			const char *in = c->groups.v[g].name[0]
					     ? xprintf(" in command group '%s'", c->groups.v[g].name)
					     : "";
			int more = s->features & ~w->features;
			const char *why = NULL;
			for (int t = 0; t < AJ_TOGGLE_COUNT && !why; t++)
				if (more & (1 << t))
					why = xprintf("it turns %s on", toggle_names[t]);
			if (!why && s->network > w->network)
				why = xprintf("its network is %s, mode '%s' has %s", net_names[s->network],
					      w->mode, net_names[w->network]);
			for (size_t k = 0; k < s->patterns.n && !why; k++)
				if (s->patterns.v[k].kind == AJ_PATTERN_PRUNE &&
				    !has_pattern(w, &s->patterns.v[k]))
					why = xprintf("it prunes \"%s\", which mode '%s' walks",
						      s->patterns.v[k].text, w->mode);
			const struct loc *where = NULL;
			if (!why)
				why = limits_looser(s, w, &where);
			if (!why)
				continue;
			error_at(&c->mode_locs.v[m],
				 "mode '%s' must be at least as strict as mode '%s', declared before "
				 "it%s: %s",
				 s->mode, w->mode, in, why);
			if (where && where->src)
				note_at(where, "the limit of mode '%s' is set here", s->mode);
			ok = false;
			break;
		}
	}
	return ok;
}

bool compile_policy(const struct program *prog, const struct policy *pol, struct compiled *out)
{
	memset(out, 0, sizeof(*out));
	out->policy = pol;
	chain_t chain = {0};
	for (const struct policy *p = pol; p; p = p->parent)
		VEC_PUSH(chain, p);
	for (size_t i = 0; i < chain.n / 2; i++) {
		const struct policy *t = chain.v[i];
		chain.v[i] = chain.v[chain.n - 1 - i];
		chain.v[chain.n - 1 - i] = t;
	}
	if (!collect_structure(out, prog, &chain))
		return false;
	int before = diag_error_count();
	bool ok = true;
	for (size_t g = 0; g < out->groups.n; g++) {
		for (size_t m = 0; m < out->modes.n; m++) {
			struct variant v;
			ok = build_variant(out, &chain, g, m, &v) && ok;
			VEC_PUSH(out->variants, v);
		}
	}
	if (ok)
		ok = check_mode_order(out);
	return ok && diag_error_count() == before;
}
