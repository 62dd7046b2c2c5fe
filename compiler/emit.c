/* emit.c: the generated header (constant tables only); its identity is
 * identity.c's. */
#include "emit.h"
#include "bounds.h"
#include "diag.h"
#include "explain.h"
#include "follow.h"
#include "identity.h"
#include "network.h"
#include "sysnames.h"
#include "toggles.h"
#include "variant.h"

#include <stdlib.h>
#include <string.h>

static const char *const var_enum[AJ_VAR_COUNT] = {AJ_VARS(AJ_IDENT_ITEM)};
static const char *const op_enum[AJ_MOUNT_OP_COUNT] = {AJ_MOUNT_OPS(AJ_IDENT_ITEM)};
static const char *const toggle_enum[AJ_TOGGLE_COUNT] = {AJ_TOGGLES(AJ_IDENT_ITEM)};

/* A C string literal for any bytes. */
static char *lit(const char *s)
{
	if (!s)
		return ast_strdup("0");
	size_t n = strlen(s);
	char *out = ast_alloc(n * 4 + 3), *d = out;
	*d++ = '"';
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') {
			*d++ = '\\';
			*d++ = (char)*p;
		} else if (*p < 0x20 || *p >= 0x7f) {
			d += sprintf(d, "\\%03o", *p);
		} else {
			*d++ = (char)*p;
		}
	}
	*d++ = '"';
	*d = 0;
	return out;
}

static char *path_init(const struct m_path *p)
{
	return ast_printf("{.head = %s, .var = %s, .tail = %s}", lit(p->head), var_enum[p->var],
	                  lit(p->tail));
}

/* Identical arrays (the same seccomp program in every mode, say) are
 * written once and shared. */
struct emitted {
	char *body;
	char *name;
	struct emitted *next;
};

/* One list of a variant (its mounts, its kept or dropped variables) as
 * the initialisers of its entries. */
struct lines {
	char **v;
	size_t n;
};

struct out {
	FILE *f;
	struct emitted *arrays;
	int counter;
	const struct compiled *c;
	struct lines *mounts, *keep, *drop; /* [variant] */
};

static const char *array(struct out *o, const char *type, const char *body, size_t n)
{
	if (!n)
		return "0";
	for (struct emitted *e = o->arrays; e; e = e->next)
		if (strcmp(e->body, body) == 0 && strncmp(e->name, type, strlen(type)) == 0 &&
		    e->name[strlen(type)] == ' ')
			return e->name + strlen(type) + 1;
	struct emitted *e = ast_alloc(sizeof(*e));
	char *name = ast_printf("aj_a%d", o->counter++);
	e->name = ast_printf("%s %s", type, name);
	e->body = ast_strdup(body);
	e->next = o->arrays;
	o->arrays = e;
	fprintf(o->f, "static const %s %s[%zu] = {\n%s};\n", type, name, n, body);
	return name;
}

static char *append(char *acc, const char *fmt, const char *piece)
{
	return ast_printf("%s%s", acc, ast_printf(fmt, piece));
}

/* A policy's tmpfs is a scratch directory of the root (AJ_MOUNT_SCRATCH)
 * unless its path is below another mount of the variant that is a tree of
 * its own (AJ_OP_TREE: a bind, /dev or /proc).  Below a tmpfs it is scratch too,
 * a directory of that one.  A path with a variable may still land below a
 * bind at run time ($HOME below /opt): the stub checks that case itself. */
static int mount_op(const struct variant *v, const struct m_mount *m)
{
	if (m->op != AJ_MOUNT_TMPFS)
		return m->op;
	for (size_t i = 0; i < v->mounts.n; i++) {
		const struct m_mount *o = &v->mounts.v[i];
		size_t n = strlen(o->path.text);
		if (!aj_op_is((unsigned)o->op, AJ_OP_TREE))
			continue;
		if (strncmp(m->path.text, o->path.text, n) == 0 && m->path.text[n] == '/')
			return AJ_MOUNT_TMPFS;
	}
	return AJ_MOUNT_SCRATCH;
}

/* The components of a path ("/usr/lib": 2). */
static int components(const char *p)
{
	int n = 0;
	for (; *p; p++)
		n += *p == '/' && p[1];
	return n;
}

/* A mount's rank as far as the compiler knows it (aj_table.h, the order):
 * a fixed path's all, a path with a variable only its 1 when it starts
 * with one; the stub adds the components of what it resolves. */
static int mount_rank(const struct m_mount *m)
{
	if (m->path.var != AJ_VAR_NONE)
		return !m->path.head[0];
	return 2 * components(m->path.text);
}

static char *mount_init(const struct variant *v, const struct m_mount *m)
{
	return ast_printf(
	    "\t{.op = %s, .flags = 0x%x, .mode = 0%o, .landlock = 0x%x, .toggle = %s,\n"
	    "\t .rank = %d, .path = %s, .target = %s},\n",
	    op_enum[mount_op(v, m)], m->flags, m->mode, m->landlock,
	    m->toggle ? ast_printf("1 + %s", toggle_enum[m->toggle - 1]) : "0", mount_rank(m),
	    path_init(&m->path), lit(m->target));
}

/* Does the variant mount the project itself read-only?  Then --rw is
 * refused (aj_variant.flags, AJ_VARIANT_PROJECT_RO). */
static bool project_read_only(const struct variant *v)
{
	for (size_t i = 0; i < v->mounts.n; i++) {
		const struct m_path *p = &v->mounts.v[i].path;
		if (p->var == AJ_VAR_PROJECT && !*p->head && !*p->tail)
			return v->mounts.v[i].op == AJ_MOUNT_RO;
	}
	return false;
}

/* The stub's capacities the compiler can count (aj_table.h). */
bool emit_fits(const struct compiled *c)
{
	for (size_t i = 0; i < c->variants.n; i++) {
		const struct variant *v = &c->variants.v[i];
		if (v->mounts.n > AJ_MAX_MOUNTS) {
			diag_error_at(&c->policy->loc,
			              "variant %s%s%s has %zu mounts; a stub holds at most %d",
			              v->command[0] ? v->command : "", v->command[0] ? "/" : "",
			              v->mode, v->mounts.n, AJ_MAX_MOUNTS);
			return false;
		}
		for (size_t k = 0; k < v->mounts.n; k++) {
			const struct m_mount *m = &v->mounts.v[k];
			if (mount_rank(m) > UINT8_MAX) {
				diag_error_at(
				    &m->loc, "'%s' has %d components; a mount path has at most %d",
				    m->path.text, components(m->path.text), UINT8_MAX / 2);
				return false;
			}
		}
	}
	return true;
}

/* Is the entry (its initialiser) in the list of every variant of the mode
 * (or any mode, -1) and of the command group (or any group, -1)? */
static bool line_common(const struct out *o, const struct lines *all, const char *line, int mode,
                        int group)
{
	const struct compiled *c = o->c;
	for (size_t i = 0; i < c->variants.n; i++) {
		if ((mode >= 0 && (int)(i % c->modes.n) != mode) ||
		    (group >= 0 && (int)(i / c->modes.n) != group))
			continue;
		size_t k = 0;
		while (k < all[i].n && strcmp(all[i].v[k], line) != 0)
			k++;
		if (k == all[i].n)
			return false;
	}
	return true;
}

/* A variant's list in spans, each written once however many variants share
 * it: the entries of every variant (most of base.aj's mounts), of every
 * variant of its mode (the toggles), of its command group (the tool's
 * caches and variables), and its own.  The generic jail's 24 variants
 * would otherwise repeat them all. */
static const char *spans(struct out *o, const struct lines *all, size_t idx, const char *type,
                         const char *span_type, const char *more, size_t n_more, size_t *n_spans)
{
	int mode = (int)(idx % o->c->modes.n), group = (int)(idx / o->c->modes.n);
	const int level_mode[4] = {-1, mode, -1, -2}, level_group[4] = {-1, -1, group, -2};
	char *body[4] = {ast_strdup(""), ast_strdup(""), ast_strdup(""), ast_strdup("")};
	size_t n[4] = {0};
	for (size_t k = 0; k < all[idx].n; k++) {
		const char *line = all[idx].v[k];
		int l = 0;
		while (l < 3 && !line_common(o, all, line, level_mode[l], level_group[l]))
			l++;
		body[l] = append(body[l], "%s", line);
		n[l]++;
	}
	char *list = ast_strdup("");
	*n_spans = 0;
	for (int l = 0; l < 4; l++) {
		if (!n[l])
			continue;
		list = append(
		    list, "%s",
		    ast_printf("\t{.v = %s, .n = %zu},\n", array(o, type, body[l], n[l]), n[l]));
		++*n_spans;
	}
	*n_spans += n_more;
	return array(o, span_type, append(list, "%s", more), *n_spans);
}

/* The variables of each toggle a run may switch (toggles.c), written once
 * for the policy: one array a toggle, those dropped when it is off first;
 * the keep span is all of it, the drop span its head, each tagged with the
 * toggle (aj_env_span.toggle). */
static void toggle_env_spans(struct out *o, const struct variant *v, char **keep, size_t *n_keep,
                             char **drop, size_t *n_drop)
{
	size_t n;
	const struct toggle_env *te = toggles_envs(&n);
	*keep = ast_strdup("");
	*drop = ast_strdup("");
	*n_keep = *n_drop = 0;
	for (int t = 0; t < AJ_TOGGLE_COUNT; t++) {
		if (!toggles_switchable(v, t))
			continue;
		char *body = ast_strdup("");
		size_t all = 0, dropped = 0;
		for (int pass = 1; pass >= 0; pass--)
			for (size_t i = 0; i < n; i++)
				if (te[i].toggle == t && te[i].drop_when_off == pass) {
					body = append(body, "\t%s,\n", lit(te[i].name));
					all++;
					dropped += pass;
				}
		if (!all)
			continue;
		const char *a = array(o, "char *const", body, all);
		*keep = append(*keep, "%s",
		               ast_printf("\t{.v = %s, .n = %zu, .toggle = 1 + %s},\n", a, all,
		                          toggle_enum[t]));
		++*n_keep;
		if (dropped) {
			*drop = append(*drop, "%s",
			               ast_printf("\t{.v = %s, .n = %zu, .toggle = 1 + %s},\n", a,
			                          dropped, toggle_enum[t]));
			++*n_drop;
		}
	}
}

static char *steps_body(const struct m_step *st, size_t n)
{
	char *b = ast_strdup("");
	for (size_t i = 0; i < n; i++) {
		const struct aj_step *s = &st[i].s;
		b = append(
		    b, "%s",
		    ast_printf("\t{.op = %u, .flags = 0x%x, .kind = %u, .first = %u, .min = %u, "
		               ".max = %u, .la = %u, .lb = %u,\n"
		               "\t .a = %s, .b = %s, .next = 0x%llxULL, .pattern = %u},\n",
		               s->op, s->flags, s->kind, s->first, s->min, s->max, s->la, s->lb,
		               lit(st[i].a), lit(st[i].b), (unsigned long long)s->next,
		               s->pattern));
	}
	return b;
}

/* The variant's patterns as the scan automaton (automaton.c): the name of its struct
 * aj_scan, written once for all the variants that scan alike. */
static char *scan_init(struct out *o, const struct m_scan *sc, int depth, int bound)
{
	const char *fl =
	    array(o, "struct aj_step", steps_body(sc->floating.v, sc->floating.n), sc->floating.n);
	const char *st =
	    array(o, "struct aj_step", steps_body(sc->steps.v, sc->steps.n), sc->steps.n);
	char *b = ast_strdup("");
	for (size_t i = 0; i < sc->sets.n; i++) {
		b = append(b, "%s", "\t");
		for (int j = 0; j < 32; j++)
			b = append(b, "%s", ast_printf("0x%02x,", sc->sets.v[i][j]));
		b = append(b, "%s", "\n");
	}
	const char *sets = array(o, "uint8_t", b, sc->sets.n * 32);
	b = ast_strdup("");
	for (size_t i = 0; i < sc->texts.n; i++)
		b = append(b, "\t%s,\n", lit(sc->texts.v[i]));
	const char *texts = array(o, "char *const", b, sc->texts.n);
	b = ast_strdup("");
	for (size_t i = 0; i < sc->guards.n; i++)
		b = append(b, "\t%s,\n", lit(sc->guards.v[i]));
	const char *guards = array(o, "char *const", b, sc->guards.n);
	b = ast_printf("\t{.floating = %s, .n_floating = %zu,\n"
	               "\t .steps = %s, .n_steps = %zu, .start = 0x%llxULL,\n"
	               "\t .sets = %s, .n_sets = %zu,\n"
	               "\t .patterns = %s, .n_patterns = %zu,\n"
	               "\t .guards = %s, .n_guards = %zu,\n"
	               "\t .depth = %d, .bound = %d},\n",
	               fl, sc->floating.n, st, sc->steps.n, (unsigned long long)sc->start, sets,
	               sc->sets.n, texts, sc->texts.n, guards, sc->guards.n, depth, bound);
	return ast_strdup(array(o, "struct aj_scan", b, 1));
}

/* array() for follow.c, which names the followed tool's rows by it. */
static const char *follow_array(void *o, const char *type, const char *body, size_t n)
{
	return array(o, type, body, n);
}

static void emit_variant(struct out *o, size_t idx, char **init)
{
	const struct variant *v = &o->c->variants.v[idx];
	size_t n_spans, n_keep, n_drop, n_tkeep, n_tdrop;
	char *tkeep, *tdrop;
	const char *mount_spans =
	    spans(o, o->mounts, idx, "struct aj_mount", "struct aj_mount_span", "", 0, &n_spans);
	toggle_env_spans(o, v, &tkeep, &n_tkeep, &tdrop, &n_tdrop);
	const char *keep =
	    spans(o, o->keep, idx, "char *const", "struct aj_env_span", tkeep, n_tkeep, &n_keep);
	const char *drop =
	    spans(o, o->drop, idx, "char *const", "struct aj_env_span", tdrop, n_tdrop, &n_drop);
	char *b;

	const char *scan = scan_init(o, &v->scan, v->scan_depth, v->scan_bound);

	b = ast_strdup("");
	for (size_t i = 0; i < v->landlock_rules.n; i++)
		b = append(b, "%s",
		           ast_printf("\t{.path = %s, .access = 0x%llxULL, .flags = 0x%x},\n",
		                      path_init(&v->landlock_paths.v[i]),
		                      (unsigned long long)v->landlock_rules.v[i].access,
		                      v->landlock_rules.v[i].flags));
	const char *ll = array(o, "struct aj_landlock_rule", b, v->landlock_rules.n);

	b = ast_strdup("");
	for (size_t i = 0; i < v->env_set.n; i++)
		b = append(b, "%s",
		           ast_printf("\t{.name = %s, .value = %s},\n", lit(v->env_set.v[i].name),
		                      path_init(&v->env_set.v[i].value)));
	const char *set = array(o, "struct aj_env_set", b, v->env_set.n);

	b = ast_strdup("");
	for (size_t i = 0; i < v->rlimits.n; i++)
		b = append(
		    b, "%s",
		    ast_printf(
		        "\t{.resource = %d, .soft = 0x%llxULL, .hard = 0x%llxULL}, /* %s */\n",
		        v->rlimits.v[i].resource, (unsigned long long)v->rlimits.v[i].soft,
		        (unsigned long long)v->rlimits.v[i].hard, v->rlimits.v[i].name));
	const char *rl = array(o, "struct aj_rlimit", b, v->rlimits.n);

	char *filters = ast_strdup("");
	for (size_t f = 0; f < v->filters.n; f++) {
		const struct m_filter *mf = &v->filters.v[f];
		b = ast_strdup("");
		for (size_t i = 0; i < mf->insns.n; i++) {
			const struct aj_bpf_insn *x = &mf->insns.v[i];
			b = append(
			    b, "%s",
			    ast_printf("\t{.code = 0x%04x, .jt = %u, .jf = %u, .k = 0x%08x},\n",
			               x->code, x->jt, x->jf, x->k));
		}
		filters = ast_printf("%s\t{.insns = %s, .n = %zu}, /* %s */\n", filters,
		                     array(o, "struct aj_bpf_insn", b, mf->insns.n), mf->insns.n,
		                     mf->role);
	}
	const char *fl = array(o, "struct aj_filter", filters, v->filters.n);
	b = ast_strdup("");
	char *names = ast_strdup("");
	for (size_t i = 0; i < v->refused.n; i++) {
		b = append(b, "%s", ast_printf("%d, ", v->refused.v[i]));
		names =
		    ast_printf("%s%s%s", names, i ? " " : "", sysnames_nr_name(v->refused.v[i]));
	}
	const char *refused =
	    v->refused.n
	        ? ast_printf("\t\t.refused = %s, .n_refused = %zu,\n\t\t.refused_names = %s,\n",
	                     array(o, "uint16_t", ast_printf("\t%s\n", b), v->refused.n),
	                     v->refused.n, lit(names))
	        : "";
	const char *follow = follow_init(v->n_hosts ? v->follow : AJ_FOLLOW_NONE, follow_array, o);
	b = ast_strdup("");
	for (int i = 0; i < v->n_hosts; i++)
		b = append(b, "\t%s,\n", lit(v->hosts[i]));
	const char *hosts =
	    v->n_hosts
	        ? ast_printf("\t\t.hosts = %s, .n_hosts = %d, .n_followed = %d, .follow = %s,\n",
	                     array(o, "char *const", b, (size_t)v->n_hosts), v->n_hosts,
	                     v->n_followed, follow)
	        : "";
	b = ast_strdup("");
	for (size_t i = 0; i < v->forwards.n; i++)
		b = append(b, "%s",
		           ast_printf("\t{.port = %u, .v6 = %d},\n", v->forwards.v[i].port,
		                      v->forwards.v[i].v6));
	const char *forwards =
	    v->forwards.n
	        ? ast_printf("\t\t.forwards = %s, .n_forwards = %zu,\n",
	                     array(o, "struct aj_forward", b, v->forwards.n), v->forwards.n)
	        : "";
	b = ast_strdup("");
	for (size_t i = 0; i < v->publishes.n; i++)
		b = append(b, "%s",
		           ast_printf("\t{.addr = 0x%08xU, .host_port = %u, .port = %u},\n",
		                      (unsigned)v->publishes.v[i].addr, v->publishes.v[i].host_port,
		                      v->publishes.v[i].port));
	const char *publishes =
	    v->publishes.n
	        ? ast_printf("\t\t.publishes = %s, .n_publishes = %zu,\n",
	                     array(o, "struct aj_publish", b, v->publishes.n), v->publishes.n)
	        : "";
	const char *keys = keys_init(v, follow_array, o);
	const char *memory = v->memory & AJ_MEMORY_PERCENT
	                         ? ast_printf("AJ_MEMORY_PERCENT | %llu,",
	                                      (unsigned long long)(v->memory & ~AJ_MEMORY_PERCENT))
	                         : ast_printf("%lluULL, /* %s */", (unsigned long long)v->memory,
	                                      bounds_memory_text(v->memory));

	/* One line of the initialiser each: a field, or a pointer and its count. */
	char *s = ast_strdup("\t{\n");
#define LINE(...) s = ast_printf("%s\t\t%s\n", s, ast_printf(__VA_ARGS__))
	LINE(".mode = %s,", lit(v->mode));
	LINE(".command = %s,", lit(v->command));
	LINE(".hostname = %s,", lit(v->hostname));
	LINE(".network = %d,", v->network);
	LINE(".landlock = %d,", v->landlock);
	LINE(".landlock_min_abi = %d,", v->landlock_min_abi);
	LINE(".features = 0x%x,", v->features);
	LINE(".toggles_fixed = 0x%x,", v->toggles_fixed);
	LINE(".flags = 0x%x,", v->flags | (project_read_only(v) ? AJ_VARIANT_PROJECT_RO : 0));
#define SCALAR_INIT(key, ...) LINE(".%s = %llu,", #key, (unsigned long long)v->key);
	M_SCALARS(SCALAR_INIT)
	LINE(".memory = %s", memory);
	LINE(".processes = %u,", v->processes);
	LINE(".mount_spans = %s, .n_mount_spans = %zu,", mount_spans, n_spans);
	LINE(".scan = %s,", scan);
	LINE(".landlock_rules = %s, .n_landlock_rules = %zu,", ll, v->landlock_rules.n);
	LINE(".env_keep = %s, .n_env_keep = %zu,", keep, n_keep);
	LINE(".env_drop = %s, .n_env_drop = %zu,", drop, n_drop);
	LINE(".env_set = %s, .n_env_set = %zu,", set, v->env_set.n);
	LINE(".rlimits = %s, .n_rlimits = %zu,", rl, v->rlimits.n);
	LINE(".filters = %s, .n_filters = %zu,", fl, v->filters.n);
	LINE(".seccomp_summary = %s,", lit(explain_summary(v)));
	if (v->userns)
		LINE(".userns = %d,", v->userns);
#undef LINE
	*init = ast_printf("%s%s%s%s%s%s\t},\n", s, hosts, forwards, publishes, keys, refused);
}

/* Everything of the header but its first comment and the identity: what
 * the identity hashes. */
static bool emit_tables(FILE *f, const struct compiled *c)
{
	struct out o = {f, NULL, 0, c, NULL, NULL, NULL};
	/* The filters check one architecture: a header built into a stub for
	 * another would kill its every call, so it does not compile there. */
	fprintf(f,
	        "#include \"include/aj_table.h\"\n"
	        "#if AJ_ABI != %d\n#error \"generated for another AJ_ABI\"\n#endif\n"
	        "#ifndef __%s__\n#error \"generated for %s (aijail-compile --arch)\"\n#endif\n\n",
	        AJ_ABI, sysnames_target_arch_name(), sysnames_target_arch_name());
	o.mounts = ast_alloc((c->variants.n + 1) * sizeof(*o.mounts));
	o.keep = ast_alloc((c->variants.n + 1) * sizeof(*o.keep));
	o.drop = ast_alloc((c->variants.n + 1) * sizeof(*o.drop));
	for (size_t i = 0; i < c->variants.n; i++) {
		const struct variant *v = &c->variants.v[i];
		o.mounts[i] =
		    (struct lines){ast_alloc((v->mounts.n + 1) * sizeof(char *)), v->mounts.n};
		/* In the order of the rank, and as the variant has them
		 * between equal ranks (aj_table.h). */
		size_t *order = ast_alloc((v->mounts.n + 1) * sizeof(*order));
		for (size_t k = 0; k < v->mounts.n; k++) {
			size_t j = k;
			for (; j > 0 &&
			       mount_rank(&v->mounts.v[order[j - 1]]) > mount_rank(&v->mounts.v[k]);
			     j--)
				order[j] = order[j - 1];
			order[j] = k;
		}
		for (size_t k = 0; k < v->mounts.n; k++)
			o.mounts[i].v[k] = mount_init(v, &v->mounts.v[order[k]]);
		o.keep[i] =
		    (struct lines){ast_alloc((v->env_keep.n + 1) * sizeof(char *)), v->env_keep.n};
		for (size_t k = 0; k < v->env_keep.n; k++)
			o.keep[i].v[k] = ast_printf("\t%s,\n", lit(v->env_keep.v[k].pattern));
		o.drop[i] =
		    (struct lines){ast_alloc((v->env_drop.n + 1) * sizeof(char *)), v->env_drop.n};
		for (size_t k = 0; k < v->env_drop.n; k++)
			o.drop[i].v[k] = ast_printf("\t%s,\n", lit(v->env_drop.v[k].pattern));
	}
	char *variants = ast_strdup("");
	for (size_t i = 0; i < c->variants.n; i++) {
		char *init;
		emit_variant(&o, i, &init);
		variants = ast_printf("%s%s", variants, init);
	}
	fprintf(f, "\nstatic const struct aj_variant aj_variants[%zu] = {\n%s};\n", c->variants.n,
	        variants);
	fprintf(f, "\nstatic const char *const aj_modes[%zu] = {", c->modes.n);
	for (size_t i = 0; i < c->modes.n; i++)
		fprintf(f, "%s%s", i ? ", " : "", lit(c->modes.v[i]));
	fprintf(f, "};\n");
	if (c->triggers.n) {
		fprintf(f, "static const struct aj_trigger aj_triggers[%zu] = {", c->triggers.n);
		for (size_t i = 0; i < c->triggers.n; i++)
			fprintf(f, "%s{.env = %s, .mode = %u}", i ? ", " : "",
			        lit(c->triggers.v[i].env), c->triggers.v[i].mode);
		fprintf(f, "};\n");
	}
	if (c->commands.n) {
		fprintf(f, "static const struct aj_command aj_commands[%zu] = {\n", c->commands.n);
		for (size_t i = 0; i < c->commands.n; i++)
			fprintf(f, "\t{.name = %s, .group = %u},\n", lit(c->commands.v[i].name),
			        c->commands.v[i].group);
		fprintf(f, "};\n");
	}
	if (c->exec_args.n) {
		fprintf(f, "static const char *const aj_exec_args[%zu] = {", c->exec_args.n);
		for (size_t i = 0; i < c->exec_args.n; i++)
			fprintf(f, "%s%s", i ? ", " : "", lit(c->exec_args.v[i]));
		fprintf(f, "};\n");
	}
	fprintf(
	    f,
	    "\nstatic const struct aj_policy aj_policy = {\n"
	    "\t.abi = AJ_ABI,\n\t.name = %s,\n\t.progname = %s,\n\t.mode_env = %s,\n"
	    "\t.exec = %s,\n"
	    "\t.exec_args = %s, .n_exec_args = %zu,\n"
	    "\t.modes = aj_modes, .n_modes = %zu,\n\t.default_mode = %d,\n"
	    "\t.triggers = %s, .n_triggers = %zu,\n"
	    "\t.commands = %s, .n_commands = %zu,\n"
	    "\t.n_groups = %zu,\n\t.variants = aj_variants,\n",
	    lit(c->policy->name),
	    lit(strcmp(c->policy->name, "jail") ? ast_printf("jail-%s", c->policy->name) : "jail"),
	    lit(M_MODE_ENV), lit(c->exec), c->exec_args.n ? "aj_exec_args" : "0", c->exec_args.n,
	    c->modes.n, c->default_mode, c->triggers.n ? "aj_triggers" : "0", c->triggers.n,
	    c->commands.n ? "aj_commands" : "0", c->commands.n, c->groups.n);
	return !ferror(f);
}

static char *tables(const struct compiled *c, size_t *len)
{
	char *buf = NULL;
	FILE *m = open_memstream(&buf, len);
	if (!m || !emit_tables(m, c) || fclose(m) != 0) {
		diag_error("cannot write the tables: out of memory");
		exit(1);
	}
	return buf;
}

char *emit_identity(const struct compiled *c)
{
	size_t len;
	char *buf = tables(c, &len);
	char *id = identity_of(buf, len);
	free(buf);
	return id;
}

/* Only the source's file name: a header (and a stub) does not depend on
 * the folder it was built in. */
bool emit_header(FILE *f, const struct compiled *c, const char *source)
{
	const char *slash = strrchr(source, '/');
	size_t len;
	char *buf = tables(c, &len);
	fprintf(f,
	        "/* Generated by %s from %s: do not edit.\n"
	        " * Policy '%s': %zu command group(s) x %zu mode(s). */\n",
	        identity_maker(), slash ? slash + 1 : source, c->policy->name, c->groups.n,
	        c->modes.n);
	fwrite(buf, 1, len, f);
	fprintf(f, "\t.identity = %s,\n};\n", lit(identity_of(buf, len)));
	free(buf);
	return !ferror(f);
}
