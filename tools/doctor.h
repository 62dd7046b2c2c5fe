/* doctor.h: aijail-status --doctor (doctor.c) and the machine's facts it
 * measures without a stub (doctor_probe.c). */
#ifndef AIJAIL_DOCTOR_H
#define AIJAIL_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <limits.h>
#include <sys/types.h>

/* status.c's: the first n-1 bytes of a small kernel file, NUL-terminated;
 * -1 if it cannot be read. */
ssize_t read_small(const char *path, char *buf, size_t n);

int doctor_main(bool json);
/* --apparmor-profile: the stubs' profile for the folder they are in. */
int doctor_profile(void);

/* Part of proc covered by another mount, as the stubs test it
 * (stub/variant/nscause.c). */
bool doctor_proc_covered(const char *proc);
/* The cgroup version of /sys/fs/cgroup (0 unknown), this process's
 * cgroup, the controllers it may hand down, whether it may write there. */
void doctor_cgroup(int *version, char *path, size_t path_n, char *ctl, size_t ctl_n, int *writable);
/* 1 int 0x80 answers, 0 it faults, -1 not x86_64, -2 unknown (killed
 * otherwise: a seccomp filter). */
int doctor_ia32(void);
/* The Docker socket the stubs would find ($DOCKER_HOST's unix:// path,
 * else /var/run/docker.sock), "" when none. */
void doctor_docker(char *out, size_t n);

/* The stubs asked, by name (doctor.c's stub_names). */
#define N_STUBS 8

enum state { S_OK, S_FALLBACK, S_FAILS, S_INFO };

struct check {
	const char *name;
	enum state state;
	char detail[768];
	char fix[768];
};

enum {
	C_USERNS,
	C_APPARMOR,
	C_LANDLOCK,
	C_SECCOMP,
	C_CGROUPS,
	C_IA32,
	C_PROC,
	C_CSECCOMP,
	C_DOCKER,
	C_RUN,
	N_CHECKS
};

struct stub {
	const char *name;
	char path[PATH_MAX];
	bool present;
	int covered; /* -1 unknown, 0 no, 1 a loaded profile named by its path */
};

struct run {
	const char *stub;
	bool tried;
	int status; /* exit status, 128+signal; -1 not run */
	char err[512];
};

/* What doctor.c measured and the stubs answered; judged by
 * doctor_judge.c, printed by doctor_print.c. */
struct facts {
	char dir[PATH_MAX];
	struct stub stubs[N_STUBS];
	const char *explainer;
	bool explained;
	int ns_available, fb_declared, fb_runs; /* -1 unknown */
	char ns_why[768], fb_why[768], explain_err[512];
	bool no_project;
	int explain_rc;
	int ll_kernel, ll_applied;
	char mem_by[24], pids_by[24], mem_why[256], pids_why[256];
	long max_userns, userns_clone, aa_restrict;
	int aa_enabled, profiles_readable;
	char profile_file[PATH_MAX], profile_fix[1024];
	int ll_abi, ll_errno, seccomp_mode, seccomp_filters, seccomp_avail, notif;
	int cg_version, cg_writable;
	char cg_path[256], cg_controllers[128];
	int ia32; /* -1 unknown or not x86_64 */
	bool proc_covered;
	char docker[PATH_MAX];
	struct run runs[2];
	uid_t uid;
	char kernel[128];
};

/* doctor_judge.c: each check's state, detail and fix from the facts. */
void doctor_judge(const struct facts *d, struct check *checks);
/* doctor_print.c: the report, and its verdict (the worst state). */
void doctor_print_json(const struct facts *d, const struct check *checks);
void doctor_print_text(const struct facts *d, const struct check *checks);
enum state doctor_print_overall(const struct check *checks);

#endif
