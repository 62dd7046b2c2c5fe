/* sysgroups.c: named syscall groups, the built-in ones and those a policy
 * defines, and sets of syscall numbers. */
#include "sysgroups.h"
#include "diag.h"
#include "sysnames.h"
#include "vec.h"

#include <seccomp.h>
#include <stdlib.h>
#include <string.h>

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

void sysgroups_reset(void)
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
	const char *hint = diag_suggest(name, names, n);
	if (hint)
		diag_error_at(loc, "unknown syscall group '%s'; did you mean '%s'?", name, hint);
	else
		diag_error_at(
		    loc, "unknown syscall group '%s' (aijail-compile --list-groups shows them)",
		    name);
}

void sysgroups_list(FILE *f)
{
	for (size_t i = 0; i < N(builtin_groups); i++)
		fprintf(f, "%s\n    # %s\n    %s\n", builtin_groups[i].name, builtin_groups[i].what,
		        builtin_groups[i].members);
}

/* A set of syscall numbers, each remembering where it was named. */
static bool set_add_members(struct nrset *s, const char *members, const struct loc *loc,
                            bool strict, int depth);

bool sysgroups_set_add_token(struct nrset *s, const char *tok, const struct loc *loc, bool strict,
                             int depth)
{
	if (tok[0] == '@') {
		const struct group *g = group_find(tok);
		if (!g) {
			group_unknown(tok, loc);
			return false;
		}
		if (depth > 8) {
			diag_error_at(loc, "syscall groups nest too deeply");
			return false;
		}
		return set_add_members(s, g->members, loc, group_is_user(g), depth + 1);
	}
	unsigned nr;
	int used = 0;
	if (sscanf(tok, "syscall[%u]%n", &nr, &used) == 1 && tok[used] == 0) {
		if (nr >= NR_LIMIT) {
			diag_error_at(loc, "syscall number %u is out of range (0 to %d)", nr,
			              NR_LIMIT - 1);
			return false;
		}
	} else {
		int n = seccomp_syscall_resolve_name_arch(sysnames_target_arch(), tok);
		if (n < 0 && !strict)
			return true; /* another architecture's, or newer than libseccomp */
		if (n < 0)
			return sysnames_syscall_lookup(tok, loc) == NR_ABSENT;
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
	struct nrset *plus = ast_alloc(sizeof(*plus)), *minus = ast_alloc(sizeof(*minus));
	bool ok = true, except = false;
	for (const char *p = members; *p;) {
		while (*p == ' ')
			p++;
		size_t len = strcspn(p, " ");
		if (!len)
			break;
		char *tok = ast_strndup(p, len);
		p += len;
		if (strcmp(tok, "except") == 0)
			except = true;
		else
			ok = sysgroups_set_add_token(except ? minus : plus, tok, loc, strict,
			                             depth) &&
			     ok;
	}
	for (int nr = 0; nr < NR_LIMIT; nr++) {
		if (plus->in[nr] && !minus->in[nr] && !s->in[nr]) {
			s->in[nr] = 1;
			s->loc[nr] = plus->loc[nr];
		}
	}
	return ok;
}

bool sysgroups_expand_print(FILE *f, const char *name)
{
	struct nrset *set = ast_alloc(sizeof(*set));
	struct loc none = {0};
	if (!sysgroups_set_add_token(set, name, &none, true, 0))
		return false;
	for (int nr = 0; nr < NR_LIMIT; nr++)
		if (set->in[nr])
			fprintf(f, "%d %s\n", nr, sysnames_nr_name(nr));
	return true;
}

bool sysgroups_define(const struct stmt *s)
{
	const struct atom *a = s->args;
	if (!a || a->kind != ATOM_GROUP || !a->next || s->has_block) {
		diag_error_at(a ? &a->loc : &s->loc,
		              "expected: group @NAME MEMBER… [except MEMBER…];");
		return false;
	}
	if (group_find(a->text)) {
		diag_error_at(&a->loc, "syscall group '%s' already exists", a->text);
		return false;
	}
	char *members = ast_strdup("");
	struct nrset *scratch = ast_alloc(sizeof(*scratch));
	bool ok = true;
	for (const struct atom *m = a->next; m; m = m->next) {
		if (m->kind != ATOM_WORD && m->kind != ATOM_GROUP) {
			diag_error_at(&m->loc, "a group holds syscall names, @groups and 'except'");
			ok = false;
			continue;
		}
		if (strcmp(m->text, "except") != 0)
			ok = sysgroups_set_add_token(scratch, m->text, &m->loc, true, 0) && ok;
		members = ast_printf("%s%s%s", members, members[0] ? " " : "", m->text);
	}
	if (ok)
		VEC_PUSH(user_groups, ((struct group){a->text, "defined in a policy", members}));
	return ok;
}
