/* extra.c: what the run's options add to the chosen variant: --ro and --rw
 * maps, --net and --no-net, the ceiling --jail-net-max=public, the toggles' --gpu and --no-gpu
 * (each AJ_TOGGLES name, and no-NAME), --timeout, and their --jail-*
 * spellings.  Every option that overrides a policy's value does it here,
 * on the variant's copy: what runs reads the variant, never the option.
 *
 * The variant is constant data; a run that changes it works on a copy in
 * fixed-size arrays, nothing allocated.  An extra map is an ordinary bind
 * at the same path carrying the Landlock rights the compiler would give it
 * (read and execute for --ro, everything for --rw), so the mount plan and
 * Landlock treat it like any other entry: ordered by its rank, after the
 * table's entries of the same rank.  Only the project is scanned for
 * masks and denies, never an extra map.
 *
 * A relative path is taken from the working directory, and ".." in it
 * lexically: that is exact, because a path with a symlink anywhere in it
 * is refused (a link a jailed run planted in the project must not steer
 * the user's next map).  Refused too: "/", $HOME and its parents,
 * $XDG_RUNTIME_DIR and its parents, the system trees (which are already
 * there, read-only, or are the kernel's), the top-level directories whose
 * whole content the jail replaces, /run (the runtime directories hold the
 * session's sockets), and anything but a directory or a regular file:
 * sockets and device nodes come in through the toggles, never around
 * them.  These checks run here for an early, clear refusal; pid 1 makes
 * them again on the descriptor it mounts (resolve.c).  --rw is refused in
 * a mode that keeps the project read-only, --net in a mode that chose
 * its network itself (AJ_VARIANT_NET_FIXED), and a toggle on in a mode
 * that turns it off (aj_variant.toggles_fixed); off is always allowed.
 * The toggles only ever come from the stub's own argv: nothing in the
 * environment switches one. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "variant/variant.h"

static const char *maps[AJ_MAX_EXTRA];
static const char *map_opts[AJ_MAX_EXTRA];
static bool map_rw[AJ_MAX_EXTRA];
static unsigned n_maps;
static int net = -1; /* enum aj_network, -1: the variant's */
static const char *net_opt;
static int net_max = -1;                         /* enum aj_network, -1: no ceiling */
static const char *toggle_opts[AJ_TOGGLE_COUNT]; /* the option that set it, NULL: none */
static uint8_t toggles_on, toggles_set;          /* AJ_TOGGLE_BIT */
static long timeout = -1;                        /* seconds, -1: the variant's */

static struct aj_variant custom;
static struct aj_mount mounts[AJ_MAX_EXTRA];
static struct aj_mount_span spans[8]; /* the variant's (at most 4), then the maps */
static char paths[AJ_MAX_EXTRA][AJ_PATH_MAX];

void extra_map(const char *path, bool rw, const char *opt)
{
	if (n_maps == AJ_MAX_EXTRA)
		die_usage("too many --ro and --rw maps (at most 16)", path);
	if (!*path)
		die_usage("a path is needed after", opt);
	maps[n_maps] = path;
	map_opts[n_maps] = opt;
	map_rw[n_maps++] = rw;
}

void extra_net(int network, const char *opt)
{
	net = network;
	net_opt = opt;
}

void extra_net_max(int network)
{
	net_max = network;
}

const char *extra_net_option(void)
{
	return net_opt;
}

bool extra_toggle(const char *name, const char *opt)
{
	bool on = strncmp(name, "no-", 3) != 0;

	for (unsigned t = 0; t < AJ_TOGGLE_COUNT; t++)
		if (!strcmp(on ? name : name + 3, aj_toggle_names[t])) {
			unsigned bit = AJ_TOGGLE_BIT(t);

			toggles_set |= (uint8_t)bit;
			toggles_on = (uint8_t)((toggles_on & ~bit) | (on ? bit : 0));
			toggle_opts[t] = opt;
			return true;
		}
	return false;
}

const char *extra_toggle_option(unsigned t)
{
	return toggle_opts[t];
}

/* The option that added a mount of the plan, or NULL for the table's. */
const char *extra_option(const struct aj_mount *m)
{
	if (m < mounts || m >= mounts + n_maps)
		return NULL;
	return map_opts[m - mounts];
}

/* "unable to map PATH (--rw): WHY" */
static noreturn void refuse(const char *opt, const char *path, const char *why)
{
	static char what[AJ_PATH_MAX + 32];
	size_t pl = strlen(path), ol = strlen(opt);

	if (pl + ol + 4 > sizeof(what))
		pl = sizeof(what) - ol - 4;
	memcpy(what, path, pl);
	memcpy(what + pl, " (", 2);
	memcpy(what + pl + 2, opt, ol);
	memcpy(what + pl + 2 + ol, ")", 2);
	diep("map", what, 0, why);
}

/* in made absolute (from the working directory) and normal, ".." taken
 * lexically: that is right because the result may hold no symlink. */
static bool path_absolute(const char *in, char *out)
{
	const char *cwd = vars_value(AJ_VAR_PROJECT);
	size_t len = 0;

	if (in[0] != '/') {
		if (!cwd || strlen(cwd) + 1 >= AJ_PATH_MAX)
			return false;
		len = strlen(cwd);
		memcpy(out, cwd, len);
		if (len == 1)
			len = 0;
	}
	for (const char *p = in; *p;) {
		const char *seg;
		size_t sl;

		while (*p == '/')
			p++;
		seg = p;
		while (*p && *p != '/')
			p++;
		sl = (size_t)(p - seg);
		if (!sl || (sl == 1 && seg[0] == '.'))
			continue;
		if (sl == 2 && seg[0] == '.' && seg[1] == '.') {
			while (len && out[len - 1] != '/')
				len--;
			if (len)
				len--;
			continue;
		}
		if (len + 1 + sl >= AJ_PATH_MAX)
			return false;
		out[len++] = '/';
		memcpy(out + len, seg, sl);
		len += sl;
	}
	if (!len)
		out[len++] = '/';
	out[len] = '\0';
	return true;
}

/* Where a path with a symlink in it leads, for the refusal's hint. */
static const char *leads_to(const char *path)
{
	static char hint[AJ_PATH_MAX + 64];
	char link[32];
	int fd = open(path, O_PATH | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return "a symlink is on the way";
	resolve_fd_path(link, fd);
	strcpy(hint, "a symlink is on the way (it leads to ");
	n = readlink(link, hint + 37, sizeof(hint) - 40);
	close(fd);
	if (n < 0)
		return "a symlink is on the way";
	strcpy(hint + 37 + n, "); map that path if you mean it");
	return hint;
}

/* The early, clear refusal, in the caller; pid 1 checks again on the
 * descriptor it mounts (resolve.c). */
static const char *check_map(unsigned i, char *out)
{
	const char *opt = map_opts[i], *why;
	int fd;

	if (!path_absolute(maps[i], out))
		refuse(opt, maps[i], "the path is too long");
	if ((why = resolve_place_refused(out, -1)))
		refuse(opt, out, why);
	fd = resolve_source(out, false, &why);
	if (fd < 0 && errno == ELOOP)
		refuse(opt, out, leads_to(out));
	if (fd < 0 && why)
		refuse(opt, out, why);
	if (fd < 0)
		diep("map", out, errno, errno == ENOENT ? "create it first" : NULL);
	why = resolve_place_refused(out, fd);
	close(fd);
	if (why)
		refuse(opt, out, why);
	return out;
}

/* "--gpu: the mode worker turns gpu off" */
static noreturn void toggle_refused(const struct run *r, unsigned t)
{
	static char why[128];
	const char *parts[] = {"the mode ", r->pol->modes[r->mode], " turns ", aj_toggle_names[t],
	                       " off"};
	size_t n = 0;

	for (unsigned i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		size_t l = strlen(parts[i]);

		if (n + l >= sizeof(why))
			l = sizeof(why) - 1 - n;
		memcpy(why + n, parts[i], l);
		n += l;
	}
	why[n] = '\0';
	diep("use", toggle_opts[t], 0, why);
}

void extra_timeout(const char *s, const char *opt)
{
	long t = 0;

	if (!*s)
		die_usage("a number of seconds is needed after", opt);
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || t > 100000000)
			die_usage("not a number of seconds", opt);
		t = t * 10 + (*s - '0');
	}
	timeout = t ? t : -1; /* 0: the policy's own, as before the option */
}

const struct aj_variant *extra_apply(const struct run *r)
{
	const struct aj_variant *v = r->v;
	unsigned wider = toggles_on & ~v->features;

	for (unsigned t = 0; t < AJ_TOGGLE_COUNT; t++)
		if (wider & v->toggles_fixed & AJ_TOGGLE_BIT(t))
			toggle_refused(r, t);
	bool lower = net_max >= 0 && (net >= 0 ? net : v->network) > net_max;

	if (!n_maps && net < 0 && !toggles_set && !lower && timeout < 0)
		return v;
	custom = *v;
	if (timeout > 0)
		custom.timeout = (uint32_t)timeout;
	custom.features = (uint8_t)((v->features & ~toggles_set) | toggles_on);
	if (net >= 0) {
		if (net > v->network && (v->flags & AJ_VARIANT_NET_FIXED))
			diep("use", net_opt, 0, "this mode takes the network away");
		custom.network = (uint8_t)net;
	}
	/* A ceiling lowers, after everything else: a server that hands out
	 * runs (aijail-mcp) keeps a group's 'host' off the host this way
	 * without raising a group of 'none' or 'allow'. */
	if (lower)
		custom.network = (uint8_t)net_max;
	if (!n_maps)
		return &custom;
	if (v->n_mount_spans >= sizeof(spans) / sizeof(spans[0]))
		die("add the maps", 0, "the mount table has too many spans");
	memcpy(spans, v->mount_spans, v->n_mount_spans * sizeof(spans[0]));
	spans[v->n_mount_spans] = (struct aj_mount_span){mounts, (uint16_t)n_maps};
	for (unsigned i = 0; i < n_maps; i++) {
		struct aj_mount *m = &mounts[i];

		if (map_rw[i] && (v->flags & AJ_VARIANT_PROJECT_RO))
			refuse(map_opts[i], maps[i], "the mode keeps the project read-only");
		m->op = map_rw[i] ? AJ_MOUNT_RW : AJ_MOUNT_RO;
		m->flags = AJ_MOUNT_MAP;
		m->mode = 0;
		m->landlock = map_rw[i] ? AJ_LL_RIGHTS_ALL : AJ_LL_RIGHTS_READ;
		m->toggle = 0;
		m->rank = 0; /* all in the path: plan_resolve counts it */
		m->path = (struct aj_path){check_map(i, paths[i]), AJ_VAR_NONE, ""};
		m->target = NULL;
	}
	custom.mount_spans = spans;
	custom.n_mount_spans = (uint8_t)(v->n_mount_spans + 1);
	return &custom;
}
