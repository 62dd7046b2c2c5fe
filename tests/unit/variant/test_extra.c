/* test_extra.c: what a run's options add (stub/variant/extra.c): --ro and --rw
 * maps, made absolute and checked (refused roots, symlinks, kinds), and
 * --net and the toggles, against the variant's flags; with stub/variant/resolve.c,
 * stub/variant/vars.c.
 * The checks that need no namespace, on a real tree in /tmp.  extra.c
 * keeps its options for the one run, so each case runs in a child of its
 * own, and die() ends that child as it ends the stub, with its message
 * on a pipe. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "variant/variant.h"

/* ---- fakes: die() writes on the pipe ---------------------------------------- */

static int report = -1;

static void say(const char *s)
{
	if (write(report, s, strlen(s)) < 0)
		_exit(1);
}

noreturn void diep(const char *step, const char *what, int err, const char *hint)
{
	char buf[AJ_PATH_MAX + 512];

	snprintf(buf, sizeof(buf), "%s%s%s: %s%s%s", step, what ? " " : "", what ? what : "",
	         err ? strerror(err) : "", err && hint ? ": " : "", hint ? hint : "");
	say(buf);
	_exit(AJ_EXIT_SETUP);
}

noreturn void die(const char *step, int err, const char *hint)
{
	diep(step, NULL, err, hint);
}

noreturn void die_usage(const char *what, const char *arg)
{
	diep("usage", what, 0, arg);
}

/* ---- the fixture ------------------------------------------------------------- */

static char project[64];
static char out[AJ_PATH_MAX + 512];

static const struct aj_mount table[] = {
    {.op = AJ_MOUNT_RO, .rank = 2, .path = {"/usr", AJ_VAR_NONE, ""}},
    {.op = AJ_MOUNT_RW, .rank = 1, .path = {"", AJ_VAR_PROJECT, ""}},
};
static const struct aj_mount_span spans[] = {{table, 2}};
static struct aj_variant variant = {.mount_spans = spans, .n_mount_spans = 1};

static void make(const char *rel, bool dir)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", project, rel);
	if (dir)
		assert_int_equal(mkdir(p, 0755), 0);
	else
		assert_int_equal(close(open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644)), 0);
}

static int setup(void **state)
{
	char p[128];

	(void)state;
	strcpy(project, "/tmp/aj-extra-XXXXXX");
	assert_non_null(mkdtemp(project));
	make("data", true);
	make("sub", true);
	make("home", true);
	make("file", false);
	snprintf(p, sizeof(p), "%s/link", project);
	assert_int_equal(symlink("data", p), 0);
	snprintf(p, sizeof(p), "%s/fifo", project);
	assert_int_equal(mkfifo(p, 0600), 0);
	variant.flags = 0;
	variant.network = AJ_NET_LOOPBACK;
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", project);
	return system(cmd);
}

/* Runs fn in a child; out holds what it said, the status is returned. */
static int in_child(void (*fn)(void))
{
	int p[2], status;
	size_t n = 0;
	ssize_t r;
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(p[0]);
		report = p[1];
		/* The project is the working directory, as for the stub. */
		if (chdir(project))
			_exit(2);
		vars_set(AJ_VAR_PROJECT, project);
		fn();
		_exit(0);
	}
	close(p[1]);
	while ((r = read(p[0], out + n, sizeof(out) - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = '\0';
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* The maps a run added: "OP PATH flags rights rank option;" each. */
static void apply_and_tell(void)
{
	const struct aj_variant *v = extra_apply(&(struct run){.v = &variant});
	char buf[AJ_PATH_MAX + 128];

	if (v == &variant) {
		say("unchanged");
		return;
	}
	if (v->n_mount_spans != variant.n_mount_spans + 1 || v->mount_spans[0].v != table) {
		say("the variant's own spans were not kept");
		return;
	}
	snprintf(buf, sizeof(buf), "net %u;", v->network);
	say(buf);
	for (unsigned i = variant.n_mount_spans; i < v->n_mount_spans; i++)
		for (unsigned k = 0; k < v->mount_spans[i].n; k++) {
			const struct aj_mount *m = &v->mount_spans[i].v[k];

			snprintf(buf, sizeof(buf), " %s %s 0x%x 0x%x %u %s;",
			         m->op == AJ_MOUNT_RW ? "rw" : "ro", m->path.head, m->flags,
			         m->landlock, m->rank, extra_option(m));
			say(buf);
		}
}

static char expect[2 * AJ_PATH_MAX];

/* ---- maps --------------------------------------------------------------------- */

static void relative_map(void)
{
	extra_map("sub/../data", false, "--ro");
	extra_map("./file", true, "--jail-rw=./file");
	apply_and_tell();
}

static void maps_are_absolute_and_marked(void **state)
{
	(void)state;
	assert_int_equal(in_child(relative_map), 0);
	snprintf(expect, sizeof(expect),
	         "net %u; ro %s/data 0x%x 0x%x 0 --ro; rw %s/file 0x%x 0x%x 0 --jail-rw=./file;",
	         AJ_NET_LOOPBACK, project, AJ_MOUNT_MAP, (unsigned)AJ_LL_RIGHTS_READ, project,
	         AJ_MOUNT_MAP, (unsigned)AJ_LL_RIGHTS_ALL);
	assert_string_equal(out, expect);
}

static void nothing_added(void)
{
	apply_and_tell();
}

static void no_option_no_copy(void **state)
{
	(void)state;
	assert_int_equal(in_child(nothing_added), 0);
	assert_string_equal(out, "unchanged");
}

static const char *map_path;
static void map_one(void)
{
	extra_map(map_path, false, "--ro");
	apply_and_tell();
}

/* The hint a map of path gets (the child's whole message). */
static const char *refusal(const char *path)
{
	map_path = path;
	assert_int_equal(in_child(map_one), AJ_EXIT_SETUP);
	return out;
}

static void refused_roots(void **state)
{
	(void)state;
	assert_string_equal(refusal("/"), "map / (--ro): it is the root directory");
	assert_string_equal(refusal("/usr/lib"),
	                    "map /usr/lib (--ro): it is a system directory, or below one");
	assert_string_equal(refusal("/tmp/.X11-unix/X0"),
	                    "map /tmp/.X11-unix/X0 (--ro): it is a system directory, or below one");
	assert_string_equal(refusal("/tmp"), "map /tmp (--ro): it is a system directory");
	assert_string_equal(refusal("/var/run"), "map /var/run (--ro): it is a system directory");
	assert_non_null(strstr(refusal("/run/user/0"), "it is a system directory, or below one"));
}

static void home_and_runtime_dir(void)
{
	char home[96];

	snprintf(home, sizeof(home), "%s/home", project);
	vars_set(AJ_VAR_HOME, strdup(home));
	vars_set(AJ_VAR_XDG_RUNTIME_DIR, strdup(home));
	extra_map(map_path, false, "--ro");
	apply_and_tell();
}

/* $HOME and its parents (a map of them would bring every secret of the
 * home back), and $XDG_RUNTIME_DIR and its: refused; below them is fine. */
static void home_and_its_parents(void **state)
{
	(void)state;
	map_path = "home";
	assert_int_equal(in_child(home_and_runtime_dir), AJ_EXIT_SETUP);
	assert_non_null(strstr(out, "it is your home directory or a parent of it"));
	map_path = project;
	assert_int_equal(in_child(home_and_runtime_dir), AJ_EXIT_SETUP);
	assert_non_null(strstr(out, "it is your home directory or a parent of it"));
	map_path = "data";
	assert_int_equal(in_child(home_and_runtime_dir), 0);
}

static void runtime_dir_only(void)
{
	vars_set(AJ_VAR_HOME, "/nonexistent/home");
	vars_set(AJ_VAR_XDG_RUNTIME_DIR, strdup(project));
	extra_map(map_path, false, "--ro");
	apply_and_tell();
}

static void runtime_dir_and_its_parents(void **state)
{
	(void)state;
	map_path = project;
	assert_int_equal(in_child(runtime_dir_only), AJ_EXIT_SETUP);
	assert_non_null(strstr(out, "it is your runtime directory ($XDG_RUNTIME_DIR)"));
}

/* A symlink anywhere on the way is refused, and the hint says where it
 * leads: a link a jailed run planted must not steer the next map. */
static void symlinks_refused(void **state)
{
	(void)state;
	snprintf(expect, sizeof(expect),
	         "map %s/link (--ro): a symlink is on the way (it leads to %s/data); map that "
	         "path if you mean it",
	         project, project);
	assert_string_equal(refusal("link"), expect);
	make("data/in", true);
	assert_non_null(strstr(refusal("link/in"), "a symlink is on the way"));
}

/* Pid 1 opens a map as it opens any source (resolve.c), but follows no
 * link even where a policy's bind would (one of the caller's own, on the
 * way, outside the project). */
static char outside[80];
static void open_as_pid1(void)
{
	char path[128];
	const char *why = NULL;
	struct aj_mount map = {.op = AJ_MOUNT_RO, .flags = AJ_MOUNT_MAP};
	struct aj_mount bind = {.op = AJ_MOUNT_RO};

	snprintf(path, sizeof(path), "%s/l/x", outside);
	if (resolve_source_open(&bind, path, &why) < 0)
		say("the bind's trusted link was not followed; ");
	if (resolve_source_open(&map, path, &why) >= 0 || !why)
		say("a map followed a link");
	else
		say(why);
}

static void maps_follow_no_link(void **state)
{
	char p[128];

	(void)state;
	snprintf(outside, sizeof(outside), "%s-out", project);
	assert_int_equal(mkdir(outside, 0700), 0);
	snprintf(p, sizeof(p), "%s/d", outside);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/d/x", outside);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/l", outside);
	assert_int_equal(symlink("d", p), 0);
	assert_int_equal(in_child(open_as_pid1), 0);
	snprintf(p, sizeof(p), "rm -rf '%s'", outside);
	assert_int_equal(system(p), 0);
	assert_string_equal(out, "a symlink is on the way; map the place it leads to");
}

static void kinds_refused(void **state)
{
	(void)state;
	assert_non_null(strstr(refusal("fifo"),
	                       "only directories and regular files are mapped; "
	                       "sockets and devices come in through the toggles:"));
	snprintf(expect, sizeof(expect), "map %s/absent: %s: create it first", project,
	         strerror(ENOENT));
	assert_string_equal(refusal("absent"), expect);
}

static void too_many(void)
{
	for (int i = 0; i <= AJ_MAX_EXTRA; i++)
		extra_map("data", false, "--ro");
}

static void at_most_sixteen(void **state)
{
	(void)state;
	assert_int_equal(in_child(too_many), AJ_EXIT_SETUP);
	assert_string_equal(out, "usage too many --ro and --rw maps (at most 16): data");
}

/* ---- what the mode fixed -------------------------------------------------------------- */

static void rw_map(void)
{
	extra_map("data", true, "--rw");
	apply_and_tell();
}

static void rw_refused_in_a_read_only_mode(void **state)
{
	(void)state;
	variant.flags = AJ_VARIANT_PROJECT_RO;
	assert_int_equal(in_child(rw_map), AJ_EXIT_SETUP);
	assert_string_equal(out, "map data (--rw): the mode keeps the project read-only");
	map_path = "data";
	assert_int_equal(in_child(map_one), 0); /* --ro still goes */
}

static void net_host(void)
{
	extra_net(AJ_NET_HOST, "--net");
	apply_and_tell();
}

static void no_net(void)
{
	extra_net(AJ_NET_NONE, "--no-net");
	apply_and_tell();
}

static void net_options(void **state)
{
	(void)state;
	assert_int_equal(in_child(net_host), 0);
	assert_int_equal(in_child(no_net), 0);
	variant.flags = AJ_VARIANT_NET_FIXED;
	assert_int_equal(in_child(net_host), AJ_EXIT_SETUP);
	assert_string_equal(out, "use --net: this mode takes the network away");
	assert_int_equal(in_child(no_net), 0); /* narrower is always allowed */
}

/* --jail-net-max=public: the network the run ends with, or "unchanged". */
static void tell_net(void)
{
	const struct aj_variant *v = extra_apply(&(struct run){.v = &variant});
	char buf[32];

	snprintf(buf, sizeof(buf), v == &variant ? "unchanged" : "net %u", v->network);
	say(buf);
}

static void max_public(void)
{
	extra_net_max(AJ_NET_PUBLIC);
	tell_net();
}

static void host_then_max_public(void)
{
	extra_net(AJ_NET_HOST, "--net");
	extra_net_max(AJ_NET_PUBLIC);
	tell_net();
}

/* A ceiling lowers host and never raises a narrower network. */
static void net_max_lowers_only(void **state)
{
	char want[32];

	(void)state;
	snprintf(want, sizeof(want), "net %u", AJ_NET_PUBLIC);
	variant.network = AJ_NET_HOST;
	assert_int_equal(in_child(max_public), 0);
	assert_string_equal(out, want);
	for (unsigned n = AJ_NET_NONE; n <= AJ_NET_PUBLIC; n++) {
		variant.network = (uint8_t)n;
		assert_int_equal(in_child(max_public), 0);
		assert_string_equal(out, "unchanged");
	}
	variant.network = AJ_NET_NONE;
	assert_int_equal(in_child(host_then_max_public), 0);
	assert_string_equal(out, want);
}

/* ---- the toggles ------------------------------------------------------------------- */

static const char *const mode_names[] = {"normal", "worker"};
static const struct aj_policy toggle_policy = {.modes = mode_names, .n_modes = 2};
static const char *toggle_args[4];

/* Applies toggle_args as options; says the features the run ends with. */
static void toggles_apply(void)
{
	char buf[64];
	const struct aj_variant *v;

	for (unsigned i = 0; toggle_args[i]; i++)
		if (!extra_toggle(toggle_args[i] + 2, toggle_args[i]))
			say("not a toggle;");
	v = extra_apply(&(struct run){.pol = &toggle_policy, .v = &variant, .mode = 1});
	snprintf(buf, sizeof(buf), "features 0x%x%s", v->features,
	         v == &variant ? " unchanged" : "");
	say(buf);
}

static int toggles(const char *a, const char *b)
{
	toggle_args[0] = a;
	toggle_args[1] = b;
	toggle_args[2] = NULL;
	return in_child(toggles_apply);
}

/* On and off by name, the last one winning; on refused where the mode
 * turned the toggle off, naming it; off always allowed. */
static void toggle_options(void **state)
{
	(void)state;
	variant.features = AJ_FEATURE_GPU;
	variant.toggles_fixed = 0;
	assert_int_equal(toggles(NULL, NULL), 0);
	assert_string_equal(out, "features 0x1 unchanged");
	assert_int_equal(toggles("--docker", "--no-gpu"), 0);
	assert_string_equal(out, "features 0x2");
	assert_int_equal(toggles("--no-display", "--display"), 0);
	assert_string_equal(out, "features 0x5");
	assert_int_equal(toggles("--gpus", NULL), 0);
	assert_string_equal(out, "not a toggle;features 0x1 unchanged");
	assert_int_equal(toggles("--no-net", NULL), 0);
	assert_string_equal(out, "not a toggle;features 0x1 unchanged");

	variant.toggles_fixed = AJ_FEATURE_DOCKER | AJ_FEATURE_GPU;
	assert_int_equal(toggles("--docker", NULL), AJ_EXIT_SETUP);
	assert_string_equal(out, "use --docker: the mode worker turns docker off");
	assert_int_equal(toggles("--no-docker", "--no-gpu"), 0);
	assert_string_equal(out, "features 0x0");
	/* Fixed on by the mode: on again changes nothing, off still goes. */
	assert_int_equal(toggles("--gpu", NULL), 0);
	assert_string_equal(out, "features 0x1");
	variant.features = 0;
	variant.toggles_fixed = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(maps_are_absolute_and_marked, setup, teardown),
	    cmocka_unit_test_setup_teardown(no_option_no_copy, setup, teardown),
	    cmocka_unit_test_setup_teardown(refused_roots, setup, teardown),
	    cmocka_unit_test_setup_teardown(home_and_its_parents, setup, teardown),
	    cmocka_unit_test_setup_teardown(runtime_dir_and_its_parents, setup, teardown),
	    cmocka_unit_test_setup_teardown(symlinks_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(maps_follow_no_link, setup, teardown),
	    cmocka_unit_test_setup_teardown(kinds_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(at_most_sixteen, setup, teardown),
	    cmocka_unit_test_setup_teardown(rw_refused_in_a_read_only_mode, setup, teardown),
	    cmocka_unit_test_setup_teardown(net_options, setup, teardown),
	    cmocka_unit_test_setup_teardown(net_max_lowers_only, setup, teardown),
	    cmocka_unit_test_setup_teardown(toggle_options, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
