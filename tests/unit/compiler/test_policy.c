/* compiler/test_policy.c: lexer, parser, semantic checks and the emitted seccomp
 * program of aijail-compile, the last one executed by an interpreter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bpf_run.h"
#include "compile_fixture.h"
#include "diag.h"
#include "model.h"
#include "parse.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>


static struct stmt *parse_str(const char *text)
{
	return parse_src(diag_src_new("t.aj", text, strlen(text)));
}

static const struct variant *variant(const struct compiled *c, const char *group,
				     const char *mode)
{
	for (size_t i = 0; i < c->variants.n; i++)
		if (!strcmp(c->variants.v[i].mode, mode) && !strcmp(c->variants.v[i].command, group))
			return &c->variants.v[i];
	return NULL;
}

static const struct m_mount *mount_at(const struct variant *v, const char *path)
{
	for (size_t i = 0; i < v->mounts.n; i++)
		if (!strcmp(v->mounts.v[i].path.text, path))
			return &v->mounts.v[i];
	return NULL;
}

/* ---- lexer and parser ------------------------------------------------------ */

static void parse_statements_and_blocks(void **state)
{
	(void)state;
	struct stmt *s = parse_str("policy p extends q {\n  ro? /usr \"/a b\";\n  mode m { }\n}\n");
	assert_int_equal(diag_error_count(), 0);
	assert_non_null(s);
	assert_string_equal(s->key, "policy");
	assert_true(s->has_block);
	assert_int_equal(s->args->kind, ATOM_WORD);
	assert_string_equal(s->args->next->text, "extends");
	struct stmt *ro = s->body;
	assert_string_equal(ro->key, "ro?");
	assert_int_equal(ro->loc.line, 2);
	assert_int_equal(ro->loc.col, 3);
	assert_int_equal(ro->args->kind, ATOM_PATH);
	assert_int_equal(ro->args->loc.col, 7);
	assert_int_equal(ro->args->loc.end_col, 10);
	assert_int_equal(ro->args->next->kind, ATOM_STRING);
	assert_string_equal(ro->args->next->text, "/a b");
	assert_string_equal(ro->next->key, "mode");
	assert_true(ro->next->has_block);
	assert_null(ro->next->body);
}

static void lex_numbers_strings_and_assignments(void **state)
{
	(void)state;
	struct stmt *s = parse_str("x 512M 0x10 7 \"a\\\"b\\n\" N=$HOME/x G=\"v w\" @grp ~/.npm;");
	assert_int_equal(diag_error_count(), 0);
	struct atom *a = s->args;
	assert_int_equal(a->num, 512ULL << 20);
	assert_int_equal(a->next->num, 16);
	assert_int_equal(a->next->next->num, 7);
	a = a->next->next->next;
	assert_string_equal(a->text, "a\"b\n");
	a = a->next;
	assert_int_equal(a->kind, ATOM_ASSIGN);
	assert_string_equal(a->text, "N");
	assert_int_equal(a->value->kind, ATOM_PATH);
	assert_string_equal(a->value->text, "$HOME/x");
	a = a->next;
	assert_string_equal(a->value->text, "v w");
	assert_int_equal(a->next->kind, ATOM_GROUP);
	assert_int_equal(a->next->next->kind, ATOM_PATH);
}

static void parse_syscall_conditions(void **state)
{
	(void)state;
	struct stmt *s =
		parse_str("syscalls deny ioctl(*, TIOCSTI) clone(& A | B) socket(in {X, 2}, != 3);");
	assert_int_equal(diag_error_count(), 0);
	struct atom *a = s->args->next;
	assert_int_equal(a->kind, ATOM_CALL);
	assert_int_equal(a->n_conds, 2);
	assert_int_equal(a->conds->kind, COND_ANY);
	assert_int_equal(a->conds->next->kind, COND_EQ);
	assert_string_equal(a->conds->next->operands->terms->name, "TIOCSTI");
	a = a->next;
	assert_int_equal(a->conds->kind, COND_BITS);
	assert_string_equal(a->conds->operands->terms->next->name, "B");
	a = a->next;
	assert_int_equal(a->conds->kind, COND_IN);
	assert_int_equal(a->conds->operands->next->terms->num, 2);
	assert_int_equal(a->conds->next->kind, COND_NE);
}

static void syntax_errors_have_locations(void **state)
{
	(void)state;
	parse_str("policy p {\n  ro /usr\n  rw /x;\n");
	assert_int_equal(diag_error_count(), 1);
	assert_non_null(strstr(diags(), "t.aj:3:9: error: syntax error, unexpected end of file"));
}

static void lexer_errors_are_reported_once(void **state)
{
	(void)state;
	parse_str("policy p {\n  mask \".env;\n}\n");
	assert_int_equal(diag_error_count(), 1);
	assert_non_null(strstr(diags(), "t.aj:2:8: error: missing terminating '\"' character"));
	assert_non_null(strstr(diags(), "    2 |   mask \".env;\n      |        ^~~~~~\n"));
}

/* ---- semantics --------------------------------------------------------------- */

static const char *const small = "policy base {\n"
				 "  ro /usr; rw $PROJECT; tmpfs $HOME; network none;\n"
				 "  mask \".env\" \"conf/*.pem\"; deny \"secrets/\";\n"
				 "  env keep PATH \"LC_*\"; env set HOME=$HOME;\n"
				 "  mode lockdown { ro $PROJECT; }\n"
				 "  mode worker when env HERMES_KANBAN_TASK { gpu off; }\n"
				 "}\n"
				 "policy tool extends base {\n"
				 "  exec tool; network host; rw+ ~/.cache/tool;\n"
				 "}\n";

static void modes_are_complete_tables(void **state)
{
	(void)state;
	struct compiled *c = compile_str(small);
	assert_non_null(c);
	assert_string_equal(c->exec, "tool");
	assert_int_equal(c->modes.n, 3);
	assert_int_equal(c->variants.n, 3);
	const struct variant *normal = variant(c, "", "normal");
	const struct variant *lock = variant(c, "", "lockdown");
	assert_int_equal(mount_at(normal, "$PROJECT")->op, AJ_MOUNT_RW);
	assert_int_equal(mount_at(lock, "$PROJECT")->op, AJ_MOUNT_RO);
	/* The child's settings reach every mode; the mode's win over them. */
	assert_int_equal(normal->network, AJ_NET_HOST);
	assert_int_equal(mount_at(lock, "$HOME/.cache/tool")->flags, AJ_MOUNT_CREATE);
	assert_int_equal(mount_at(normal, "$HOME")->mode, 0700);
	assert_int_equal(c->triggers.n, 1);
	assert_string_equal(c->triggers.v[0].env, "HERMES_KANBAN_TASK");
	assert_string_equal(c->modes.v[c->triggers.v[0].mode], "worker");
}

static void mounts_are_ordered_parents_first(void **state)
{
	(void)state;
	struct compiled *c = compile_str("policy p { ro /usr/share/x; tmpfs $HOME; ro /usr; "
					 "rw+ ~/.a; tmpfs /tmp; }");
	assert_non_null(c);
	const struct variant *v = variant(c, "", "normal");
	/* The policy's own, between the toggles' (off, which a run may turn
	 * on: in the table, tagged). */
	const char *own[8];
	size_t n = 0;
	for (size_t i = 0; i < v->mounts.n && n < 8; i++)
		if (!v->mounts.v[i].toggle)
			own[n++] = v->mounts.v[i].path.text;
	assert_int_equal(n, 5);
	assert_string_equal(own[0], "/usr");
	assert_string_equal(own[1], "/tmp");
	assert_string_equal(own[2], "/usr/share/x");
	assert_string_equal(own[3], "$HOME");
	assert_string_equal(own[4], "$HOME/.a");
}

static void patterns_are_classified(void **state)
{
	(void)state;
	struct compiled *c = compile_str(small);
	assert_non_null(c);
	const struct variant *v = variant(c, "", "normal");
	assert_int_equal(v->patterns.n, 3);
	assert_string_equal(v->patterns.v[0].glob, ".env");
	assert_int_equal(v->patterns.v[0].flags, 0);
	assert_int_equal(v->patterns.v[1].flags, M_PAT_ANCHORED);
	assert_string_equal(v->patterns.v[2].glob, "secrets");
	assert_int_equal(v->patterns.v[2].kind, AJ_PATTERN_DENY);
	assert_int_equal(v->patterns.v[2].flags, M_PAT_DIR);
}

static void variables_split_into_head_var_tail(void **state)
{
	(void)state;
	struct m_path p;
	assert_true(path_parse("/run/user/$UID/bus", NULL, true, &p));
	assert_string_equal(p.head, "/run/user/");
	assert_int_equal(p.var, AJ_VAR_UID);
	assert_string_equal(p.tail, "/bus");
	assert_true(path_parse("~/.cache/", NULL, true, &p));
	assert_int_equal(p.var, AJ_VAR_HOME);
	assert_string_equal(p.tail, "/.cache");
	assert_string_equal(p.text, "$HOME/.cache");
}

static void gpu_display_docker_expand_to_mounts_and_env(void **state)
{
	(void)state;
	struct compiled *c =
		compile_str("policy p { gpu on; docker on; display off; mode worker { gpu off; docker off; } }");
	assert_non_null(c);
	const struct variant *n = variant(c, "", "normal"), *w = variant(c, "", "worker");
	assert_non_null(mount_at(n, "/dev/nvidia[0-9]*"));
	assert_non_null(mount_at(n, "/dev/nvidia-uvm"));
	assert_non_null(mount_at(n, "/sys/devices"));
	assert_int_equal(mount_at(n, "/sys/devices")->flags,
			 AJ_MOUNT_OPTIONAL | AJ_MOUNT_WITH_DEVICES);
	assert_non_null(mount_at(n, "$DOCKER_SOCKET"));
	/* Off by the policy: a run may turn it on, so it is there, tagged. */
	assert_int_equal(mount_at(n, "$X11_SOCKET")->toggle, 1 + AJ_TOGGLE_DISPLAY);
	assert_int_equal(n->toggles_fixed, 0);
	/* Off by a mode block: fixed, and not in the table at all. */
	assert_int_equal(w->toggles_fixed, AJ_FEATURE_GPU | AJ_FEATURE_DOCKER);
	assert_null(mount_at(w, "/dev/nvidia[0-9]*"));
	assert_null(mount_at(w, "/sys/devices"));
	assert_null(mount_at(w, "$DOCKER_SOCKET"));
	assert_non_null(mount_at(w, "$X11_SOCKET"));
	bool cuda = false, cuda_dropped = false, docker_dropped = false, display_dropped = false;
	for (size_t i = 0; i < w->env_keep.n; i++)
		cuda |= !strcmp(w->env_keep.v[i].pattern, "CUDA_*");
	for (size_t i = 0; i < w->env_drop.n; i++) {
		cuda_dropped |= !strcmp(w->env_drop.v[i].pattern, "CUDA_*");
		docker_dropped |= !strcmp(w->env_drop.v[i].pattern, "DOCKER_HOST");
		display_dropped |= !strcmp(w->env_drop.v[i].pattern, "DISPLAY");
	}
	assert_false(cuda);
	assert_true(cuda_dropped);
	assert_true(docker_dropped);
	/* display can still be turned on: its variables are the emitter's
	 * tagged spans, not the variant's own lists. */
	assert_false(display_dropped);
}

/* Modes rank in the order they are declared; a mode that sets the network
 * fixes it; every variant tells the target its mode. */
static void modes_are_ranked_and_say_so(void **state)
{
	(void)state;
	struct compiled *c = compile_str("policy p { network host; gpu on;\n"
					 "  mode worker { gpu off; }\n"
					 "  mode lockdown { network none; gpu off; env drop \"HF_*\"; } }\n");
	assert_non_null(c);
	assert_int_equal(c->modes.n, 3);
	assert_string_equal(c->modes.v[1], "worker");
	assert_string_equal(c->modes.v[2], "lockdown");
	const struct variant *n = variant(c, "", "normal"), *l = variant(c, "", "lockdown");
	assert_int_equal(n->flags & AJ_VARIANT_NET_FIXED, 0);
	assert_int_equal(l->flags & AJ_VARIANT_NET_FIXED, AJ_VARIANT_NET_FIXED);
	bool said = false, hf = false;
	for (size_t i = 0; i < l->env_set.n; i++)
		said |= !strcmp(l->env_set.v[i].name, "AIJAIL_MODE") &&
			!strcmp(l->env_set.v[i].value.text, "lockdown");
	for (size_t i = 0; i < l->env_drop.n; i++)
		hf |= !strcmp(l->env_drop.v[i].pattern, "HF_*");
	assert_true(said);
	assert_true(hf);

	/* Declared after lockdown, a mode may not give the network back. */
	assert_null(compile_str("policy p { network host;\n"
				"  mode lockdown { network none; }\n"
				"  mode ci { network host; } }\n"));
	assert_non_null(strstr(diags(), "t.aj:3:8: error: mode 'ci' must be at least as strict as "
					"mode 'lockdown'"));
}

static void command_groups_use_other_policies(void **state)
{
	(void)state;
	struct compiled *c = compile_str("policy py { exec python3; rw+ ~/.cache/torch; network host; }\n"
					 "policy jail { network none; command python python3 use py;\n"
					 "  mode lockdown { network none; } }\n");
	assert_non_null(c);
	assert_null(c->exec);
	assert_int_equal(c->groups.n, 2);
	assert_int_equal(c->commands.n, 2);
	assert_int_equal(c->variants.n, 4);
	assert_non_null(mount_at(variant(c, "python", "normal"), "$HOME/.cache/torch"));
	assert_null(mount_at(variant(c, "", "normal"), "$HOME/.cache/torch"));
	assert_int_equal(variant(c, "python", "normal")->network, AJ_NET_HOST);
	/* A mode is applied after the command's own settings. */
	assert_int_equal(variant(c, "python", "lockdown")->network, AJ_NET_NONE);
}

/* 'limit': base's defaults reach every variant, a command group's policy
 * and a mode override them, and each variant's table says so. */
static void limits_merge_into_every_variant(void **state)
{
	(void)state;
	struct compiled *c =
	    compile_str("include \"base.aj\";\n"
			"policy build extends base { limit processes 4096; }\n"
			"policy p extends base {\n"
			"  command make use build;\n"
			"  mode lockdown { limit memory 1G; limit processes 64; }\n"
			"}\n");
	assert_non_null(c);
	const struct variant *n = variant(c, "", "normal"), *w = variant(c, "", "worker");
	const struct variant *l = variant(c, "", "lockdown");
	const struct variant *mn = variant(c, "make", "normal"),
			     *ml = variant(c, "make", "lockdown");
	assert_int_equal(n->memory, AJ_MEMORY_PERCENT | 25);
	assert_int_equal(n->processes, 1024);
	assert_int_equal(w->memory, AJ_MEMORY_PERCENT | 25);
	assert_int_equal(l->memory, 1ULL << 30);
	assert_int_equal(l->processes, 64);
	assert_int_equal(mn->processes, 4096);
	assert_int_equal(mn->memory, AJ_MEMORY_PERCENT | 25);
	assert_int_equal(ml->processes, 64);

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_true(emit_header(f, c, "t.aj"));
	fclose(f);
	/* The variants in order: (default, make) x (normal, worker, lockdown). */
	const char *v = strstr(text, ".mode = \"normal\"");
	assert_non_null(v);
	v = strstr(v, ".memory = AJ_MEMORY_PERCENT | 25,\n\t\t.processes = 1024,\n");
	assert_non_null(v);
	v = strstr(v, ".mode = \"lockdown\"");
	assert_non_null(v);
	v = strstr(v, ".memory = 1073741824ULL, /* 1G */\n\t\t.processes = 64,\n");
	assert_non_null(v);
	v = strstr(v, ".command = \"make\"");
	assert_non_null(v);
	assert_non_null(strstr(v, ".processes = 4096,"));
	free(text);

	/* Lowering is fine, raising in a later mode is not. */
	assert_null(
	    compile_str("policy p { limit processes 100; mode ci { limit processes 200; } }"));
	assert_non_null(strstr(diags(),
			       "error: mode 'ci' must be at least as strict as mode "
			       "'normal', declared before it: it allows 200 processes, mode "
			       "'normal' allows 100\n"));
	assert_null(
	    compile_str("policy p { limit memory 4G; mode ci { limit memory unlimited; } }"));
	assert_non_null(strstr(diags(), "its memory limit is unlimited, mode 'normal' has 4G\n"));
}

static void semantic_errors_suggest(void **state)
{
	(void)state;
	assert_null(compile_str("policy p {\n  netwrok none;\n}\n"));
	assert_non_null(strstr(diags(), "t.aj:2:3: error: unknown key 'netwrok'; did you mean "
					"'network'?"));
	assert_null(compile_str("policy p { syscalls deny ptrac; }"));
	assert_non_null(strstr(diags(), "did you mean 'ptrace'?"));
}

static void errors_are_reported_once_across_variants(void **state)
{
	(void)state;
	/* The body is lowered once, whatever the number of variants. */
	assert_null(compile_str("policy p { gpu maybe; mode a { } mode b { } }"));
	assert_int_equal(diag_error_count(), 1);
	const char *d = diags(), *first = strstr(d, "unknown gpu setting");
	assert_non_null(first);
	assert_null(strstr(first + 1, "unknown gpu setting"));
}

/* What two blocks contradict is found in every variant that has both
 * (here one per command group) and said once. */
static void contradictions_between_blocks_are_reported_once(void **state)
{
	(void)state;
	assert_null(compile_str("policy p {\n  mask \"*.key\";\n  command a { }\n"
				"  command b { }\n  mode x { deny \"*.key\"; }\n}\n"));
	assert_int_equal(diag_error_count(), 1);
	const char *first = strstr(diags(), "t.aj:5:17: error: \"*.key\" is both masked and denied");
	assert_non_null(first);
	assert_non_null(strstr(first, "t.aj:2:8: note: masked here"));
	assert_null(strstr(strchr(first, '\n'), "both masked"));

	assert_null(compile_str("policy p {\n  syscalls deny ptrace;\n  command a { }\n"
				"  mode x { syscalls return ENOSYS ptrace; }\n}\n"));
	assert_int_equal(diag_error_count(), 2);
	first = strstr(diags(), "'ptrace' cannot both return ENOSYS and deny");
	assert_non_null(first);
	assert_null(strstr(strchr(first, '\n'), "cannot both"));
}

/* A command block is one block: what it says twice is an error there too. */
static void a_command_block_says_a_thing_once(void **state)
{
	(void)state;
	assert_null(compile_str("policy p {\n  command a {\n    network host;\n"
				"    network none;\n  }\n}\n"));
	assert_non_null(strstr(diags(), "t.aj:4:5: error: 'network' is already set in this block"));
	assert_non_null(strstr(diags(), "t.aj:3:5: note: first given here"));
}

/* The variables of a toggle's mounts are the toggle's: a policy that names
 * one is told which toggle to turn on, and the hint lists a policy's own. */
static void toggle_variables_belong_to_their_toggle(void **state)
{
	(void)state;
	assert_null(compile_str("policy p { rw? $DOCKER_SOCKET; }"));
	assert_non_null(strstr(diags(), "$DOCKER_SOCKET belongs to the 'docker' toggle: write "
					"'docker on;'"));
	assert_null(compile_str("policy p { ro $SOMEWHERE; }"));
	assert_non_null(strstr(diags(), "known: $HOME $PROJECT $UID $XDG_RUNTIME_DIR (and ~)"));
}

static void extends_cycles_are_errors(void **state)
{
	(void)state;
	assert_null(compile_str("policy a extends c { }\npolicy b extends a { }\npolicy c extends b { }\n"));
	assert_non_null(strstr(diags(), "extends itself through a cycle"));
}

/* ---- the emitted seccomp program, executed -------------------------------------- */

/* Every filter runs; the most restrictive verdict wins, as in the kernel. */
static uint32_t run_filters(const struct variant *v, const struct aj_seccomp_data *d)
{
	uint32_t best = AJ_RET_ALLOW;
	for (size_t i = 0; i < v->filters.n; i++)
		best = bpf_merge(best, bpf_run(v->filters.v[i].insns.v, v->filters.v[i].insns.n, d));
	return best;
}

static uint32_t verdict(const struct variant *v, int nr, uint64_t a0, uint64_t a1)
{
	struct aj_seccomp_data d = {.nr = nr, .arch = AJ_AUDIT_ARCH_X86_64};
	d.args[0] = a0;
	d.args[1] = a1;
	return run_filters(v, &d);
}

static const struct variant *shipped(const char *file, const char *mode)
{
	static const char *dirs[] = {"policies"};
	static struct program prog;
	static struct compiled c;
	load_init(&prog, dirs, 1);
	assert_true(load_program(&prog, file, NULL));
	assert_true(load_resolve(&prog));
	assert_true(compile_policy(&prog, prog.last_in_main, &c));
	return variant(&c, "", mode);
}

static void shipped_filter_denies_escapes(void **state)
{
	(void)state;
	const char *modes[] = {"normal", "worker", "lockdown"};
	for (int m = 0; m < 3; m++) {
		const struct variant *v = shipped("policies/worker.aj", modes[m]);
		assert_non_null(v);
		assert_int_equal(verdict(v, SYS_read, 0, 0), AJ_RET_ALLOW);
		assert_int_equal(verdict(v, SYS_openat, 0, 0), AJ_RET_ALLOW);
		assert_int_equal(verdict(v, SYS_ptrace, 0, 0), AJ_RET_ERRNO(EPERM));
		assert_int_equal(verdict(v, SYS_io_uring_setup, 0, 0), AJ_RET_ERRNO(EPERM));
		assert_int_equal(verdict(v, SYS_mount, 0, 0), AJ_RET_ERRNO(EPERM));
		assert_int_equal(verdict(v, SYS_bpf, 0, 0), AJ_RET_ERRNO(EPERM));
		assert_int_equal(verdict(v, SYS_open_by_handle_at, 0, 0), AJ_RET_ERRNO(EPERM));
		assert_int_equal(verdict(v, SYS_setns, 0, 0), AJ_RET_ERRNO(EPERM));
		assert_int_equal(verdict(v, SYS_clone3, 0, 0), AJ_RET_ERRNO(ENOSYS));
		/* ioctl: TIOCSTI denied, with or without junk in the high bits
		 * (the kernel reads an unsigned int), other commands allowed. */
		assert_int_equal(verdict(v, SYS_ioctl, 0, TIOCSTI), AJ_RET_ERRNO(EPERM));
		assert_int_equal(verdict(v, SYS_ioctl, 0, 0xdead00000000ULL | TIOCSTI),
				 AJ_RET_ERRNO(EPERM));
		assert_int_equal(verdict(v, SYS_ioctl, 0, TIOCLINUX), AJ_RET_ERRNO(EPERM));
		assert_int_equal(verdict(v, SYS_ioctl, 0, TCGETS), AJ_RET_ALLOW);
		/* clone and unshare: any namespace flag is denied, threads are not. */
		assert_int_equal(verdict(v, SYS_clone, CLONE_NEWUSER | 17, 0), AJ_RET_ERRNO(EPERM));
		assert_int_equal(verdict(v, SYS_clone, CLONE_NEWNET, 0), AJ_RET_ERRNO(EPERM));
		assert_int_equal(verdict(v, SYS_clone, 17, 0), AJ_RET_ALLOW);
		assert_int_equal(verdict(v, SYS_clone, CLONE_VM | CLONE_THREAD, 0), AJ_RET_ALLOW);
		assert_int_equal(verdict(v, SYS_unshare, CLONE_NEWNS, 0), AJ_RET_ERRNO(EPERM));
		assert_int_equal(verdict(v, SYS_unshare, CLONE_FILES, 0), AJ_RET_ALLOW);
	}
}

static void foreign_abis_are_killed(void **state)
{
	(void)state;
	const struct variant *v = shipped("policies/base.aj", "normal");
	/* x32: the same arch, the x32 bit in the number. */
	assert_int_equal(verdict(v, 0x40000000 | SYS_getpid, 0, 0), AJ_RET_KILL_PROCESS);
	struct aj_seccomp_data d = {.nr = 20, .arch = AJ_AUDIT_ARCH_I386};
	assert_int_equal(run_filters(v, &d), AJ_RET_KILL_PROCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(parse_statements_and_blocks, setup, teardown),
		cmocka_unit_test_setup_teardown(lex_numbers_strings_and_assignments, setup, teardown),
		cmocka_unit_test_setup_teardown(parse_syscall_conditions, setup, teardown),
		cmocka_unit_test_setup_teardown(syntax_errors_have_locations, setup, teardown),
		cmocka_unit_test_setup_teardown(lexer_errors_are_reported_once, setup, teardown),
		cmocka_unit_test_setup_teardown(modes_are_complete_tables, setup, teardown),
		cmocka_unit_test_setup_teardown(mounts_are_ordered_parents_first, setup, teardown),
		cmocka_unit_test_setup_teardown(patterns_are_classified, setup, teardown),
		cmocka_unit_test_setup_teardown(variables_split_into_head_var_tail, setup, teardown),
		cmocka_unit_test_setup_teardown(gpu_display_docker_expand_to_mounts_and_env, setup,
						teardown),
		cmocka_unit_test_setup_teardown(modes_are_ranked_and_say_so, setup, teardown),
		cmocka_unit_test_setup_teardown(command_groups_use_other_policies, setup, teardown),
		cmocka_unit_test_setup_teardown(limits_merge_into_every_variant, setup, teardown),
		cmocka_unit_test_setup_teardown(semantic_errors_suggest, setup, teardown),
		cmocka_unit_test_setup_teardown(errors_are_reported_once_across_variants, setup,
						teardown),
		cmocka_unit_test_setup_teardown(contradictions_between_blocks_are_reported_once,
						setup, teardown),
		cmocka_unit_test_setup_teardown(a_command_block_says_a_thing_once, setup, teardown),
		cmocka_unit_test_setup_teardown(toggle_variables_belong_to_their_toggle, setup,
						teardown),
		cmocka_unit_test_setup_teardown(extends_cycles_are_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(shipped_filter_denies_escapes, setup, teardown),
		cmocka_unit_test_setup_teardown(foreign_abis_are_killed, setup, teardown),
	};
	return cmocka_run_group_tests_name("compiler", tests, NULL, NULL);
}
