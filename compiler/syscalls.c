/* syscalls.c: 'syscalls' as a policy writes it, lowered into rules, and
 * the rules of several blocks combined.
 *
 * libseccomp 2.5.4 has traps: SCMP_A1_32 is not a 32-bit compare, two
 * comparisons on one argument fail, a rule with the default action fails.
 * Every rule is therefore lowered here into one-comparison-per-argument
 * rules with explicit masks before libseccomp sees it (bpf.c). */
#include "syscalls.h"
#include "changes.h"
#include "args.h"
#include "diag.h"
#include "sysgroups.h"
#include "sysnames.h"

#include <errno.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

/* Argument types of the calls that take conditions.  A bit set in 'narrow'
 * marks an int-typed argument: the kernel reads only its low 32 bits, so the
 * filter must compare only those (else TIOCSTI | 0xdead00000000 passes). */
static const struct sysargs {
	const char *name;
	int nargs;
	unsigned narrow;
} sysargs[] = {
    {"ioctl", 3, 0x3},      {"clone", 5, 0x0},      {"unshare", 1, 0x1},     {"setns", 2, 0x3},
    {"socket", 3, 0x7},     {"socketpair", 4, 0x7}, {"personality", 1, 0x1}, {"prctl", 5, 0x1},
    {"kill", 2, 0x3},       {"tgkill", 3, 0x7},     {"fcntl", 3, 0x3},       {"mprotect", 3, 0x4},
    {"mmap", 6, 0x1c},      {"setsockopt", 5, 0x7}, {"keyctl", 5, 0x1},      {"bpf", 3, 0x5},
    {"getsockopt", 5, 0x7},
};

static const char *action_word(int action)
{
	if (action == M_ACT_ALLOW)
		return "allow";
	if (action == M_ACT_KILL)
		return "kill";
	if (action == EPERM)
		return "deny";
	return ast_printf("return %s", sysnames_errno_name(action));
}

/* Two rules on the same call and the same conditions. */
static bool rule_same(const struct m_rule *a, const struct m_rule *b)
{
	if (a->nr != b->nr || a->n_cmp != b->n_cmp)
		return false;
	for (int i = 0; i < a->n_cmp; i++)
		if (a->cmp[i].arg != b->cmp[i].arg || a->cmp[i].op != b->cmp[i].op ||
		    a->cmp[i].mask != b->cmp[i].mask || a->cmp[i].value != b->cmp[i].value)
			return false;
	return true;
}

/* Two deny actions for the same condition are a contradiction, wherever
 * they are given. */
static bool actions_agree(const struct m_rule *o, const struct m_rule *r)
{
	if (o->action == M_ACT_ALLOW || r->action == M_ACT_ALLOW || o->action == r->action)
		return true;
	diag_error_at(&r->loc, "'%s' cannot both %s and %s", r->name, action_word(r->action),
	              action_word(o->action));
	diag_note_at(&o->loc, "'%s' is given '%s' here", o->name, action_word(o->action));
	return false;
}

/* Deny wins over allow whatever the order (the filters are stacked so the
 * kernel decides); but one block both allowing and denying the same call
 * is a contradiction.  Appends r to the block's rules (the last change)
 * unless the block has it already. */
static bool block_add_rule(struct lowering *lw, const struct m_rule *r)
{
	for (size_t i = 0; i < lw->out->n; i++) {
		const struct change *c = &lw->out->v[i];
		for (size_t k = 0; c->kind == CH_RULES && k < c->rules.n; k++) {
			const struct m_rule *o = &c->rules.v[k];
			if (!rule_same(o, r))
				continue;
			if ((o->action == M_ACT_ALLOW) != (r->action == M_ACT_ALLOW)) {
				diag_error_at(&r->loc,
				              "'%s' is both allowed and denied in this block",
				              r->text);
				diag_note_at(&o->loc, "%s here",
				             o->action == M_ACT_ALLOW ? "allowed" : "denied");
				return false;
			}
			if (!actions_agree(o, r))
				return false;
			return true;
		}
	}
	VEC_PUSH(lw->out->v[lw->out->n - 1].rules, *r);
	return true;
}

bool syscalls_rules_apply(struct variant *v, const struct change *c)
{
	for (size_t k = 0; k < c->rules.n; k++) {
		const struct m_rule *r = &c->rules.v[k];
		bool given = false;
		for (size_t i = 0; i < v->rules.n && !given; i++) {
			const struct m_rule *o = &v->rules.v[i];
			if (!rule_same(o, r) ||
			    (o->action == M_ACT_ALLOW) != (r->action == M_ACT_ALLOW))
				continue;
			if (!actions_agree(o, r))
				return false;
			given = true;
		}
		if (!given)
			VEC_PUSH(v->rules, *r);
	}
	return true;
}

/* A change of the block for the rules of one target. */
static void begin_target(struct lowering *lw, const struct loc *loc)
{
	VEC_PUSH(*lw->out, ((struct change){.kind = CH_RULES, .loc = *loc}));
}

static bool operand_value(const struct operand *op, uint64_t *out)
{
	uint64_t v = 0;
	for (const struct value *t = op->terms; t; t = t->next) {
		uint64_t x = t->num;
		if (t->name && !sysnames_constant_lookup(t->name, &x)) {
			const char *hint = sysnames_constant_suggest(t->name);
			if (hint)
				diag_error_at(&t->loc, "unknown constant '%s'; did you mean '%s'?",
				              t->name, hint);
			else
				diag_error_at(&t->loc, "unknown constant '%s'", t->name);
			return false;
		}
		v |= x;
	}
	*out = v;
	return true;
}

/* The alternatives one argument condition allows: a rule per alternative. */
struct alts {
	int n;
	struct m_cmp cmp[64];
};

static bool cond_alts(const struct cond *c, int arg, bool narrow, const char *sys, struct alts *out)
{
	out->n = 0;
	uint64_t width = narrow ? 0xffffffffULL : UINT64_MAX;
	if (c->kind == COND_ANY)
		return true;
	if (c->kind == COND_NE) {
		diag_error_at(
		    &c->loc,
		    "'!=' on argument %d of '%s' cannot be expressed as a deny rule without "
		    "weakening it; list the values to deny instead",
		    arg, sys);
		return false;
	}
	if (c->kind == COND_MASKED) {
		uint64_t mask, val;
		if (!operand_value(c->operands, &mask) || !operand_value(c->operands->next, &val))
			return false;
		if ((mask & ~width) || (val & ~mask)) {
			diag_error_at(&c->loc,
			              "'& 0x%llx == 0x%llx' can never match argument %d of '%s'",
			              (unsigned long long)mask, (unsigned long long)val, arg, sys);
			return false;
		}
		out->cmp[out->n++] = (struct m_cmp){arg, SCMP_CMP_MASKED_EQ, mask, val};
		return true;
	}
	for (const struct operand *op = c->operands; op; op = op->next) {
		uint64_t val;
		if (!operand_value(op, &val))
			return false;
		if (val & ~width) {
			diag_error_at(&op->loc,
			              "value 0x%llx does not fit the 32-bit argument %d of '%s'",
			              (unsigned long long)val, arg, sys);
			return false;
		}
		if (c->kind == COND_BITS) {
			if (!val) {
				diag_error_at(&op->loc, "'& 0' can never match");
				return false;
			}
			/* "any of these bits": one rule per bit, since one masked
			 * compare can only test all of them at once. */
			for (int b = 0; b < 64; b++) {
				if (!(val & (1ULL << b)))
					continue;
				if (out->n == 64)
					goto too_many;
				out->cmp[out->n++] =
				    (struct m_cmp){arg, SCMP_CMP_MASKED_EQ, 1ULL << b, 1ULL << b};
			}
			continue;
		}
		if (out->n == 64)
			goto too_many;
		out->cmp[out->n++] = narrow ? (struct m_cmp){arg, SCMP_CMP_MASKED_EQ, width, val}
		                            : (struct m_cmp){arg, SCMP_CMP_EQ, 0, val};
	}
	return true;
too_many:
	diag_error_at(&c->loc, "too many alternatives in one condition");
	return false;
}

static char *rule_text(const char *name, const struct m_rule *r)
{
	char *t = ast_printf("%s", name);
	if (!r->n_cmp)
		return t;
	t = ast_printf("%s(", t);
	for (int i = 0; i < r->n_cmp; i++) {
		const struct m_cmp *c = &r->cmp[i];
		if (c->op == SCMP_CMP_EQ)
			t = ast_printf("%s%sarg%d == 0x%llx", t, i ? " && " : "", c->arg,
			               (unsigned long long)c->value);
		else
			t = ast_printf("%s%sarg%d & 0x%llx == 0x%llx", t, i ? " && " : "", c->arg,
			               (unsigned long long)c->mask, (unsigned long long)c->value);
	}
	return ast_printf("%s)", t);
}

static bool expand_call(struct lowering *lw, const struct atom *a, int action)
{
	int nr = sysnames_syscall_lookup(a->text, &a->loc);
	if (nr < 0 && nr != NR_ABSENT)
		return false;
	const struct sysargs *sa = NULL;
	for (size_t i = 0; i < N(sysargs); i++)
		if (strcmp(sysargs[i].name, a->text) == 0)
			sa = &sysargs[i];
	if (!sa) {
		diag_error_at(
		    &a->loc,
		    "argument conditions on '%s' are not supported: its argument types are "
		    "not in aijail-compile's table",
		    a->text);
		return false;
	}
	if (a->n_conds > sa->nargs) {
		diag_error_at(&a->loc, "'%s' takes %d argument%s, the condition names %d", a->text,
		              sa->nargs, sa->nargs == 1 ? "" : "s", a->n_conds);
		return false;
	}
	struct alts alts[6];
	int arg = 0;
	bool any = false;
	for (const struct cond *c = a->conds; c; c = c->next, arg++) {
		if (!cond_alts(c, arg, sa->narrow & (1u << arg), a->text, &alts[arg]))
			return false;
		any |= alts[arg].n > 0;
	}
	if (!any) {
		diag_error_at(&a->loc,
		              "a condition of only '*' matches every call; write '%s' alone",
		              a->text);
		return false;
	}
	if (nr == NR_ABSENT)
		return true; /* checked as on x86_64, but the target has no such call */
	/* The cartesian product of the alternatives, as separate rules. */
	begin_target(lw, &a->loc);
	int idx[6] = {0};
	int count = 0;
	for (;;) {
		struct m_rule r = {.nr = nr, .name = a->text, .action = action, .loc = a->loc};
		for (int i = 0; i < a->n_conds; i++)
			if (alts[i].n)
				r.cmp[r.n_cmp++] = alts[i].cmp[idx[i]];
		r.text = rule_text(a->text, &r);
		if (++count > 256) {
			diag_error_at(&a->loc, "this condition expands to too many rules");
			return false;
		}
		if (!block_add_rule(lw, &r))
			return false;
		int i = 0;
		for (; i < a->n_conds; i++) {
			if (alts[i].n && ++idx[i] < alts[i].n)
				break;
			idx[i] = 0;
		}
		if (i == a->n_conds)
			break;
	}
	return true;
}

static bool lower_rules(struct lowering *lw, const struct atom *targets, int action)
{
	struct nrset *plus = ast_alloc(sizeof(*plus)), *minus = ast_alloc(sizeof(*minus));
	bool ok = true;
	const struct atom *except = NULL;
	for (const struct atom *a = targets; a; a = a->next) {
		if (a->kind == ATOM_WORD && strcmp(a->text, "except") == 0) {
			if (except) {
				diag_error_at(&a->loc, "'except' given twice");
				return false;
			}
			except = a;
		} else if (a->kind == ATOM_CALL) {
			if (except) {
				diag_error_at(&a->loc,
				              "'except' takes names and groups, not conditions");
				ok = false;
				continue;
			}
			ok = expand_call(lw, a, action) && ok;
		} else if (a->kind == ATOM_WORD || a->kind == ATOM_GROUP) {
			ok = sysgroups_set_add_token(except ? minus : plus, a->text, &a->loc, true,
			                             0) &&
			     ok;
		} else {
			diag_error_at(
			    &a->loc,
			    "expected a syscall name, a @group or name(conditions), found %s",
			    ast_atom_kind_name(a->kind));
			ok = false;
		}
	}
	if (!ok)
		return false;
	if (except && !except->next) {
		diag_error_at(&except->loc, "nothing follows 'except'");
		return false;
	}
	for (int nr = 0; nr < NR_LIMIT; nr++) {
		if (minus->in[nr] && !plus->in[nr]) {
			diag_error_at(&minus->loc[nr], "'%s' is not in the set it is taken out of",
			              sysnames_nr_name(nr));
			ok = false;
		}
		if (!plus->in[nr] || minus->in[nr])
			continue;
		struct m_rule r = {
		    .nr = nr, .name = sysnames_nr_name(nr), .action = action, .loc = plus->loc[nr]};
		r.text = ast_strdup(r.name);
		begin_target(lw, &r.loc);
		ok = block_add_rule(lw, &r) && ok;
	}
	return ok;
}

static bool parse_action(const struct atom **ap, int *action, bool for_default)
{
	static const char *const verbs[] = {"allow", "deny", "kill", "return"};
	const struct atom *a = *ap;
	int verb =
	    args_choose(a, for_default ? "syscalls default" : "syscalls verb", verbs, N(verbs));
	if (verb < 0)
		return false;
	*action = verb == 0 ? M_ACT_ALLOW : verb == 1 ? EPERM : M_ACT_KILL;
	if (verb == 3) {
		const struct atom *e = a->next;
		if (e && e->kind == ATOM_NUMBER && e->num >= 1 && e->num < 4096) {
			*action = (int)e->num;
		} else if (e && e->kind == ATOM_WORD && sysnames_errno_lookup(e->text) > 0) {
			*action = sysnames_errno_lookup(e->text);
		} else {
			diag_error_at(
			    e ? &e->loc : &a->loc,
			    "expected an errno name (EPERM, ENOSYS, …) or number after 'return'");
			return false;
		}
		a = e;
	}
	*ap = a->next;
	return true;
}

static bool is_default(const struct stmt *a, const struct stmt *b)
{
	return strcmp(a->key, "syscalls") == 0 && args_count(a) >= 2 && args_word_of(a->args) &&
	       strcmp(a->args->text, "default") == 0;
}

bool syscalls_lower(struct lowering *lw, const struct stmt *s)
{
	if (!args_want(s, 2, -1, "syscalls allow|deny|kill|return ERRNO TARGET…;"))
		return false;
	const struct atom *a = s->args;
	if (args_word_of(a) && strcmp(a->text, "default") == 0) {
		if (!args_first_in_block(lw->first, s, is_default, &s->loc,
		                         "'syscalls default' is already set in this block"))
			return false;
		a = a->next;
		int action;
		if (!parse_action(&a, &action, true))
			return false;
		if (a) {
			diag_error_at(&a->loc,
			              "expected: syscalls default allow|deny|kill|return ERRNO;");
			return false;
		}
		VEC_PUSH(*lw->out,
		         ((struct change){
		             .kind = CH_SYSCALLS_DEFAULT, .loc = s->loc, .action = action}));
		return true;
	}
	int action;
	if (!parse_action(&a, &action, false))
		return false;
	if (!a) {
		diag_error_at(&s->end, "missing syscalls to %s", s->args->text);
		return false;
	}
	return lower_rules(lw, a, action);
}
