/* sample-jail.h: a hand-made stand-in for build/gen/jail.h (the generic
 * jail: no fixed command), built from sample.h's tables.  Two command
 * groups: "" (default, no caches, loopback network) and python. */
#include "include/aj_table.h"
#if AJ_ABI != 2
#error "generated for another AJ_ABI"
#endif

static const struct aj_bpf_insn aj_v0_seccomp[] = {{0x20, 0, 0, 0x4}, {0x15, 1, 0, 0xc000003e}, {0x06, 0, 0, 0x80000000}, {0x20, 0, 0, 0x0}, {0x35, 0, 1, 0x40000000}, {0x06, 0, 0, 0x80000000}, {0x15, 0, 1, 0x1b3}, {0x06, 0, 0, 0x50026}, {0x15, 0, 5, 0x10}, {0x20, 0, 0, 0x18}, {0x15, 2, 0, 0x5412}, {0x15, 1, 0, 0x541c}, {0x06, 0, 0, 0x7fff0000}, {0x06, 0, 0, 0x50001}, {0x15, 30, 0, 0xa5}, {0x15, 29, 0, 0xa6}, {0x15, 28, 0, 0x9b}, {0x15, 27, 0, 0x65}, {0x15, 26, 0, 0x110}, {0x15, 25, 0, 0x134}, {0x15, 24, 0, 0x1ac}, {0x15, 23, 0, 0x1ad}, {0x15, 22, 0, 0x1ae}, {0x15, 21, 0, 0x1af}, {0x15, 20, 0, 0x1b0}, {0x15, 19, 0, 0x1b1}, {0x15, 18, 0, 0x1ba}, {0x15, 17, 0, 0xf6}, {0x15, 16, 0, 0x140}, {0x15, 15, 0, 0xaf}, {0x15, 14, 0, 0x139}, {0x15, 13, 0, 0xb0}, {0x15, 12, 0, 0x141}, {0x15, 11, 0, 0x143}, {0x15, 10, 0, 0x1a9}, {0x15, 9, 0, 0xfa}, {0x15, 8, 0, 0xf8}, {0x15, 7, 0, 0xf9}, {0x15, 6, 0, 0x12a}, {0x15, 5, 0, 0x136}, {0x15, 4, 0, 0x137}, {0x15, 3, 0, 0xa9}, {0x15, 2, 0, 0xa7}, {0x15, 1, 0, 0xa8}, {0x06, 0, 0, 0x7fff0000}, {0x06, 0, 0, 0x50001}};
static const struct aj_filter aj_v0_filters[] = {{aj_v0_seccomp, sizeof(aj_v0_seccomp) / sizeof(aj_v0_seccomp[0])}};
static const struct aj_mount aj_v0_mounts[] = {
	{AJ_MOUNT_RO, 0, 0, {"/usr", AJ_VAR_NONE, ""}, 0},
	{AJ_MOUNT_RO, 0, 0, {"/etc", AJ_VAR_NONE, ""}, 0},
	{AJ_MOUNT_RO, AJ_MOUNT_OPTIONAL, 0, {"/opt", AJ_VAR_NONE, ""}, 0},
	{AJ_MOUNT_LINK, 0, 0, {"/bin", AJ_VAR_NONE, ""}, "usr/bin"},
	{AJ_MOUNT_LINK, 0, 0, {"/sbin", AJ_VAR_NONE, ""}, "usr/sbin"},
	{AJ_MOUNT_LINK, 0, 0, {"/lib", AJ_VAR_NONE, ""}, "usr/lib"},
	{AJ_MOUNT_LINK, 0, 0, {"/lib64", AJ_VAR_NONE, ""}, "usr/lib64"},
	{AJ_MOUNT_TMPFS, 0, 01777, {"/tmp", AJ_VAR_NONE, ""}, 0},
	{AJ_MOUNT_TMPFS, 0, 01777, {"/var/tmp", AJ_VAR_NONE, ""}, 0},
	{AJ_MOUNT_TMPFS, 0, 0755, {"/run", AJ_VAR_NONE, ""}, 0},
	{AJ_MOUNT_DEV, 0, 0, {"/dev", AJ_VAR_NONE, ""}, 0},
	{AJ_MOUNT_PROC, 0, 0, {"/proc", AJ_VAR_NONE, ""}, 0},
	{AJ_MOUNT_DEVICE, AJ_MOUNT_OPTIONAL, 0, {"/dev/nvidia*", AJ_VAR_NONE, ""}, 0},
	{AJ_MOUNT_DEVICE, AJ_MOUNT_OPTIONAL, 0, {"/dev/dri", AJ_VAR_NONE, ""}, 0},
	{AJ_MOUNT_TMPFS, 0, 0700, {"", AJ_VAR_HOME, ""}, 0},
	{AJ_MOUNT_RW, AJ_MOUNT_OPTIONAL | AJ_MOUNT_CREATE, 0, {"", AJ_VAR_HOME, "/.cache/huggingface"}, 0},
	{AJ_MOUNT_RW, AJ_MOUNT_OPTIONAL | AJ_MOUNT_CREATE, 0, {"", AJ_VAR_HOME, "/.cache/torch"}, 0},
	{AJ_MOUNT_RW, 0, 0, {"", AJ_VAR_PROJECT, ""}, 0},
	{AJ_MOUNT_RO, AJ_MOUNT_OPTIONAL, 0, {"", AJ_VAR_X11_SOCKET, ""}, 0},
};
static const struct aj_mount aj_v1_mounts[] = {
	{AJ_MOUNT_RO, 0, 0, {"/usr", AJ_VAR_NONE, ""}, 0},
	{AJ_MOUNT_RO, 0, 0, {"/etc", AJ_VAR_NONE, ""}, 0},
	{AJ_MOUNT_RO, AJ_MOUNT_OPTIONAL, 0, {"/opt", AJ_VAR_NONE, ""}, 0},
	{AJ_MOUNT_LINK, 0, 0, {"/bin", AJ_VAR_NONE, ""}, "usr/bin"},
	{AJ_MOUNT_LINK, 0, 0, {"/sbin", AJ_VAR_NONE, ""}, "usr/sbin"},
	{AJ_MOUNT_LINK, 0, 0, {"/lib", AJ_VAR_NONE, ""}, "usr/lib"},
	{AJ_MOUNT_LINK, 0, 0, {"/lib64", AJ_VAR_NONE, ""}, "usr/lib64"},
	{AJ_MOUNT_TMPFS, 0, 01777, {"/tmp", AJ_VAR_NONE, ""}, 0},
	{AJ_MOUNT_TMPFS, 0, 01777, {"/var/tmp", AJ_VAR_NONE, ""}, 0},
	{AJ_MOUNT_TMPFS, 0, 0755, {"/run", AJ_VAR_NONE, ""}, 0},
	{AJ_MOUNT_DEV, 0, 0, {"/dev", AJ_VAR_NONE, ""}, 0},
	{AJ_MOUNT_PROC, 0, 0, {"/proc", AJ_VAR_NONE, ""}, 0},
	{AJ_MOUNT_TMPFS, 0, 0700, {"", AJ_VAR_HOME, ""}, 0},
	{AJ_MOUNT_RW, AJ_MOUNT_OPTIONAL | AJ_MOUNT_CREATE, 0, {"", AJ_VAR_HOME, "/.cache/huggingface"}, 0},
	{AJ_MOUNT_RW, AJ_MOUNT_OPTIONAL | AJ_MOUNT_CREATE, 0, {"", AJ_VAR_HOME, "/.cache/torch"}, 0},
	{AJ_MOUNT_RW, 0, 0, {"", AJ_VAR_PROJECT, ""}, 0},
};
static const struct aj_mount aj_v2_mounts[] = {
	{AJ_MOUNT_RO, 0, 0, {"/usr", AJ_VAR_NONE, ""}, 0},
	{AJ_MOUNT_RO, 0, 0, {"/etc", AJ_VAR_NONE, ""}, 0},
	{AJ_MOUNT_RO, AJ_MOUNT_OPTIONAL, 0, {"/opt", AJ_VAR_NONE, ""}, 0},
	{AJ_MOUNT_LINK, 0, 0, {"/bin", AJ_VAR_NONE, ""}, "usr/bin"},
	{AJ_MOUNT_LINK, 0, 0, {"/sbin", AJ_VAR_NONE, ""}, "usr/sbin"},
	{AJ_MOUNT_LINK, 0, 0, {"/lib", AJ_VAR_NONE, ""}, "usr/lib"},
	{AJ_MOUNT_LINK, 0, 0, {"/lib64", AJ_VAR_NONE, ""}, "usr/lib64"},
	{AJ_MOUNT_TMPFS, 0, 01777, {"/tmp", AJ_VAR_NONE, ""}, 0},
	{AJ_MOUNT_TMPFS, 0, 01777, {"/var/tmp", AJ_VAR_NONE, ""}, 0},
	{AJ_MOUNT_TMPFS, 0, 0755, {"/run", AJ_VAR_NONE, ""}, 0},
	{AJ_MOUNT_DEV, 0, 0, {"/dev", AJ_VAR_NONE, ""}, 0},
	{AJ_MOUNT_PROC, 0, 0, {"/proc", AJ_VAR_NONE, ""}, 0},
	{AJ_MOUNT_TMPFS, 0, 0700, {"", AJ_VAR_HOME, ""}, 0},
	{AJ_MOUNT_RW, AJ_MOUNT_OPTIONAL | AJ_MOUNT_CREATE, 0, {"", AJ_VAR_HOME, "/.cache/huggingface"}, 0},
	{AJ_MOUNT_RW, AJ_MOUNT_OPTIONAL | AJ_MOUNT_CREATE, 0, {"", AJ_VAR_HOME, "/.cache/torch"}, 0},
	{AJ_MOUNT_RO, 0, 0, {"", AJ_VAR_PROJECT, ""}, 0},
};
static const struct aj_pattern aj_v0_patterns[] = {
	{AJ_PATTERN_MASK, 0, ".env"}, {AJ_PATTERN_MASK, 0, ".env.*"},
	{AJ_PATTERN_MASK, 0, "credentials.json"}, {AJ_PATTERN_MASK, 0, "secrets.yml"},
	{AJ_PATTERN_MASK, 0, "*token*.json"}, {AJ_PATTERN_MASK, 0, "*.pem"},
	{AJ_PATTERN_MASK, 0, "id_ed25519*"}, {AJ_PATTERN_MASK, 0, "id_rsa*"},
	{AJ_PATTERN_DENY, AJ_PATTERN_DIR, "secrets"}, {AJ_PATTERN_DENY, 0, "*.key"},
	{AJ_PATTERN_DENY, AJ_PATTERN_DIR, ".gnupg"},
	{AJ_PATTERN_MASK, AJ_PATTERN_ANCHORED, "config/**/prod.yml"},
};
#define RW_DEV (AJ_LL_READ_FILE | AJ_LL_WRITE_FILE | AJ_LL_READ_DIR | AJ_LL_IOCTL_DEV | AJ_LL_TRUNCATE)
static const struct aj_landlock_rule aj_v0_landlock[] = {
	{{"/", AJ_VAR_NONE, ""}, AJ_LL_READ_DIR, 0},
	{{"/usr", AJ_VAR_NONE, ""}, AJ_LL_RIGHTS_READ, 0},
	{{"/etc", AJ_VAR_NONE, ""}, AJ_LL_READ_FILE | AJ_LL_READ_DIR, 0},
	{{"/opt", AJ_VAR_NONE, ""}, AJ_LL_RIGHTS_READ, AJ_LL_RULE_OPTIONAL},
	{{"/tmp", AJ_VAR_NONE, ""}, AJ_LL_RIGHTS_ALL, 0},
	{{"/var/tmp", AJ_VAR_NONE, ""}, AJ_LL_RIGHTS_ALL, 0},
	{{"/run", AJ_VAR_NONE, ""}, AJ_LL_RIGHTS_ALL, 0},
	{{"/dev", AJ_VAR_NONE, ""}, RW_DEV, 0},
	{{"/dev/shm", AJ_VAR_NONE, ""}, AJ_LL_RIGHTS_ALL, 0},
	{{"/proc", AJ_VAR_NONE, ""}, AJ_LL_READ_FILE | AJ_LL_READ_DIR | AJ_LL_WRITE_FILE, 0},
	{{"", AJ_VAR_HOME, ""}, AJ_LL_RIGHTS_ALL, 0},
	{{"", AJ_VAR_PROJECT, ""}, AJ_LL_RIGHTS_ALL, 0},
};
static const struct aj_landlock_rule aj_v2_landlock[] = {
	{{"/", AJ_VAR_NONE, ""}, AJ_LL_READ_DIR, 0},
	{{"/usr", AJ_VAR_NONE, ""}, AJ_LL_RIGHTS_READ, 0},
	{{"/etc", AJ_VAR_NONE, ""}, AJ_LL_READ_FILE | AJ_LL_READ_DIR, 0},
	{{"/opt", AJ_VAR_NONE, ""}, AJ_LL_RIGHTS_READ, AJ_LL_RULE_OPTIONAL},
	{{"/tmp", AJ_VAR_NONE, ""}, AJ_LL_RIGHTS_ALL, 0},
	{{"/var/tmp", AJ_VAR_NONE, ""}, AJ_LL_RIGHTS_ALL, 0},
	{{"/run", AJ_VAR_NONE, ""}, AJ_LL_RIGHTS_ALL, 0},
	{{"/dev", AJ_VAR_NONE, ""}, RW_DEV, 0},
	{{"/dev/shm", AJ_VAR_NONE, ""}, AJ_LL_RIGHTS_ALL, 0},
	{{"/proc", AJ_VAR_NONE, ""}, AJ_LL_READ_FILE | AJ_LL_READ_DIR | AJ_LL_WRITE_FILE, 0},
	{{"", AJ_VAR_HOME, ""}, AJ_LL_RIGHTS_ALL, 0},
	{{"", AJ_VAR_PROJECT, ""}, AJ_LL_RIGHTS_READ, 0},
};
static const char *const aj_v0_env_keep[] = {
	"PATH", "TERM", "COLORTERM", "NO_COLOR", "LANG", "LANGUAGE", "LC_*", "TZ", "USER", "LOGNAME",
	"PYTHONPATH", "PYTHONUNBUFFERED", "VIRTUAL_ENV", "HF_*", "TORCH_*",
};
static const struct aj_env_set aj_v0_env_set[] = {
	{"HOME", {"", AJ_VAR_HOME, ""}},
	{"AIJAIL", {"1", AJ_VAR_NONE, ""}},
};
static const struct aj_rlimit aj_v0_rlimits[] = {
	{4 /* RLIMIT_CORE */, 0, 0},
};
static const struct aj_variant aj_variants[] = {
	{
		.mode = "normal", .command = "", .hostname = "jail", .network = AJ_NET_LOOPBACK,
		.landlock = AJ_LANDLOCK_ON, .landlock_min_abi = 0, .features = AJ_FEATURE_GPU | AJ_FEATURE_DISPLAY, .timeout = 0,
		.mounts = aj_v0_mounts, .n_mounts = 19,
		.patterns = aj_v0_patterns, .n_patterns = sizeof(aj_v0_patterns) / sizeof(aj_v0_patterns[0]),
		.landlock_rules = aj_v0_landlock, .n_landlock_rules = 12,
		.env_keep = aj_v0_env_keep, .n_env_keep = sizeof(aj_v0_env_keep) / sizeof(aj_v0_env_keep[0]),
		.env_set = aj_v0_env_set, .n_env_set = 2,
		.rlimits = aj_v0_rlimits, .n_rlimits = 1,
		.filters = aj_v0_filters, .n_filters = 1,
		.seccomp_summary = "default allow\ndeny @mount @module ptrace unshare setns bpf keyctl\nioctl TIOCSTI TIOCLINUX: EPERM\nclone3: ENOSYS\n",
	},
	{
		.mode = "worker", .command = "", .hostname = "jail", .network = AJ_NET_LOOPBACK,
		.landlock = AJ_LANDLOCK_ON, .landlock_min_abi = 0, .features = 0, .timeout = 0,
		.mounts = aj_v1_mounts, .n_mounts = 16,
		.patterns = aj_v0_patterns, .n_patterns = sizeof(aj_v0_patterns) / sizeof(aj_v0_patterns[0]),
		.landlock_rules = aj_v0_landlock, .n_landlock_rules = 12,
		.env_keep = aj_v0_env_keep, .n_env_keep = sizeof(aj_v0_env_keep) / sizeof(aj_v0_env_keep[0]),
		.env_set = aj_v0_env_set, .n_env_set = 2,
		.rlimits = aj_v0_rlimits, .n_rlimits = 1,
		.filters = aj_v0_filters, .n_filters = 1,
		.seccomp_summary = "default allow\ndeny @mount @module ptrace unshare setns bpf keyctl\nioctl TIOCSTI TIOCLINUX: EPERM\nclone3: ENOSYS\n",
	},
	{
		.mode = "lockdown", .command = "", .hostname = "jail", .network = AJ_NET_NONE,
		.landlock = AJ_LANDLOCK_ON, .landlock_min_abi = 0, .features = 0, .timeout = 0,
		.mounts = aj_v2_mounts, .n_mounts = 16,
		.patterns = aj_v0_patterns, .n_patterns = sizeof(aj_v0_patterns) / sizeof(aj_v0_patterns[0]),
		.landlock_rules = aj_v2_landlock, .n_landlock_rules = 12,
		.env_keep = aj_v0_env_keep, .n_env_keep = sizeof(aj_v0_env_keep) / sizeof(aj_v0_env_keep[0]),
		.env_set = aj_v0_env_set, .n_env_set = 2,
		.rlimits = aj_v0_rlimits, .n_rlimits = 1,
		.filters = aj_v0_filters, .n_filters = 1,
		.seccomp_summary = "default allow\ndeny @mount @module ptrace unshare setns bpf keyctl\nioctl TIOCSTI TIOCLINUX: EPERM\nclone3: ENOSYS\n",
	},

	{
		.mode = "normal", .command = "python", .hostname = "jail", .network = AJ_NET_HOST,
		.landlock = AJ_LANDLOCK_ON, .landlock_min_abi = 0, .features = AJ_FEATURE_GPU | AJ_FEATURE_DISPLAY, .timeout = 0,
		.mounts = aj_v0_mounts, .n_mounts = 19,
		.patterns = aj_v0_patterns, .n_patterns = sizeof(aj_v0_patterns) / sizeof(aj_v0_patterns[0]),
		.landlock_rules = aj_v0_landlock, .n_landlock_rules = 12,
		.env_keep = aj_v0_env_keep, .n_env_keep = sizeof(aj_v0_env_keep) / sizeof(aj_v0_env_keep[0]),
		.env_set = aj_v0_env_set, .n_env_set = 2,
		.rlimits = aj_v0_rlimits, .n_rlimits = 1,
		.filters = aj_v0_filters, .n_filters = 1,
		.seccomp_summary = "default allow\ndeny @mount @module ptrace unshare setns bpf keyctl\nioctl TIOCSTI TIOCLINUX: EPERM\nclone3: ENOSYS\n",
	},
	{
		.mode = "worker", .command = "python", .hostname = "jail", .network = AJ_NET_HOST,
		.landlock = AJ_LANDLOCK_ON, .landlock_min_abi = 0, .features = 0, .timeout = 0,
		.mounts = aj_v1_mounts, .n_mounts = 16,
		.patterns = aj_v0_patterns, .n_patterns = sizeof(aj_v0_patterns) / sizeof(aj_v0_patterns[0]),
		.landlock_rules = aj_v0_landlock, .n_landlock_rules = 12,
		.env_keep = aj_v0_env_keep, .n_env_keep = sizeof(aj_v0_env_keep) / sizeof(aj_v0_env_keep[0]),
		.env_set = aj_v0_env_set, .n_env_set = 2,
		.rlimits = aj_v0_rlimits, .n_rlimits = 1,
		.filters = aj_v0_filters, .n_filters = 1,
		.seccomp_summary = "default allow\ndeny @mount @module ptrace unshare setns bpf keyctl\nioctl TIOCSTI TIOCLINUX: EPERM\nclone3: ENOSYS\n",
	},
	{
		.mode = "lockdown", .command = "python", .hostname = "jail", .network = AJ_NET_NONE,
		.landlock = AJ_LANDLOCK_ON, .landlock_min_abi = 0, .features = 0, .timeout = 0,
		.mounts = aj_v2_mounts, .n_mounts = 16,
		.patterns = aj_v0_patterns, .n_patterns = sizeof(aj_v0_patterns) / sizeof(aj_v0_patterns[0]),
		.landlock_rules = aj_v2_landlock, .n_landlock_rules = 12,
		.env_keep = aj_v0_env_keep, .n_env_keep = sizeof(aj_v0_env_keep) / sizeof(aj_v0_env_keep[0]),
		.env_set = aj_v0_env_set, .n_env_set = 2,
		.rlimits = aj_v0_rlimits, .n_rlimits = 1,
		.filters = aj_v0_filters, .n_filters = 1,
		.seccomp_summary = "default allow\ndeny @mount @module ptrace unshare setns bpf keyctl\nioctl TIOCSTI TIOCLINUX: EPERM\nclone3: ENOSYS\n",
	},
};
static const char *const aj_modes[] = {"normal", "worker", "lockdown"};
static const struct aj_trigger aj_triggers[] = {{"HERMES_KANBAN_TASK", 1}, {"AIJAIL_WORKER", 1}};
static const struct aj_command aj_commands[] = {{"python", 1}, {"python3", 1}};
static const struct aj_policy aj_policy = {
	AJ_ABI, "jail", 0, aj_modes, 3, 0, aj_triggers, 2, aj_commands, 2, 2, aj_variants,
};
