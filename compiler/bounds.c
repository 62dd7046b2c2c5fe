/* bounds.c: what a runaway meets: 'limit memory|processes' (one bound
 * for the whole jail where the stub has a cgroup, each process's
 * otherwise) and the rlimits. */
#include "bounds.h"
#include "changes.h"
#include "args.h"
#include "diag.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static const struct {
	const char *name;
	int resource;
} rlimits[] = {
    {"as", RLIMIT_AS},
    {"core", RLIMIT_CORE},
    {"cpu", RLIMIT_CPU},
    {"data", RLIMIT_DATA},
    {"fsize", RLIMIT_FSIZE},
    {"memlock", RLIMIT_MEMLOCK},
    {"nofile", RLIMIT_NOFILE},
    {"nproc", RLIMIT_NPROC},
    {"stack", RLIMIT_STACK},
    {"msgqueue", RLIMIT_MSGQUEUE},
    {"sigpending", RLIMIT_SIGPENDING},
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
	diag_error_at(&a->loc, "expected a number or 'unlimited'");
	return false;
}

/* The block's earlier change of this kind (of this resource for an rlimit),
 * or NULL. */
static const struct change *given_before(const struct lowering *lw, enum change_kind kind,
                                         int resource)
{
	for (size_t i = 0; i < lw->out->n; i++) {
		const struct change *c = &lw->out->v[i];
		if (c->kind == kind && (kind != CH_RLIMIT || c->rlimit.resource == resource))
			return c;
	}
	return NULL;
}

bool bounds_rlimit_lower(struct lowering *lw, const struct stmt *s)
{
	if (!args_want(s, 2, 3, "rlimit NAME SOFT [HARD];"))
		return false;
	const char *names[N(rlimits)];
	for (size_t i = 0; i < N(rlimits); i++)
		names[i] = rlimits[i].name;
	int r = args_choose(s->args, "rlimit", names, N(rlimits));
	if (r < 0)
		return false;
	/* The stub derives it from the jail's bound: two sources would
	 * disagree on which one holds. */
	if (rlimits[r].resource == RLIMIT_NPROC) {
		diag_error_at(
		    &s->args->loc,
		    "'rlimit nproc' is set by 'limit processes N;', the jail's bound on tasks");
		return false;
	}
	struct m_rlimit l = {
	    .resource = rlimits[r].resource, .name = rlimits[r].name, .loc = s->args->loc};
	if (!rlimit_value(s->args->next, &l.soft))
		return false;
	l.hard = l.soft;
	if (s->args->next->next && !rlimit_value(s->args->next->next, &l.hard))
		return false;
	if (l.soft > l.hard) {
		diag_error_at(&s->args->next->loc, "soft limit above the hard limit");
		return false;
	}
	const struct change *c = given_before(lw, CH_RLIMIT, l.resource);
	if (c) {
		diag_error_at(&s->args->loc, "this rlimit is already set in this block");
		diag_note_at(&c->loc, "first given here");
		return false;
	}
	VEC_PUSH(*lw->out, ((struct change){.kind = CH_RLIMIT, .loc = s->args->loc, .rlimit = l}));
	return true;
}

void bounds_rlimit_put(struct variant *v, const struct m_rlimit *l)
{
	for (size_t i = 0; i < v->rlimits.n; i++) {
		if (v->rlimits.v[i].resource == l->resource) {
			v->rlimits.v[i] = *l;
			return;
		}
	}
	VEC_PUSH(v->rlimits, *l);
}

/* What a runaway meets (aj_variant.memory and .processes): one bound for the
 * whole jail where the stub has a cgroup, each process's otherwise. */
static const char *const limit_names[] = {"memory", "processes"};

/* PID_MAX_LIMIT on 64-bit: Linux never has more tasks than that. */
#define LIMIT_PROCESSES_MAX 4194304
/* Less than that cannot start a dynamic executable. */
#define LIMIT_MEMORY_MIN (1ULL << 20)

const char *bounds_memory_text(uint64_t m)
{
	static const char suffix[] = "KMGT";
	if (!m)
		return "unlimited";
	if (m & AJ_MEMORY_PERCENT)
		return ast_printf("%llu percent", (unsigned long long)(m & ~AJ_MEMORY_PERCENT));
	int k = 0;
	while (k < 4 && m % 1024 == 0) {
		m /= 1024;
		k++;
	}
	return k ? ast_printf("%llu%c", (unsigned long long)m, suffix[k - 1])
	         : ast_printf("%llu bytes", (unsigned long long)m);
}

/* 'unlimited', or an error that suggests it. */
static bool limit_unlimited(const struct atom *a, const char *expected)
{
	static const char *const un[] = {"unlimited"};
	const char *w = args_word_of(a);
	if (w && !strcmp(w, "unlimited"))
		return true;
	const char *hint = w ? diag_suggest(w, un, 1) : NULL;
	if (hint)
		diag_error_at(&a->loc, "expected %s; did you mean 'unlimited'?", expected);
	else
		diag_error_at(&a->loc, "expected %s", expected);
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
			diag_error_at(&unit->loc, "nothing follows 'unlimited'");
			return false;
		}
		*out = 0;
		return true;
	}
	if (unit) {
		const char *w = args_word_of(unit);
		if (!w || strcmp(w, "percent") != 0) {
			const char *hint = w ? diag_suggest(w, units, 1) : NULL;
			if (hint)
				diag_error_at(&unit->loc,
				              "unknown unit '%s'; did you mean 'percent'?", w);
			else
				diag_error_at(&unit->loc,
				              "expected 'percent' after the number, or nothing: %s",
				              expected);
			return false;
		}
		if (a->num < 1 || a->num > 100) {
			diag_error_at(&a->loc, "a share of physical memory is 1 to 100 percent");
			return false;
		}
		*out = AJ_MEMORY_PERCENT | a->num;
		return true;
	}
	if (a->num >= AJ_MEMORY_PERCENT) {
		diag_error_at(&a->loc, "a memory limit must be below 8E (2^63 bytes)");
		return false;
	}
	/* A plain number is bytes: 'limit memory 512;' was surely not meant. */
	if (a->num < LIMIT_MEMORY_MIN) {
		if (a->num)
			diag_error_at(
			    &a->loc,
			    "%llu bytes cannot run a program (the least is 1M); did you mean "
			    "'%lluM'?",
			    (unsigned long long)a->num, (unsigned long long)a->num);
		else
			diag_error_at(&a->loc,
			              "a memory limit is at least 1M; 'unlimited' means none");
		return false;
	}
	*out = a->num;
	return true;
}

bool bounds_limit_lower(struct lowering *lw, const struct stmt *s)
{
	if (!args_want(s, 2, 3, "limit memory SIZE|N percent|unlimited; or limit processes N;"))
		return false;
	int k = args_choose(s->args, "limit", limit_names, N(limit_names));
	if (k < 0)
		return false;
	const struct atom *a = s->args->next;
	uint64_t value = 0;
	if (k == 0) {
		if (!limit_memory(a, &value))
			return false;
	} else if (a->kind == ATOM_NUMBER) {
		if (a->next) {
			diag_error_at(&a->next->loc,
			              "a process limit is a number of tasks, or 'unlimited'");
			return false;
		}
		if (a->num < 1 || a->num > LIMIT_PROCESSES_MAX) {
			diag_error_at(&a->loc, "a process limit is 1 to %d tasks, or 'unlimited'",
			              LIMIT_PROCESSES_MAX);
			return false;
		}
		value = a->num;
	} else if (!limit_unlimited(a, "a number of processes or 'unlimited'")) {
		return false;
	} else if (a->next) {
		diag_error_at(&a->next->loc, "nothing follows 'unlimited'");
		return false;
	}
	enum change_kind kind = k == 0 ? CH_MEMORY : CH_PROCESSES;
	const struct change *c = given_before(lw, kind, 0);
	if (c) {
		diag_error_at(&s->args->loc, "this limit is already set in this block");
		diag_note_at(&c->loc, "first given here");
		return false;
	}
	struct change l = {.kind = kind, .loc = s->args->loc};
	l.limit.value = value;
	l.limit.stmt = s->loc;
	VEC_PUSH(*lw->out, l);
	return true;
}
