/* test_report.c: --jail-explain's process sections (stub/explain/report.c),
 * text and JSON: the environment (in JSON the names passed, never their
 * values; odd names escaped), the rlimits (unlimited as null), the limits
 * and what holds them, the filters' lengths and the compiler's seccomp
 * summary parsed into its default, its list and its groups of rules (a
 * rule's own spaces and braces kept whole, a wrapped line joined to its
 * group), and the Landlock rules of the variant and the plan.  The rooms
 * it asks (variant/, proc/, confine/, root/) are the test's stand-ins. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "explain/explain.h"
#include "capture.h"

static struct limit lims[LIMIT_N];
static struct plan_entry fake_plan[2];
static unsigned fake_n;

bool env_span_counts(const struct aj_env_span *s, const struct aj_variant *v, bool drop)
{
	return true;
}
const char *vars_name(unsigned var)
{
	return "HOME";
}
int vars_path_join(const struct aj_path *p, char *out, size_t n)
{
	snprintf(out, n, "%s", p->head);
	return 0;
}
void limits_probe(void)
{
}
const struct limit *limits_at(unsigned i)
{
	return &lims[i];
}
bool limits_nproc_here(void)
{
	return true;
}
bool limits_host_root(void)
{
	return false;
}
void landlock_explain_rule(const char *path, unsigned var, bool optional, uint64_t access)
{
	rp_t("  rule ");
	rp_str(NULL, path);
	rp_t(optional ? " (optional)\n" : "\n");
}
struct plan_entry *plan_entries(unsigned *n)
{
	*n = fake_n;
	return fake_plan;
}

static const char *const keep[] = {"PATH", "TERM"};
static const struct aj_env_span keeps[] = {{keep, 2, 0}};
static const struct aj_env_set sets[] = {{"PS1", {"jail ", 1, "$ "}}};
static const struct aj_rlimit rlimits[] = {{7, 1024, UINT64_MAX}, {99, 1, 2}};
static const struct aj_filter filters[] = {{NULL, 10}, {NULL, 5}};
static const char summary[] = "default errno (denylist)\n"
                              "allow: 3 rules\n"
                              "kill: ptrace(*) ioctl(*, in {0x5412, 0x541c})\n"
                              "  bpf(*)\n"
                              "errno EPERM: mount(*)";
static const struct aj_landlock_rule ll_rules[] = {{{"/tmp", 0, NULL}, 1, 0}};
static const struct aj_mount m_ll = {.landlock = 3, .flags = AJ_MOUNT_OPTIONAL};
static const struct aj_mount m_none = {.landlock = 0};

static struct aj_variant v;
static char *envp[] = {"TOKEN=s3cret", "we\"ird\x01=x", NULL};
static struct run r = {.v = &v, .project = "/p", .envp = envp};

static int reset(void **state)
{
	v = (struct aj_variant){
	    .env_keep = keeps,
	    .n_env_keep = 1,
	    .env_set = sets,
	    .n_env_set = 1,
	    .rlimits = rlimits,
	    .n_rlimits = 2,
	    .filters = filters,
	    .n_filters = 2,
	    .seccomp_summary = summary,
	    .landlock_rules = ll_rules,
	    .n_landlock_rules = 1,
	    .landlock = AJ_LANDLOCK_ON,
	};
	memset(lims, 0, sizeof(lims));
	lims[LIMIT_MEMORY] = (struct limit){.value = 512u << 20,
	                                    .by_cgroup = true,
	                                    .v2 = true,
	                                    .file = "memory.max",
	                                    .cgroup = "/aj"};
	lims[LIMIT_TASKS] = (struct limit){.value = 64, .why = "no pids controller"};
	fake_plan[0] = (struct plan_entry){.m = &m_ll, .path = "/opt"};
	fake_plan[1] = (struct plan_entry){.m = &m_none, .path = "/usr"};
	fake_n = 2;
	return 0;
}

static void report(const struct run *run)
{
	report_process(run, 0);
}

static void text_whole(void **state)
{
	assert_string_equal(
	    capture_section(report, &r, false),
	    "env keep:  PATH TERM \n"
	    "env drop:  none\n"
	    "env set:   PS1=jail $HOME$ \n"
	    "environment passed:\n"
	    "  TOKEN=s3cret\n"
	    "  we\"ird\x01=x\n"
	    "rlimits:\n"
	    "  nofile\tsoft 1024, hard unlimited\n"
	    "  99\tsoft 1, hard 2\n"
	    "limits:\n"
	    "  memory\t512 MiB: the jail as a whole, cgroup v2 /aj (memory.max)\n"
	    "  processes\t64 tasks: RLIMIT_NPROC, per user namespace (the jail's tasks): no pids "
	    "controller\n"
	    "seccomp:   10 + 5 BPF instructions in 2 filters, all of them run on every system "
	    "call\n"
	    "  default errno (denylist)\n"
	    "  allow: 3 rules\n"
	    "  kill: ptrace(*) ioctl(*, in {0x5412, 0x541c})\n"
	    "    bpf(*)\n"
	    "  errno EPERM: mount(*)\n"
	    "  reported: 0 calls (none is refused with an errno but ENOSYS)\n");
}

static void json_whole(void **state)
{
	assert_string_equal(
	    capture_section(report, &r, true),
	    "{\"env\":{\"keep\":[\"PATH\",\"TERM\"],\"drop\":[],\"set\":[\"PS1\"],"
	    "\"passed\":[\"TOKEN\",\"we\\\"ird\\u0001\"]},"
	    "\"rlimits\":[{\"resource\":\"nofile\",\"soft\":1024,\"hard\":null},"
	    "{\"resource\":99,\"soft\":1,\"hard\":2}],"
	    "\"limits\":{\"memory\":{\"value\":536870912,\"percent\":0,\"total\":0,"
	    "\"enforced_by\":\"cgroup\",\"cgroup\":\"/aj\",\"cgroup_file\":\"memory.max\","
	    "\"cgroup_version\":2,\"why\":null},"
	    "\"processes\":{\"value\":64,\"percent\":0,\"total\":0,\"enforced_by\":"
	    "\"RLIMIT_NPROC\",\"cgroup\":null,\"cgroup_file\":null,\"cgroup_version\":null,"
	    "\"why\":\"no pids controller\"}},"
	    "\"seccomp\":{\"filters\":[10,5],\"instructions\":15,\"fallback_filter\":0,"
	    "\"summary\":\"default errno (denylist)\\nallow: 3 rules\\nkill: ptrace(*) ioctl(*, "
	    "in {0x5412, 0x541c})\\n  bpf(*)\\nerrno EPERM: mount(*)\","
	    "\"default\":\"errno\",\"list\":\"denylist\",\"groups\":["
	    "{\"action\":\"kill\",\"rules\":[\"ptrace(*)\",\"ioctl(*, in {0x5412, 0x541c})\","
	    "\"bpf(*)\"]},{\"action\":\"errno EPERM\",\"rules\":[\"mount(*)\"]}],"
	    "\"reported\":{\"calls\":0,\"listener\":false,\"why\":null}}}");
}

/* The values passed stay out of JSON, whatever else changes. */
static void json_has_no_value(void **state)
{
	assert_null(strstr(capture_section(report, &r, true), "s3cret"));
}

static void landlock_rules(void **state)
{
	const struct run *run = &r;

	capture_begin(false);
	report_landlock_rules(run->v);
	assert_string_equal(capture_end(),
	                    "landlock rules:\n  rule /tmp\n  rule /opt (optional)\n");
	capture_begin(true);
	report_landlock_rules(run->v);
	assert_string_equal(capture_end(), "\"landlock_rules\":[\"/tmp\",\"/opt\"]");
	v.landlock = AJ_LANDLOCK_OFF;
	capture_begin(false);
	report_landlock_rules(run->v);
	assert_string_equal(capture_end(), "");
	capture_begin(true);
	report_landlock_rules(run->v);
	assert_string_equal(capture_end(), "\"landlock_rules\":[]");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(text_whole, reset),
	    cmocka_unit_test_setup(json_whole, reset),
	    cmocka_unit_test_setup(json_has_no_value, reset),
	    cmocka_unit_test_setup(landlock_rules, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
