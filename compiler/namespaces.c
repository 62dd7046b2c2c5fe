/* namespaces.c: the 'namespaces' setting: the kinds of namespace the
 * jail's processes may make and how many user namespaces below its own;
 * the kernel's side is aj_variant.userns, the filter's is below. */
#include "namespaces.h"
#include "changes.h"
#include "args.h"
#include "diag.h"
#include "sysnames.h"

#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <string.h>

/* The kinds of namespace 'namespaces' names, by their clone flag. */
#define NS_KINDS(X)                                                                                \
	X(CLONE_NEWUSER, "user")                                                                   \
	X(CLONE_NEWPID, "pid")                                                                     \
	X(CLONE_NEWNET, "net")                                                                     \
	X(CLONE_NEWNS, "mount")                                                                    \
	X(CLONE_NEWIPC, "ipc")                                                                     \
	X(CLONE_NEWUTS, "uts")                                                                     \
	X(CLONE_NEWCGROUP, "cgroup")                                                               \
	X(CLONE_NEWTIME, "time")

#define NS_NAME(flag, name) name,
#define NS_FLAG(flag, name) flag,

/* 'namespaces none;' or 'namespaces KIND… max N;': the kinds the jail's
 * processes may make, and how many user namespaces, at any depth, below
 * the jail's (namespaces_rules turns the rest into filter rules). */
bool namespaces_lower(struct lowering *lw, const struct stmt *s)
{
	static const char *const names[] = {NS_KINDS(NS_NAME)};
	static const unsigned long flags[] = {NS_KINDS(NS_FLAG)};
	struct change c = {.kind = CH_NAMESPACES, .loc = s->loc};
	const struct atom *a = s->args;

	if (!args_key_once(lw->first, s) ||
	    !args_want(s, 1, 12, "namespaces none; or namespaces KIND… max COUNT;"))
		return false;
	if (!a->next && args_word_of(a) && !strcmp(args_word_of(a), "none")) {
		VEC_PUSH(*lw->out, c);
		return true;
	}
	for (; a; a = a->next) {
		if (args_word_of(a) && !strcmp(args_word_of(a), "max")) {
			const struct atom *n = a->next;
			if (!n || n->kind != ATOM_NUMBER || n->num < 1 || n->num > 64 || n->next) {
				diag_error_at(
				    &(n ? n : a)->loc,
				    "'max' ends the statement with the number of user namespaces "
				    "the jail may hold below its own (1 to 64)");
				return false;
			}
			c.ns.max = (int)n->num;
			break;
		}
		int k = args_choose(a, "namespace kind", names, N(names));
		if (k < 0)
			return false;
		c.ns.allow |= flags[k];
	}
	if (!(c.ns.allow & CLONE_NEWUSER)) {
		/* Without a user namespace of their own the jail's processes
		 * hold no capability that makes any other kind. */
		diag_error_at(&s->args->loc,
		              "namespaces other than 'user' need 'user' too "
		              "(a process of the jail has no capability to make them)");
		return false;
	}
	if (!c.ns.max) {
		diag_error_at(&s->loc, "'namespaces user' needs 'max COUNT' (1 to 64): the user "
		                       "namespaces the jail may hold below its own, at any depth");
		return false;
	}
	VEC_PUSH(*lw->out, c);
	return true;
}

/* The filter's side of 'namespaces': clone and unshare with the flag of
 * a kind the policy does not allow are refused, and chroot unless user
 * namespaces are allowed (only a namespace's root may chroot, and a
 * browser's sandbox does it in its own).  The kernel's side is
 * aj_variant.userns. */
void namespaces_rules(struct variant *v)
{
	static const unsigned long flags[] = {NS_KINDS(NS_FLAG)};
	static const char *const calls[] = {"clone", "unshare"};

	for (size_t c = 0; c < N(calls); c++)
		for (size_t i = 0; i < N(flags); i++) {
			unsigned long f = flags[i];
			if (v->ns_allow & f)
				continue;
			struct m_rule r = {
			    .nr = sysnames_syscall_lookup(calls[c], NULL),
			    .name = calls[c],
			    .action = EPERM,
			    .n_cmp = 1,
			    .cmp = {{0, SCMP_CMP_MASKED_EQ, f, f}},
			    .text = ast_printf("%s(arg0 & 0x%lx == 0x%lx)", calls[c], f, f)};
			VEC_PUSH(v->rules, r);
		}
	if (!(v->ns_allow & CLONE_NEWUSER)) {
		struct m_rule r = {.nr = sysnames_syscall_lookup("chroot", NULL),
		                   .name = "chroot",
		                   .action = EPERM,
		                   .text = ast_strdup("chroot")};
		VEC_PUSH(v->rules, r);
	}
}
