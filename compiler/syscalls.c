/* syscalls.c: syscall names, groups, constants and the seccomp backend.
 *
 * Names and numbers come from libseccomp; constants from the C library's
 * and the kernel's headers, never typed by hand.  libseccomp 2.5.4 has
 * traps (research/toolchain-and-dsl.md, A3): SCMP_A1_32 is not a 32-bit
 * compare, two comparisons on one argument fail, a rule with the default
 * action fails.  Every rule is therefore lowered here into one-comparison-
 * per-argument rules with explicit masks before libseccomp sees it. */
#include "diag.h"
#include "model.h"

#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Named groups: systemd's (vendored, so every machine compiles the same
 * policy to the same filter) and aijail's own.  Members are names,
 * "syscall[N]" for numbers libseccomp does not know, other groups, and
 * "except" followed by what to take out.  Names of other architectures or
 * newer than libseccomp are skipped in built-in groups. */
struct group {
	const char *name;
	const char *what;
	const char *members;
};

static const struct group builtin_groups[] = {
#include "groups-systemd.inc"
	{"@bpf", "Loading eBPF programs", "bpf"},
	{"@perf", "Performance monitoring", "perf_event_open"},
	{"@io-uring", "io_uring, whose operations seccomp cannot see",
	 "io_uring_setup io_uring_enter io_uring_register"},
	/* syscall[467] is open_tree_attr (Linux 6.15), unknown to libseccomp 2.5.4. */
	{"@aj-escape", "Everything a sandboxed process must never reach",
	 "@mount @module @reboot @swap @keyring @raw-io @clock @cpu-emulation @obsolete @debug "
	 "@bpf @io-uring process_vm_readv process_vm_writev kcmp process_madvise acct quotactl "
	 "quotactl_fd syslog vhangup setns name_to_handle_at open_by_handle_at userfaultfd "
	 "fanotify_init syscall[467]"},
};

static VEC(struct group) user_groups;

void groups_reset(void)
{
	memset(&user_groups, 0, sizeof(user_groups));
}

static const struct group *group_find(const char *name)
{
	for (size_t i = 0; i < user_groups.n; i++)
		if (strcmp(user_groups.v[i].name, name) == 0)
			return &user_groups.v[i];
	for (size_t i = 0; i < N(builtin_groups); i++)
		if (strcmp(builtin_groups[i].name, name) == 0)
			return &builtin_groups[i];
	return NULL;
}

static bool group_is_user(const struct group *g)
{
	for (size_t i = 0; i < user_groups.n; i++)
		if (g == &user_groups.v[i])
			return true;
	return false;
}

static void group_unknown(const char *name, const struct loc *loc)
{
	const char *names[N(builtin_groups) + 64];
	size_t n = 0;
	for (size_t i = 0; i < N(builtin_groups); i++)
		names[n++] = builtin_groups[i].name;
	for (size_t i = 0; i < user_groups.n && n < N(names); i++)
		names[n++] = user_groups.v[i].name;
	const char *hint = suggest(name, names, n);
	if (hint)
		error_at(loc, "unknown syscall group '%s'; did you mean '%s'?", name, hint);
	else
		error_at(loc, "unknown syscall group '%s' (aijail-compile --list-groups shows them)",
			 name);
}

void groups_list(FILE *f)
{
	for (size_t i = 0; i < N(builtin_groups); i++)
		fprintf(f, "%s\n    # %s\n    %s\n", builtin_groups[i].name, builtin_groups[i].what,
			builtin_groups[i].members);
}

#define C(x) {#x, (uint64_t)(x)}
static const struct constant {
	const char *name;
	uint64_t value;
} constants[] = {
	C(TIOCSTI), C(TIOCLINUX), C(TIOCSETD), C(TIOCCONS), C(TIOCSCTTY),
	C(CLONE_NEWUSER), C(CLONE_NEWNS), C(CLONE_NEWPID), C(CLONE_NEWNET), C(CLONE_NEWIPC),
	C(CLONE_NEWUTS), C(CLONE_NEWCGROUP), C(CLONE_NEWTIME), C(CLONE_THREAD), C(CLONE_VM),
	C(AF_UNIX), C(AF_INET), C(AF_INET6), C(AF_NETLINK), C(AF_PACKET), C(AF_VSOCK),
	C(AF_BLUETOOTH), C(AF_KEY), C(AF_ALG), C(SOCK_STREAM), C(SOCK_DGRAM), C(SOCK_RAW),
	C(SOCK_SEQPACKET), C(PR_SET_DUMPABLE), C(PR_SET_SECCOMP), C(PR_SET_NO_NEW_PRIVS),
	C(PR_CAP_AMBIENT), C(PR_SET_PTRACER), C(PER_LINUX), C(ADDR_NO_RANDOMIZE),
	C(PROT_EXEC), C(PROT_WRITE), C(PROT_READ),
};

bool constant_lookup(const char *name, uint64_t *out)
{
	for (size_t i = 0; i < N(constants); i++) {
		if (strcmp(constants[i].name, name) == 0) {
			*out = constants[i].value;
			return true;
		}
	}
	return false;
}

static const struct constant errnos[] = {
	C(EPERM), C(ENOENT), C(EACCES), C(ENOSYS), C(EINVAL), C(EAFNOSUPPORT), C(EOPNOTSUPP),
	C(EROFS), C(ENETUNREACH), C(EBADF), C(ENOTTY), C(EIO), C(ENODEV), C(ENXIO), C(EAGAIN),
};

int errno_lookup(const char *name)
{
	for (size_t i = 0; i < N(errnos); i++)
		if (strcmp(errnos[i].name, name) == 0)
			return (int)errnos[i].value;
	return -1;
}

const char *errno_name(int e)
{
	for (size_t i = 0; i < N(errnos); i++)
		if ((int)errnos[i].value == e)
			return errnos[i].name;
	return xprintf("%d", e);
}

/* Argument types of the calls that take conditions.  A bit set in 'narrow'
 * marks an int-typed argument: the kernel reads only its low 32 bits, so the
 * filter must compare only those (else TIOCSTI | 0xdead00000000 passes). */
static const struct sysargs {
	const char *name;
	int nargs;
	unsigned narrow;
} sysargs[] = {
	{"ioctl", 3, 0x3},    {"clone", 5, 0x0},    {"unshare", 1, 0x1},   {"setns", 2, 0x3},
	{"socket", 3, 0x7},   {"socketpair", 4, 0x7}, {"personality", 1, 0x1}, {"prctl", 5, 0x1},
	{"kill", 2, 0x3},     {"tgkill", 3, 0x7},   {"fcntl", 3, 0x3},     {"mprotect", 3, 0x4},
	{"mmap", 6, 0x1c},    {"setsockopt", 5, 0x7}, {"keyctl", 5, 0x1},  {"bpf", 3, 0x5},
};

static const char *names_cache[600];
static size_t n_names;

static void load_names(void)
{
	if (n_names)
		return;
	for (int nr = 0; nr < 600 && n_names < N(names_cache); nr++) {
		char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, nr);
		/* Outlives the arena: the table is the same for every run. */
		if (name)
			names_cache[n_names++] = name;
	}
}

int syscall_lookup(const char *name, const struct loc *loc)
{
	int nr = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, name);
	if (nr >= 0)
		return nr;
	if (nr == __NR_SCMP_ERROR) {
		load_names();
		const char *hint = suggest(name, names_cache, n_names);
		if (hint)
			error_at(loc, "unknown syscall '%s'; did you mean '%s'?", name, hint);
		else
			error_at(loc, "unknown syscall '%s'", name);
	} else {
		error_at(loc, "syscall '%s' does not exist on x86_64", name);
	}
	return -1;
}

static const char *action_word(int action)
{
	if (action == M_ACT_ALLOW)
		return "allow";
	if (action == M_ACT_KILL)
		return "kill";
	if (action == EPERM)
		return "deny";
	return xprintf("return %s", errno_name(action));
}

/* Deny wins over allow whatever the order (the filters are stacked so the
 * kernel decides); but one block both allowing and denying the same call
 * is a contradiction, and so are two deny actions for the same condition. */
static bool add_rule(struct variant *v, const struct m_rule *r)
{
	bool r_allow = r->action == M_ACT_ALLOW;
	for (size_t i = 0; i < v->rules.n; i++) {
		const struct m_rule *o = &v->rules.v[i];
		if (o->nr != r->nr)
			continue;
		bool o_allow = o->action == M_ACT_ALLOW;
		if (o_allow != r_allow) {
			if (o->block == r->block && strcmp(o->text, r->text) == 0) {
				error_at(&r->loc, "'%s' is both allowed and denied in this block",
					 r->text);
				note_at(&o->loc, "%s here", o_allow ? "allowed" : "denied");
				return false;
			}
			continue;
		}
		if (!o_allow && o->action != r->action && strcmp(o->text, r->text) == 0) {
			error_at(&r->loc, "'%s' cannot both %s and %s", r->name, action_word(r->action),
				 action_word(o->action));
			note_at(&o->loc, "'%s' is given '%s' here", o->name, action_word(o->action));
			return false;
		}
		if (strcmp(o->text, r->text) == 0)
			return true;
	}
	VEC_PUSH(v->rules, *r);
	return true;
}

static bool operand_value(const struct operand *op, uint64_t *out)
{
	uint64_t v = 0;
	for (const struct value *t = op->terms; t; t = t->next) {
		uint64_t x = t->num;
		if (t->name && !constant_lookup(t->name, &x)) {
			const char *names[N(constants)];
			for (size_t i = 0; i < N(constants); i++)
				names[i] = constants[i].name;
			const char *hint = suggest(t->name, names, N(constants));
			if (hint)
				error_at(&t->loc, "unknown constant '%s'; did you mean '%s'?", t->name,
					 hint);
			else
				error_at(&t->loc, "unknown constant '%s'", t->name);
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

static bool cond_alts(const struct cond *c, int arg, bool narrow, const char *sys,
		      struct alts *out)
{
	out->n = 0;
	uint64_t width = narrow ? 0xffffffffULL : UINT64_MAX;
	if (c->kind == COND_ANY)
		return true;
	if (c->kind == COND_NE) {
		error_at(&c->loc,
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
			error_at(&c->loc, "'& 0x%llx == 0x%llx' can never match argument %d of '%s'",
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
			error_at(&op->loc, "value 0x%llx does not fit the 32-bit argument %d of '%s'",
				 (unsigned long long)val, arg, sys);
			return false;
		}
		if (c->kind == COND_BITS) {
			if (!val) {
				error_at(&op->loc, "'& 0' can never match");
				return false;
			}
			/* "any of these bits": one rule per bit, since one masked
			 * compare can only test all of them at once. */
			for (int b = 0; b < 64; b++) {
				if (!(val & (1ULL << b)))
					continue;
				if (out->n == 64)
					goto too_many;
				out->cmp[out->n++] = (struct m_cmp){arg, SCMP_CMP_MASKED_EQ,
								    1ULL << b, 1ULL << b};
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
	error_at(&c->loc, "too many alternatives in one condition");
	return false;
}

static char *rule_text(const char *name, const struct m_rule *r)
{
	char *t = xprintf("%s", name);
	if (!r->n_cmp)
		return t;
	t = xprintf("%s(", t);
	for (int i = 0; i < r->n_cmp; i++) {
		const struct m_cmp *c = &r->cmp[i];
		if (c->op == SCMP_CMP_EQ)
			t = xprintf("%s%sarg%d == 0x%llx", t, i ? " && " : "", c->arg,
				    (unsigned long long)c->value);
		else
			t = xprintf("%s%sarg%d & 0x%llx == 0x%llx", t, i ? " && " : "", c->arg,
				    (unsigned long long)c->mask, (unsigned long long)c->value);
	}
	return xprintf("%s)", t);
}

static bool expand_call(struct variant *v, const struct atom *a, int action, const void *block)
{
	int nr = syscall_lookup(a->text, &a->loc);
	if (nr < 0)
		return false;
	const struct sysargs *sa = NULL;
	for (size_t i = 0; i < N(sysargs); i++)
		if (strcmp(sysargs[i].name, a->text) == 0)
			sa = &sysargs[i];
	if (!sa) {
		error_at(&a->loc,
			 "argument conditions on '%s' are not supported: its argument types are "
			 "not in aijail-compile's table",
			 a->text);
		return false;
	}
	if (a->n_conds > sa->nargs) {
		error_at(&a->loc, "'%s' takes %d argument%s, the condition names %d", a->text,
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
		error_at(&a->loc, "a condition of only '*' matches every call; write '%s' alone",
			 a->text);
		return false;
	}
	/* The cartesian product of the alternatives, as separate rules. */
	int idx[6] = {0};
	int count = 0;
	for (;;) {
		struct m_rule r = {.nr = nr, .name = a->text, .action = action, .loc = a->loc,
				   .block = block};
		for (int i = 0; i < a->n_conds; i++)
			if (alts[i].n)
				r.cmp[r.n_cmp++] = alts[i].cmp[idx[i]];
		r.text = rule_text(a->text, &r);
		if (++count > 256) {
			error_at(&a->loc, "this condition expands to too many rules");
			return false;
		}
		if (!add_rule(v, &r))
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

/* A set of syscall numbers, each remembering where it was named. */
#define NR_LIMIT 1024

struct nrset {
	unsigned char in[NR_LIMIT];
	struct loc loc[NR_LIMIT];
};

static bool set_add_members(struct nrset *s, const char *members, const struct loc *loc,
			    bool strict, int depth);

static bool set_add_token(struct nrset *s, const char *tok, const struct loc *loc, bool strict,
			  int depth)
{
	if (tok[0] == '@') {
		const struct group *g = group_find(tok);
		if (!g) {
			group_unknown(tok, loc);
			return false;
		}
		if (depth > 8) {
			error_at(loc, "syscall groups nest too deeply");
			return false;
		}
		return set_add_members(s, g->members, loc, group_is_user(g), depth + 1);
	}
	unsigned nr;
	int used = 0;
	if (sscanf(tok, "syscall[%u]%n", &nr, &used) == 1 && tok[used] == 0) {
		if (nr >= NR_LIMIT) {
			error_at(loc, "syscall number %u is out of range (0 to %d)", nr, NR_LIMIT - 1);
			return false;
		}
	} else {
		int n = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, tok);
		if (n < 0 && !strict)
			return true; /* another architecture's, or newer than libseccomp */
		if (n < 0) {
			syscall_lookup(tok, loc);
			return false;
		}
		nr = (unsigned)n;
	}
	if (!s->in[nr]) {
		s->in[nr] = 1;
		s->loc[nr] = *loc;
	}
	return true;
}

/* Members are separated by spaces; "except" starts the ones taken out. */
static bool set_add_members(struct nrset *s, const char *members, const struct loc *loc,
			    bool strict, int depth)
{
	struct nrset *plus = xalloc(sizeof(*plus)), *minus = xalloc(sizeof(*minus));
	bool ok = true, except = false;
	for (const char *p = members; *p;) {
		while (*p == ' ')
			p++;
		size_t len = strcspn(p, " ");
		if (!len)
			break;
		char *tok = xstrndup(p, len);
		p += len;
		if (strcmp(tok, "except") == 0)
			except = true;
		else
			ok = set_add_token(except ? minus : plus, tok, loc, strict, depth) && ok;
	}
	for (int nr = 0; nr < NR_LIMIT; nr++) {
		if (plus->in[nr] && !minus->in[nr] && !s->in[nr]) {
			s->in[nr] = 1;
			s->loc[nr] = plus->loc[nr];
		}
	}
	return ok;
}

static const char *nr_name(int nr)
{
	char *n = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, nr);
	if (!n)
		return xprintf("syscall[%d]", nr);
	const char *r = xstrdup(n);
	free(n);
	return r;
}

bool group_expand_print(FILE *f, const char *name)
{
	struct nrset *set = xalloc(sizeof(*set));
	struct loc none = {0};
	if (!set_add_token(set, name, &none, true, 0))
		return false;
	for (int nr = 0; nr < NR_LIMIT; nr++)
		if (set->in[nr])
			fprintf(f, "%d %s\n", nr, nr_name(nr));
	return true;
}

bool group_define(const struct stmt *s)
{
	const struct atom *a = s->args;
	if (!a || a->kind != ATOM_GROUP || !a->next || s->has_block) {
		error_at(a ? &a->loc : &s->loc, "expected: group @NAME MEMBER… [except MEMBER…];");
		return false;
	}
	if (group_find(a->text)) {
		error_at(&a->loc, "syscall group '%s' already exists", a->text);
		return false;
	}
	char *members = xstrdup("");
	struct nrset *scratch = xalloc(sizeof(*scratch));
	bool ok = true;
	for (const struct atom *m = a->next; m; m = m->next) {
		if (m->kind != ATOM_WORD && m->kind != ATOM_GROUP) {
			error_at(&m->loc, "a group holds syscall names, @groups and 'except'");
			ok = false;
			continue;
		}
		if (strcmp(m->text, "except") != 0)
			ok = set_add_token(scratch, m->text, &m->loc, true, 0) && ok;
		members = xprintf("%s%s%s", members, members[0] ? " " : "", m->text);
	}
	if (ok)
		VEC_PUSH(user_groups, ((struct group){a->text, "defined in a policy", members}));
	return ok;
}

bool syscalls_add(struct variant *v, const struct atom *targets, int action, const void *block)
{
	struct nrset *plus = xalloc(sizeof(*plus)), *minus = xalloc(sizeof(*minus));
	bool ok = true;
	const struct atom *except = NULL;
	for (const struct atom *a = targets; a; a = a->next) {
		if (a->kind == ATOM_WORD && strcmp(a->text, "except") == 0) {
			if (except) {
				error_at(&a->loc, "'except' given twice");
				return false;
			}
			except = a;
		} else if (a->kind == ATOM_CALL) {
			if (except) {
				error_at(&a->loc, "'except' takes names and groups, not conditions");
				ok = false;
				continue;
			}
			ok = expand_call(v, a, action, block) && ok;
		} else if (a->kind == ATOM_WORD || a->kind == ATOM_GROUP) {
			ok = set_add_token(except ? minus : plus, a->text, &a->loc, true, 0) && ok;
		} else {
			error_at(&a->loc,
				 "expected a syscall name, a @group or name(conditions), found %s",
				 atom_kind_name(a->kind));
			ok = false;
		}
	}
	if (!ok)
		return false;
	if (except && !except->next) {
		error_at(&except->loc, "nothing follows 'except'");
		return false;
	}
	for (int nr = 0; nr < NR_LIMIT; nr++) {
		if (minus->in[nr] && !plus->in[nr]) {
			error_at(&minus->loc[nr], "'%s' is not in the set it is taken out of",
				 nr_name(nr));
			ok = false;
		}
		if (!plus->in[nr] || minus->in[nr])
			continue;
		struct m_rule r = {.nr = nr, .name = nr_name(nr), .action = action,
				   .loc = plus->loc[nr], .block = block};
		r.text = xstrdup(r.name);
		ok = add_rule(v, &r) && ok;
	}
	return ok;
}

static uint32_t scmp_action(int action)
{
	if (action == M_ACT_ALLOW)
		return SCMP_ACT_ALLOW;
	return action == M_ACT_KILL ? SCMP_ACT_KILL_PROCESS : SCMP_ACT_ERRNO((uint32_t)action);
}

static bool export_filter(scmp_filter_ctx ctx, struct m_filter *out)
{
	int fd = memfd_create("aj-bpf", MFD_CLOEXEC);
	int rc = fd < 0 ? -errno : seccomp_export_bpf(ctx, fd);
	if (rc) {
		error_plain("libseccomp: cannot export the filter: %s", strerror(-rc));
		if (fd >= 0)
			close(fd);
		return false;
	}
	off_t len = lseek(fd, 0, SEEK_END);
	if (len <= 0 || len % 8 || len / 8 > 4096 || lseek(fd, 0, SEEK_SET) != 0) {
		error_plain("libseccomp: exported filter has a bad size");
		close(fd);
		return false;
	}
	unsigned char *buf = xalloc((size_t)len);
	ssize_t got = read(fd, buf, (size_t)len);
	close(fd);
	if (got != len) {
		error_plain("cannot read the exported filter");
		return false;
	}
	for (off_t i = 0; i < len; i += 8) {
		struct aj_bpf_insn insn;
		memcpy(&insn.code, buf + i, 2);
		insn.jt = buf[i + 2];
		insn.jf = buf[i + 3];
		memcpy(&insn.k, buf + i + 4, 4);
		VEC_PUSH(out->insns, insn);
	}
	return true;
}

/* One filter: a default action and the rules whose action differs from it
 * (allow rules, or deny-type rules). */
static bool build_filter(const struct variant *v, int def, int layer, const int *layers,
			 const char *role, struct m_filter *out)
{
	memset(out, 0, sizeof(*out));
	out->role = role;
	out->default_action = def;
	scmp_filter_ctx ctx = seccomp_init(scmp_action(def));
	if (!ctx) {
		error_plain("libseccomp: cannot create a filter");
		return false;
	}
	int rc = 0;
	/* Native x86_64 only: x32 and int 0x80 calls kill the whole process,
	 * not just the thread (libseccomp's default). */
	rc = rc ? rc : seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	/* A binary tree: longer, but 2.5-3x faster for the kernel to load. */
	rc = rc ? rc : seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	for (size_t i = 0; i < v->rules.n && !rc; i++) {
		const struct m_rule *r = &v->rules.v[i];
		if (layers[i] != layer)
			continue;
		/* An unconditional rule already covers the conditional ones (and
		 * libseccomp would silently drop them anyway). */
		bool covered = false;
		for (size_t j = 0; j < v->rules.n; j++)
			covered |= r->n_cmp && v->rules.v[j].nr == r->nr && !v->rules.v[j].n_cmp &&
				   v->rules.v[j].action == r->action;
		if (covered)
			continue;
		struct scmp_arg_cmp cmp[6];
		for (int k = 0; k < r->n_cmp; k++)
			cmp[k] = (struct scmp_arg_cmp){(unsigned)r->cmp[k].arg,
						       (enum scmp_compare)r->cmp[k].op,
						       r->cmp[k].op == SCMP_CMP_MASKED_EQ
							       ? r->cmp[k].mask
							       : r->cmp[k].value,
						       r->cmp[k].value};
		rc = seccomp_rule_add_exact_array(ctx, scmp_action(r->action), r->nr,
						  (unsigned)r->n_cmp, cmp);
		if (rc) {
			error_at(&r->loc, "libseccomp refused the rule %s: %s", r->text,
				 strerror(-rc));
			seccomp_release(ctx);
			return false;
		}
	}
	if (rc) {
		error_plain("libseccomp: cannot configure the filter: %s", strerror(-rc));
		seccomp_release(ctx);
		return false;
	}
	bool ok = export_filter(ctx, out);
	seccomp_release(ctx);
	return ok;
}

/* Deny wins over allow, whatever the order: an allowlist and the denies go
 * into two stacked filters, and the kernel applies the more restrictive
 * verdict.  That also keeps libseccomp away from mixing actions on one
 * syscall, where it silently drops rules (research A3, pitfall 3). */
bool seccomp_build(struct variant *v)
{
	/* libseccomp mixes actions on one syscall badly, so a syscall whose deny
	 * rules carry several actions (EPERM for one condition, EAFNOSUPPORT
	 * for another) spreads them over layers, one filter each.  Allow rules
	 * are layer -1. */
	int *layers = xalloc((v->rules.n + 1) * sizeof(int));
	int n_layers = 0;
	for (size_t i = 0; i < v->rules.n; i++) {
		const struct m_rule *r = &v->rules.v[i];
		if (r->action == M_ACT_ALLOW) {
			layers[i] = -1;
			continue;
		}
		int seen[16], n_seen = 0;
		layers[i] = -2;
		for (size_t j = 0; j < i && layers[i] == -2; j++) {
			const struct m_rule *o = &v->rules.v[j];
			if (o->nr != r->nr || layers[j] < 0)
				continue;
			if (o->action == r->action)
				layers[i] = layers[j];
			else if (n_seen < 16)
				seen[n_seen++] = layers[j];
		}
		if (layers[i] == -2) {
			int l = 0;
			for (bool taken = true; taken; l += taken) {
				taken = false;
				for (int k = 0; k < n_seen; k++)
					taken |= seen[k] == l;
			}
			layers[i] = l;
		}
		if (layers[i] + 1 > n_layers)
			n_layers = layers[i] + 1;
	}
	if (n_layers > 4) {
		error_plain("too many different deny actions on one syscall");
		return false;
	}
	struct m_filter f;
	/* The denies go first: once an allowlist is installed, seccomp() itself
	 * may no longer be allowed. */
	if (n_layers == 0 && v->sys_default == M_ACT_ALLOW)
		n_layers = 1; /* the architecture check alone */
	for (int l = 0; l < n_layers; l++) {
		if (!build_filter(v, M_ACT_ALLOW, l, layers, l ? "denylist (more)" : "denylist", &f))
			return false;
		VEC_PUSH(v->filters, f);
	}
	if (v->sys_default != M_ACT_ALLOW) {
		if (!build_filter(v, v->sys_default, -1, layers, "allowlist", &f))
			return false;
		VEC_PUSH(v->filters, f);
	}
	return true;
}
