/* scanbench.c: the project scan (stub/scan/scan.c, stub/scan/match.c) against a
 * naive discovery of the same patterns, in one run (bench/scan.sh).
 *
 *   scanbench ROUNDS DIR...
 *
 * For each tree, ROUNDS interleaved rounds (the order rotates) of:
 *   walk       the stub's scan with the compiled patterns as shipped
 *              (policies/base.aj, normal mode): one walk, pruned trees
 *              not entered;
 *   walk-all   the same walk with the prune patterns taken out;
 *   per-glob   one walk per mask/deny pattern, as ai-jail does it: each
 *              walk lists the whole tree (readdir, no pruning, symlinks
 *              not followed), collects every relative path, then matches
 *              each against that one glob (stub/base/glob.c, the reference
 *              matcher; ASCII case folded, as base.aj's patterns are).
 * Every measurement runs in a fresh child (the scan keeps its results in
 * static memory) and is timed inside it, fork excluded.
 *
 *   scanbench rules ROUNDS DIR
 *
 * The fence's own cost, without the noise of a whole start-up: what the
 * stub does per rule (stub/root/mask.c, fence_dir) for every entry of DIR, an
 * O_PATH open and a landlock_add_rule into a fresh ruleset, then
 * landlock_restrict_self, in a child each round; prints "rules DIR
 * ENTRIES US-PER-RULE US-RESTRICT" (medians).  Prints one line
 * per tree and method: median and minimum milliseconds, and what was found
 * (walk-all and per-glob must agree; it says so).
 *
 * Built by bench/scan.sh with musl-gcc, against a header compiled from
 * policies/base.aj (AJ_POLICY_HEADER). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scan/scan.h"

#include AJ_POLICY_HEADER

/* --- the naive side ------------------------------------------------------ */

struct paths {
	char **v;
	unsigned char *isdir;
	size_t n, cap;
};

static void push(struct paths *p, const char *s, bool isdir)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 4096;
		p->v = realloc(p->v, p->cap * sizeof(*p->v));
		p->isdir = realloc(p->isdir, p->cap);
		if (!p->v || !p->isdir)
			exit(3);
	}
	p->isdir[p->n] = isdir;
	p->v[p->n++] = strdup(s);
}

static void collect(const char *root, const char *rel, struct paths *out)
{
	char path[4096];
	DIR *d;
	struct dirent *e;

	snprintf(path, sizeof(path), "%s%s%s", root, *rel ? "/" : "", rel);
	if (!(d = opendir(path)))
		return;
	while ((e = readdir(d))) {
		char sub[4096];
		bool isdir = e->d_type == DT_DIR;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", e->d_name);
		push(out, sub, isdir);
		if (isdir)
			collect(root, sub, out);
	}
	closedir(d);
}

static void lower(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s += 'a' - 'A';
}

/* One pattern as base.aj's --jail-explain text shows it: "mask\t.env\t…". */
struct glob {
	char kind[8];
	char glob[256];
	bool anchored, dir, nocase;
};

static size_t globs_of(const struct aj_scan *sc, struct glob *g, size_t max)
{
	size_t n = 0;

	for (unsigned i = 0; i < sc->n_patterns && n < max; i++) {
		const char *t = sc->patterns[i], *tab = strchr(t, '\t');
		size_t kl = (size_t)(tab - t), gl = strcspn(tab + 1, "\t");
		struct glob *x = &g[n];

		if (!tab || kl >= sizeof(x->kind) || strncmp(t, "prune", kl) == 0 ||
		    strncmp(t, "guard", kl) == 0)
			continue;
		memcpy(x->kind, t, kl);
		x->kind[kl] = 0;
		const char *p = tab + 1;
		x->anchored = *p == '/' || memchr(p, '/', gl - (p[gl - 1] == '/'));
		x->dir = p[gl - 1] == '/';
		x->nocase = strstr(tab, "(any case)") != NULL;
		if (*p == '/')
			p++, gl--;
		snprintf(x->glob, sizeof(x->glob), "%.*s", (int)(gl - x->dir), p);
		if (x->nocase)
			lower(x->glob);
		n++;
	}
	return n;
}

/* Every path a pattern hides, one walk per pattern, into hits. */
static size_t per_glob(const char *root, const struct glob *g, size_t ng, char **hits, size_t max)
{
	size_t nh = 0;

	for (size_t k = 0; k < ng; k++) {
		struct paths all = {0};

		collect(root, "", &all);
		for (size_t i = 0; i < all.n; i++) {
			char buf[4096];
			const char *s;

			if (g[k].dir && !all.isdir[i])
				continue;
			snprintf(buf, sizeof(buf), "%s", all.v[i]);
			if (g[k].nocase)
				lower(buf);
			s = g[k].anchored ? buf : (strrchr(buf, '/') ? strrchr(buf, '/') + 1 : buf);
			if (glob_match(g[k].glob, s) && nh < max)
				hits[nh++] = strdup(all.v[i]);
		}
		for (size_t i = 0; i < all.n; i++)
			free(all.v[i]);
		free(all.v);
		free(all.isdir);
	}
	return nh;
}

/* How many hits have no hit above them (what a cover goes on). */
static size_t outermost(char **hits, size_t nh)
{
	size_t top = 0;
	for (size_t i = 0; i < nh; i++) {
		bool below = false, dup = false;
		for (size_t j = 0; j < nh && !below; j++) {
			size_t l = strlen(hits[j]);
			below = j != i && !strncmp(hits[i], hits[j], l) && hits[i][l] == '/';
			dup |= j < i && !strcmp(hits[i], hits[j]);
		}
		top += !below && !dup;
	}
	return top;
}

/* --- timing ---------------------------------------------------------------- */

enum { WALK, WALK_ALL, PER_GLOB, N_METHODS };
static const char *const method_name[] = {"walk", "walk-all", "per-glob"};

static struct aj_scan all_scan;
static struct aj_step all_steps[AJ_SCAN_STEPS], all_floating[256];
static struct aj_variant all_variant;

/* The shipped scan without its prune patterns. */
static void without_prune(const struct aj_variant *v)
{
	const struct aj_scan *sc = v->scan;
	unsigned n = 0;

	all_scan = *sc;
	for (unsigned i = 0; i < sc->n_floating && n < 256; i++)
		if (sc->floating[i].kind != AJ_PATTERN_PRUNE)
			all_floating[n++] = sc->floating[i];
	for (unsigned i = 0; i < sc->n_steps; i++) {
		all_steps[i] = sc->steps[i];
		if (all_steps[i].kind == AJ_PATTERN_PRUNE)
			all_steps[i].kind = 0; /* a step that completes nothing */
	}
	all_scan.floating = all_floating;
	all_scan.n_floating = (uint16_t)n;
	all_scan.steps = all_steps;
	all_scan.n_guards = 0;
	all_variant = *v;
	all_variant.scan = &all_scan;
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

struct sample {
	double ms;
	unsigned found, pruned;
};

static struct sample measure(int method, const char *dir, const struct aj_variant *v,
                             const struct glob *g, size_t ng)
{
	struct sample s = {0};
	int fd[2];
	pid_t pid;

	if (pipe(fd) || (pid = fork()) < 0)
		exit(3);
	if (!pid) {
		static char *hits[1 << 16];
		double t0 = now_ms();
		size_t nh = 0;

		close(fd[0]);
		if (method == PER_GLOB)
			nh = per_glob(dir, g, ng, hits, 1 << 16);
		else
			settle_project(dir, method == WALK ? v : &all_variant);
		s.ms = now_ms() - t0;
		s.found = method == PER_GLOB ? (unsigned)outermost(hits, nh) : hits_cur->n;
		s.pruned = method == PER_GLOB ? 0 : hits_cur->n_pruned;
		if (write(fd[1], &s, sizeof(s)) != sizeof(s))
			_exit(3);
		_exit(0);
	}
	close(fd[1]);
	if (read(fd[0], &s, sizeof(s)) != sizeof(s))
		s.ms = -1;
	close(fd[0]);
	waitpid(pid, NULL, 0);
	return s;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* --- the fence's rules -------------------------------------------------- */

struct ll_attr {
	uint64_t fs;
};
struct ll_beneath {
	uint64_t access;
	int32_t fd;
} __attribute__((packed));

/* One round in a child (landlock_restrict_self cannot be undone): the
 * microseconds of the opens and landlock_add_rule calls, per rule, and of
 * landlock_restrict_self with them all. */
static void rules_round(const char *dir, double out[3])
{
	static char names[4096][64];
	struct ll_attr attr = {7}; /* execute, write, read: any handled set will do */
	int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), nf = 0;
	DIR *d = fdopendir(dup(dfd));
	struct dirent *e;
	double t0, t1;

	if (rs < 0 || dfd < 0 || !d)
		_exit(3);
	while ((e = readdir(d)) && nf < 4096)
		if (e->d_name[0] != '.' && strlen(e->d_name) < 64)
			strcpy(names[nf++], e->d_name);
	closedir(d);
	t0 = now_ms();
	for (int i = 0; i < nf; i++) {
		struct ll_beneath b = {.access = 4 /* read_file */};

		/* left open, as the stub leaves them until privs_fds_close() */
		b.fd = openat(dfd, names[i], O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (b.fd < 0 || syscall(SYS_landlock_add_rule, rs, 1, &b, 0))
			_exit(3);
	}
	t1 = now_ms();
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || syscall(SYS_landlock_restrict_self, rs, 0))
		_exit(3);
	out[0] = nf;
	out[1] = (t1 - t0) * 1e3 / (nf ? nf : 1);
	out[2] = (now_ms() - t1) * 1e3;
}

static int rules_bench(int rounds, const char *dir)
{
	double add[256], restrict_[256], entries = 0;
	int n = rounds < 256 ? rounds : 256;

	for (int r = 0; r < n; r++) {
		double out[3] = {0};
		int fd[2];
		pid_t pid;

		if (pipe(fd) || (pid = fork()) < 0)
			return 3;
		if (!pid) {
			rules_round(dir, out);
			_exit(write(fd[1], out, sizeof(out)) != sizeof(out));
		}
		close(fd[1]);
		if (read(fd[0], out, sizeof(out)) != sizeof(out)) {
			fprintf(stderr, "scanbench: the Landlock round failed (no Landlock?)\n");
			return 1;
		}
		close(fd[0]);
		waitpid(pid, NULL, 0);
		entries = out[0];
		add[r] = out[1];
		restrict_[r] = out[2];
	}
	qsort(add, (size_t)n, sizeof(double), cmp);
	qsort(restrict_, (size_t)n, sizeof(double), cmp);
	printf("rules\t%s\t%.0f\t%.2f\t%.1f\n", dir, entries, add[n / 2], restrict_[n / 2]);
	return 0;
}

int main(int argc, char **argv)
{
	const struct aj_variant *v = &aj_policy.variants[aj_policy.default_mode];
	struct glob g[64];
	size_t ng = globs_of(v->scan, g, 64);
	int rounds = argc > 1 ? atoi(argv[1]) : 0;

	if (argc == 4 && !strcmp(argv[1], "rules"))
		return rules_bench(atoi(argv[2]), argv[3]);
	if (argc < 3 || rounds < 1) {
		fprintf(stderr, "usage: scanbench ROUNDS DIR...\n");
		return 2;
	}
	without_prune(v);
	printf("# %zu mask/deny patterns (per-glob walks the tree %zu times); %u prune patterns\n", ng,
	       ng, v->scan->n_patterns - (unsigned)ng);
	printf("tree\tmethod\tmedian_ms\tmin_ms\tfound\tpruned\n");
	for (int t = 2; t < argc; t++) {
		double ms[N_METHODS][256];
		struct sample last[N_METHODS];
		int n = rounds < 256 ? rounds : 256;

		for (int m = 0; m < N_METHODS; m++)
			(void)measure(m, argv[t], v, g, ng); /* warm the caches */
		for (int r = 0; r < n; r++)
			for (int k = 0; k < N_METHODS; k++) {
				int m = (k + r) % N_METHODS;
				last[m] = measure(m, argv[t], v, g, ng);
				ms[m][r] = last[m].ms;
			}
		for (int m = 0; m < N_METHODS; m++) {
			qsort(ms[m], (size_t)n, sizeof(double), cmp);
			printf("%s\t%s\t%.3f\t%.3f\t%u\t%u\n", argv[t], method_name[m], ms[m][n / 2],
			       ms[m][0], last[m].found, last[m].pruned);
		}
		if (last[WALK_ALL].found != last[PER_GLOB].found)
			printf("%s\tMISMATCH\twalk-all found %u, per-glob %u\n", argv[t],
			       last[WALK_ALL].found, last[PER_GLOB].found);
		fflush(stdout);
	}
	return 0;
}
