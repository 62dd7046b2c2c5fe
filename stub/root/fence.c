/* fence.c: Landlock behind the covers (mask.c).
 *
 * Nothing in the jail can take a cover away (no capability, no mount
 * call), but a kernel or stub bug might.  Behind the covers, Landlock then
 * grants nothing on a denied entry, nor on an absent guarded path, where
 * that costs nothing: the rule on the project's mount keeps only what is
 * not reading (listing, for a read-only mount), and every other entry of
 * each directory on the way to them gets the mount's rights as a rule of
 * its own.  Landlock rights reach everything beneath a rule, without
 * exception, so a directory on the way has no read right of its own: a
 * file that appears in it during the run cannot be read.  For an absent
 * guarded path that is the point; for anything else it is a cost, and it
 * is free only where nothing can appear from inside: a read-only project,
 * with no rule above it that grants reading.  A project below $HOME or
 * /tmp (writable tmpfs mounts: their rules reach it) is never fenced.
 * Listing stays allowed ("/" lets every directory be listed): the names in
 * a denied directory would show, never their content.
 *
 * Every rule goes through landlock_rule(), which narrows its rights to
 * what the kernel handles and to what means something on a file. */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "root/root.h"

#define FENCE_READ (AJ_LL_READ_FILE | AJ_LL_EXECUTE)

/* A rule costs an open, a landlock_add_rule and its share of
 * landlock_restrict_self: 1.5 us measured (docs/secrets.md, bench/scan.sh).
 * 64 keep the fence within 0.1 ms, and cover a typical project's root. */
#define FENCE_MAX_RULES 64

static bool fence_target(const struct scan_hit *h)
{
	return h->kind == AJ_PATTERN_DENY || !h->kind;
}

/* Is rel (len bytes, relative to the project; "" the project) a directory
 * on the way to a target?  Only the targets before hit number first count. */
static bool on_the_way(const char *rel, size_t len, unsigned first)
{
	for (unsigned i = 0; i < first && i < hits_now()->n; i++) {
		const char *t = hits_now()->arena + hits_now()->hits[i].off;

		if (fence_target(&hits_now()->hits[i]) &&
		    (!len || (!strncmp(t, rel, len) && t[len] == '/')))
			return true;
	}
	return false;
}

static bool is_target(const char *rel)
{
	for (unsigned i = 0; i < hits_now()->n; i++)
		if (fence_target(&hits_now()->hits[i]) &&
		    !strcmp(hits_now()->arena + hits_now()->hits[i].off, rel))
			return true;
	return false;
}

/* Is path a (non-strict) ancestor of the relative or absolute path p? */
static bool above(const char *path, const char *p)
{
	size_t n = strlen(path);

	if (n == 1 && path[0] == '/')
		return true;
	return !strncmp(path, p, n) && (p[n] == '/' || !p[n]);
}

/* Does a mount rule other than e's, or a variant rule, grant reading on
 * the way to a target? */
static const char *granted_above(const struct aj_variant *v, const char *project,
                                 const struct plan_entry *e)
{
	static char path[AJ_PATH_MAX];
	size_t pl = strlen(project);

	for (unsigned i = 0; i < plan_n; i++) {
		const struct plan_entry *o = &plan[i];

		if (o == e || !o->path || o->missing || !(o->m->landlock & FENCE_READ))
			continue;
		if (above(o->path, project))
			return o->path;
		if (!strncmp(o->path, project, pl) && o->path[pl] == '/')
			for (unsigned k = 0; k < hits_now()->n; k++)
				if (fence_target(&hits_now()->hits[k]) &&
				    above(o->path + pl + 1,
				          hits_now()->arena + hits_now()->hits[k].off))
					return o->path;
	}
	for (unsigned i = 0; i < v->n_landlock_rules; i++) {
		const struct aj_landlock_rule *r = &v->landlock_rules[i];

		if ((r->access & FENCE_READ) && vars_path_join(&r->path, path, sizeof(path)) >= 0 &&
		    above(path, project))
			return path;
	}
	return NULL;
}

const struct plan_entry *fence_plan(const struct aj_variant *v, const char **why,
                                    const char **where)
{
	const char *project = vars_value(AJ_VAR_PROJECT);
	const struct plan_entry *e = NULL;

	*why = *where = NULL;
	if (!on_the_way("", 0, hits_now()->n)) {
		*why = "nothing is denied or guarded here";
		return NULL;
	}
	if (v->landlock == AJ_LANDLOCK_OFF) {
		*why = "Landlock is off";
		return NULL;
	}
	for (unsigned i = 0; i < plan_n && !e; i++)
		if (plan[i].path && !plan[i].missing && !strcmp(plan[i].path, project) &&
		    aj_op_binds(plan[i].m->op))
			e = &plan[i];
	if (!e)
		*why = "the project is not a mount of its own";
	else if (aj_op_is(e->m->op, AJ_OP_WRITES))
		*why = "the project is writable: a file made beside a denied one could not be "
		       "read back";
	else if ((*where = granted_above(v, project, e)))
		*why = "a writable or readable mount above it reaches it:";
	else if (fence_count(e) > FENCE_MAX_RULES)
		*why = "too many entries on the way (a rule each; the fence stops at 64)";
	return *why ? NULL : e;
}

/* One directory on the way (rel: len bytes, relative to the project):
 * a rule for each of its entries that is neither a target nor itself on
 * the way.  Symlinks get none: what they point at has its own. */
static unsigned fence_dir(int ruleset, const struct plan_entry *e, const char *rel, size_t len,
                          uint64_t access)
{
	static _Alignas(8) char buf[8192];
	char path[AJ_PATH_MAX];
	size_t pl = strlen(e->path), base = pl + 1 + len + !!len;
	unsigned rules = 0;
	int dfd;

	if (base + 1 >= sizeof(path))
		diep("fence", rel, ENAMETOOLONG, NULL);
	memcpy(path, e->path, pl);
	path[pl] = '/';
	memcpy(path + pl + 1, rel, len);
	path[pl + 1 + len] = '\0';
	/* In pid 1, beneath the project's mount, as the covers; the caller
	 * (--jail-explain, counting only) has no mount yet. */
	if (e->fd >= 0)
		dfd =
		    openat2_(e->fd, len ? path + pl + 1 : ".", O_RDONLY | O_DIRECTORY | O_NOFOLLOW,
		             RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	else
		dfd = openat(AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		diep("fence", path, errno, NULL);
	if (len)
		path[base - 1] = '/';
	struct dir_iter it = {dfd, buf, sizeof(buf), 0, 0};
	for (struct aj_dirent *d; (d = dir_next(&it, "fence", path));) {
		const char *name = d->d_name;
		size_t nl = strlen(name);
		struct stat st;
		bool isdir = d->d_type == DT_DIR;
		int fd;

		if (d->d_type == DT_LNK || base + nl >= sizeof(path))
			continue;
		memcpy(path + base, name, nl + 1);
		if (on_the_way(path + pl + 1, len + !!len + nl, hits_now()->n) ||
		    is_target(path + pl + 1))
			continue;
		rules++;
		if (ruleset < 0)
			continue;
		fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT)
			continue; /* gone since it was listed: nothing to grant */
		if (fd < 0)
			diep("fence", path, errno, NULL);
		if (d->d_type == DT_UNKNOWN) {
			if (fstat(fd, &st))
				diep("fence", path, errno, NULL);
			if (S_ISLNK(st.st_mode))
				continue; /* counted once too many: harmless */
			isdir = S_ISDIR(st.st_mode);
		}
		/* The fd stays open until privs_fds_close(): one call less. */
		landlock_rule(ruleset, fd, access, isdir, path);
	}
	close(dfd);
	return rules;
}

/* The fence's rules (ruleset < 0: only counted), in place of the project
 * mount's own.  Returns how many rules it takes. */
static unsigned fence_rules(int ruleset, const struct plan_entry *e)
{
	uint64_t access = e->m->landlock;
	unsigned rules = 1;

	if (ruleset >= 0)
		landlock_rule(ruleset, e->fd, access & ~FENCE_READ, 1, e->path);
	rules += fence_dir(ruleset, e, "", 0, access);
	/* Every other directory on the way, once: each proper prefix of a
	 * target that no earlier target went through. */
	for (unsigned i = 0; i < hits_now()->n; i++) {
		const char *t = hits_now()->arena + hits_now()->hits[i].off;

		if (!fence_target(&hits_now()->hits[i]))
			continue;
		for (const char *sl = strchr(t, '/'); sl; sl = strchr(sl + 1, '/'))
			if (!on_the_way(t, (size_t)(sl - t), i))
				rules += fence_dir(ruleset, e, t, (size_t)(sl - t), access);
	}
	return rules;
}

unsigned fence_count(const struct plan_entry *e)
{
	return fence_rules(-1, e);
}

/* The fallback's (fallback.c): there no mount covers a denied entry, so
 * the project is fenced whatever its mode; a file made beside a denied
 * one then cannot be read back, which --jail-explain says. */
unsigned fence_project(int ruleset, const struct plan_entry *e)
{
	return fence_rules(ruleset, e);
}

const struct plan_entry *fence_apply(int ruleset, const struct aj_variant *v)
{
	const char *why, *where;
	const struct plan_entry *e = fence_plan(v, &why, &where);

	if (e)
		fence_rules(ruleset, e);
	/* The root's other rules, one per mount, from here: pid 1 asks
	 * root/ once for the whole root's Landlock. */
	plan_landlock(ruleset, e);
	return e;
}
