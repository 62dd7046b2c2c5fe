/* explain.c: a variant's syscall policy in words: the summary every stub
 * carries for --jail-explain, and the listing of --explain. */
#include "explain.h"
#include "sysnames.h"
#include "variant.h"

#include <seccomp.h>
#include <string.h>

static const char *action_text(int action)
{
	if (action == M_ACT_ALLOW)
		return "allow";
	if (action == M_ACT_KILL)
		return "kill";
	return sysnames_errno_name(action);
}

/* The shape of a one-condition rule, for merging: a bit test (the
 * language's '& V'), an equality, a '!='; anything else is written out. */
static int cond_shape(const struct m_rule *r)
{
	if (r->n_cmp != 1)
		return 0;
	const struct m_cmp *c = &r->cmp[0];
	if (c->op == SCMP_CMP_MASKED_EQ && c->mask == c->value && !(c->mask & (c->mask - 1)))
		return '&';
	if (c->op == SCMP_CMP_EQ || (c->op == SCMP_CMP_MASKED_EQ && c->mask == 0xffffffffULL))
		return '=';
	if (c->op == SCMP_CMP_NE)
		return '!';
	return 0;
}

/* One rule, or a run of rules on the same call and argument that differ
 * only in the value, in the policy language's own syntax: clone(& 0x..),
 * ioctl(*, in {0x5412, 0x541c}), socket(!= 0x1). */
static char *rule_summary(const struct m_rule *r, size_t n)
{
	int shape = cond_shape(r);
	if (!shape)
		return ast_strdup(r->text);
	char *t = ast_printf("%s(", r->name);
	for (int a = 0; a < r->cmp[0].arg; a++)
		t = ast_printf("%s*, ", t);
	if (shape == '&') {
		uint64_t bits = 0;
		for (size_t k = 0; k < n; k++)
			bits |= r[k].cmp[0].value;
		return ast_printf("%s& 0x%llx)", t, (unsigned long long)bits);
	}
	if (shape == '!')
		return ast_printf("%s!= 0x%llx)", t, (unsigned long long)r->cmp[0].value);
	if (n == 1)
		return ast_printf("%s0x%llx)", t, (unsigned long long)r->cmp[0].value);
	t = ast_printf("%sin {", t);
	for (size_t k = 0; k < n; k++)
		t = ast_printf("%s%s0x%llx", t, k ? ", " : "",
		               (unsigned long long)r[k].cmp[0].value);
	return ast_printf("%s})", t);
}

/* What --jail-explain prints: the default, how many calls an allowlist
 * admits, and the deny rules grouped by their action, merged per call and
 * wrapped (the text is carried by every stub: one line per rule cost three
 * times the bytes). */
char *explain_summary(const struct variant *v)
{
	size_t allows = 0;
	for (size_t i = 0; i < v->rules.n; i++)
		allows += v->rules.v[i].action == M_ACT_ALLOW;
	char *s = ast_printf("default %s%s\n", action_text(v->sys_default),
	                     v->sys_default == M_ACT_ALLOW ? " (denylist)" : " (allowlist)");
	if (v->sys_default != M_ACT_ALLOW)
		s = ast_printf("%sallow: %zu rules (aijail-compile --explain lists them)\n", s,
		               allows);
	for (size_t i = 0; i < v->rules.n; i++) {
		int act = v->rules.v[i].action;
		bool seen = act == M_ACT_ALLOW;
		for (size_t k = 0; k < i && !seen; k++)
			seen = v->rules.v[k].action == act;
		if (seen)
			continue;
		const char *head = action_text(act);
		size_t indent = strlen(head) + 1, col = indent;
		s = ast_printf("%s%s:", s, head);
		for (size_t k = i; k < v->rules.n;) {
			const struct m_rule *r = &v->rules.v[k];
			size_t n = 1;
			if (r->action != act) {
				k++;
				continue;
			}
			while (k + n < v->rules.n && cond_shape(r) && cond_shape(r) != '!' &&
			       r[n].action == act && r[n].nr == r->nr &&
			       cond_shape(&r[n]) == cond_shape(r) &&
			       r[n].cmp[0].arg == r->cmp[0].arg)
				n++;
			char *text = rule_summary(r, n);
			if (col > indent && col + 1 + strlen(text) > 76) {
				s = ast_printf("%s\n%*s", s, (int)indent, "");
				col = indent;
			}
			s = ast_printf("%s %s", s, text);
			col += 1 + strlen(text);
			k += n;
		}
		s = ast_printf("%s\n", s);
	}
	return s;
}

void explain_print(FILE *f, const struct compiled *c)
{
	fprintf(f, "policy %s: exec %s", c->policy->name, c->exec ? c->exec : "(the command line)");
	for (size_t i = 0; i < c->exec_args.n; i++)
		fprintf(f, " %s", c->exec_args.v[i]);
	fprintf(f, ", default mode %s\n", c->modes.v[c->default_mode]);
	for (size_t i = 0; i < c->triggers.n; i++)
		fprintf(f, "  mode %s when $%s is set\n", c->modes.v[c->triggers.v[i].mode],
		        c->triggers.v[i].env);
	for (size_t i = 0; i < c->commands.n; i++)
		fprintf(f, "  command %s -> group %s\n", c->commands.v[i].name,
		        c->groups.v[c->commands.v[i].group].name);
	for (size_t i = 0; i < c->variants.n; i++) {
		const struct variant *v = &c->variants.v[i];
		fprintf(f, "\nvariant %s%s%s:\n", v->command[0] ? v->command : "",
		        v->command[0] ? "/" : "", v->mode);
		fprintf(f, "  default action: %s; deny rules win over allow rules\n",
		        action_text(v->sys_default));
		if (sysnames_target_arch() == SCMP_ARCH_X86_64)
			fprintf(f, "  architecture: native x86_64 only; x32 and i386 (int 0x80) "
			           "calls kill the process\n");
		else
			fprintf(f,
			        "  architecture: native %s only; other calls (AArch32) kill the "
			        "process\n",
			        sysnames_target_arch_name());
		fprintf(f, "  numbers unknown to libseccomp %d.%d.%d (above its table): %s\n",
		        SCMP_VER_MAJOR, SCMP_VER_MINOR, SCMP_VER_MICRO,
		        v->sys_default == M_ACT_ALLOW ? "allowed unless named as syscall[N]"
		                                      : "get the default action");
		fprintf(f, "  filters:");
		for (size_t k = 0; k < v->filters.n; k++)
			fprintf(f, "%s %s %zu instructions", k ? "," : "", v->filters.v[k].role,
			        v->filters.v[k].insns.n);
		fprintf(f, " (binary trees)\n  rules:\n");
		for (size_t k = 0; k < v->rules.n; k++)
			fprintf(f, "    %-40s %s\n", v->rules.v[k].text,
			        action_text(v->rules.v[k].action));
	}
}
