/* vars.c: the runtime variables of aj_table.h, and the one place where an
 * aj_path becomes a string.
 *
 * Values come from the caller's environment, so they are checked the way
 * the compiler checks its own paths: absolute, no "." or ".." component,
 * no double or trailing slash (a value that only needs tidying is tidied).
 * Each variable is resolved on first use and kept; main.c touches every
 * variable a variant uses before the namespaces exist, because $UID and
 * the Docker socket must be looked at from the host's side. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "variant/variant.h"

static const char *const names[AJ_VAR_COUNT] = AJ_VAR_NAMES;

static const char *vals[AJ_VAR_COUNT];
static const char *whys[AJ_VAR_COUNT];
static bool known[AJ_VAR_COUNT];
static char bufs[AJ_VAR_COUNT][AJ_PATH_MAX];

/* Returns in itself when it is already normal, else buf holding the tidy
 * form, or NULL when it is relative, has a "." or ".." component or does
 * not fit. */
const char *vars_path_normal(const char *in, char *buf, size_t n)
{
	const char *p = in;
	size_t len = 0;
	bool tidy = true;

	if (!in || in[0] != '/')
		return NULL;
	while (*p) {
		const char *seg;
		size_t sl;

		if (*p == '/') {
			if (p[1] == '/' || (p[1] == '\0' && p != in))
				tidy = false;
			p++;
			continue;
		}
		seg = p;
		while (*p && *p != '/')
			p++;
		sl = (size_t)(p - seg);
		if ((sl == 1 && seg[0] == '.') || (sl == 2 && seg[0] == '.' && seg[1] == '.'))
			return NULL;
		if (len + 1 + sl >= n)
			return NULL;
		buf[len++] = '/';
		memcpy(buf + len, seg, sl);
		len += sl;
	}
	if (tidy)
		return in;
	if (!len)
		buf[len++] = '/';
	buf[len] = '\0';
	return buf;
}

static const char *from_env(unsigned var, const char *env)
{
	const char *v = getenv(env);

	if (!v || !*v) {
		whys[var] = "it is not set";
		return NULL;
	}
	v = vars_path_normal(v, bufs[var], AJ_PATH_MAX);
	if (!v)
		whys[var] = "it is not an absolute, normalised path";
	return v;
}

static const char *resolve_home(void)
{
	const char *v = from_env(AJ_VAR_HOME, "HOME");

	if (v && !strcmp(v, "/")) {
		whys[AJ_VAR_HOME] = "it is \"/\"";
		return NULL;
	}
	return v;
}

static const char *resolve_uid(void)
{
	out_fmt_u(bufs[AJ_VAR_UID], getuid());
	return bufs[AJ_VAR_UID];
}

static const char *resolve_docker(void)
{
	const char *h = getenv("DOCKER_HOST");
	const char *v = "/var/run/docker.sock";
	struct stat st;

	if (h && *h) {
		if (strncmp(h, "unix://", 7)) {
			whys[AJ_VAR_DOCKER_SOCKET] = "DOCKER_HOST is not a unix:// address";
			return NULL;
		}
		v = vars_path_normal(h + 7, bufs[AJ_VAR_DOCKER_SOCKET], AJ_PATH_MAX);
		if (!v) {
			whys[AJ_VAR_DOCKER_SOCKET] =
			    "DOCKER_HOST is not an absolute, normalised path";
			return NULL;
		}
	}
	if (stat(v, &st) || !S_ISSOCK(st.st_mode)) {
		whys[AJ_VAR_DOCKER_SOCKET] = "there is no Docker socket";
		return NULL;
	}
	return v;
}

/* ":N", ":N.S", "unix:N" and "unix:N.S" are local; a host name before the
 * colon means TCP, which no socket path can stand for. */
static const char *resolve_x11(void)
{
	const char *d = getenv("DISPLAY");
	char *b = bufs[AJ_VAR_X11_SOCKET];
	size_t n = 0;

	if (d && !strncmp(d, "unix:", 5))
		d += 4;
	if (!d || d[0] != ':' || d[1] < '0' || d[1] > '9') {
		whys[AJ_VAR_X11_SOCKET] = "DISPLAY is not a local display";
		return NULL;
	}
	memcpy(b, "/tmp/.X11-unix/X", 16);
	for (d++; *d >= '0' && *d <= '9' && n < 16; d++)
		b[16 + n++] = *d;
	if ((*d && *d != '.') || n == 16) {
		whys[AJ_VAR_X11_SOCKET] = "DISPLAY is not a local display";
		return NULL;
	}
	b[16 + n] = '\0';
	return b;
}

static const char *resolve_wayland(void)
{
	const char *w = getenv("WAYLAND_DISPLAY");
	const char *x;
	char *b = bufs[AJ_VAR_WAYLAND_SOCKET];
	size_t xl, wl;

	if (!w || !*w) {
		whys[AJ_VAR_WAYLAND_SOCKET] = "WAYLAND_DISPLAY is not set";
		return NULL;
	}
	if (w[0] == '/')
		return from_env(AJ_VAR_WAYLAND_SOCKET, "WAYLAND_DISPLAY");
	x = vars_value(AJ_VAR_XDG_RUNTIME_DIR);
	if (!x || strchr(w, '/') || !strcmp(w, ".") || !strcmp(w, "..")) {
		whys[AJ_VAR_WAYLAND_SOCKET] =
		    x ? "WAYLAND_DISPLAY is not a socket name" : "XDG_RUNTIME_DIR is not usable";
		return NULL;
	}
	xl = strlen(x);
	wl = strlen(w);
	if (xl + 1 + wl >= AJ_PATH_MAX) {
		whys[AJ_VAR_WAYLAND_SOCKET] = "WAYLAND_DISPLAY is too long";
		return NULL;
	}
	memcpy(b, x, xl);
	b[xl] = '/';
	memcpy(b + xl + 1, w, wl + 1);
	return b;
}

static const char *resolve(unsigned var)
{
	switch (var) {
	case AJ_VAR_HOME:
		return resolve_home();
	case AJ_VAR_UID:
		return resolve_uid();
	case AJ_VAR_XDG_RUNTIME_DIR:
		return from_env(var, "XDG_RUNTIME_DIR");
	case AJ_VAR_DOCKER_SOCKET:
		return resolve_docker();
	case AJ_VAR_X11_SOCKET:
		return resolve_x11();
	case AJ_VAR_WAYLAND_SOCKET:
		return resolve_wayland();
	case AJ_VAR_XAUTHORITY:
		return from_env(var, "XAUTHORITY");
	}
	whys[var] = "it is not known";
	return NULL;
}

/* The uid must be read before unshare(CLONE_NEWUSER): afterwards, until
 * the map is written, getuid() is the overflow id. */
void vars_init(void)
{
	(void)vars_value(AJ_VAR_UID);
}

void vars_set(unsigned var, const char *value)
{
	if (var >= AJ_VAR_COUNT)
		return;
	vals[var] = value;
	whys[var] = value ? NULL : "it is not set";
	known[var] = true;
}

const char *vars_value(unsigned var)
{
	if (var == AJ_VAR_NONE || var >= AJ_VAR_COUNT)
		return NULL;
	if (!known[var]) {
		vals[var] = resolve(var);
		known[var] = true;
	}
	return vals[var];
}

const char *vars_name(unsigned var)
{
	return var < AJ_VAR_COUNT ? names[var] : "?";
}

const char *vars_why(unsigned var)
{
	if (var < AJ_VAR_COUNT && whys[var])
		return whys[var];
	return "it cannot be resolved";
}

int vars_path_join(const struct aj_path *p, char *out, size_t n)
{
	const char *parts[3] = {p->head ? p->head : "", "", p->tail ? p->tail : ""};
	size_t len = 0;

	if (p->var != AJ_VAR_NONE) {
		parts[1] = vars_value(p->var);
		if (!parts[1])
			return AJ_PATH_UNRESOLVED;
	}
	for (unsigned i = 0; i < 3; i++) {
		size_t l = strlen(parts[i]);
		if (len + l >= n)
			return AJ_PATH_TOOLONG;
		memcpy(out + len, parts[i], l);
		len += l;
	}
	out[len] = '\0';
	return (int)len;
}
