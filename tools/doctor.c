/* doctor.c: aijail-status --doctor, whether the stubs can build their
 * jails on this machine, what falls back, and the one fix for each.
 *
 * It reads what the kernel says (sysctls, /proc/self/status, securityfs,
 * the cgroup file system) and then asks the stubs themselves: the stub
 * beside this program (jail-worker, else any) explains its jail in JSON,
 * and jail and jail-worker run true in an empty project of their own.
 * Where a stub's answer and a measurement differ, the stub's answer is the
 * verdict, so that the doctor cannot say "works" of a machine where the
 * stubs then fail.  The stubs get this process's environment and ids, as
 * they would from the person who asked.
 *
 * Exit status: 0 when every stub builds its full jail, 1 when a stub only
 * falls back or fails, 2 usage or output error. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "doctor.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
/* Every snprintf here builds a message or a path to print; a path too long
 * for PATH_MAX is cut in the message only, and a stub path too long is
 * never run (access fails on it), so a cut is never acted on. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

/* The stubs make install, the package and the archive put beside
 * aijail-status; the first that exists here is the one asked to explain. */
static const char *const stub_names[] = {"jail-worker", "jail",    "jail-python", "jail-npm",
                                         "jail-pip",    "jail-uv", "jail-cargo",  "jail-browser"};
_Static_assert(sizeof(stub_names) / sizeof(stub_names[0]) == N_STUBS, "doctor.h's N_STUBS");

static struct check checks[N_CHECKS] = {
    [C_USERNS] = {.name = "userns"},        [C_APPARMOR] = {.name = "apparmor"},
    [C_LANDLOCK] = {.name = "landlock"},    [C_SECCOMP] = {.name = "seccomp"},
    [C_CGROUPS] = {.name = "cgroups"},      [C_IA32] = {.name = "ia32"},
    [C_PROC] = {.name = "proc_masks"},      [C_CSECCOMP] = {.name = "container_seccomp"},
    [C_DOCKER] = {.name = "docker_socket"}, [C_RUN] = {.name = "stubs_run"},
};

static struct facts d;

/* ---- small readers ----------------------------------------------------- */

/* A sysctl's number; -1 where the file does not exist (the kernel has no
 * such knob) or cannot be read. */
static long sysctl_num(const char *path)
{
	char buf[32];

	return read_small(path, buf, sizeof(buf)) > 0 ? strtol(buf, NULL, 10) : -1;
}

/* The value of "Key:" in a status-like text. */
static int field_int(const char *text, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (!strncmp(p, key, kl) && p[kl] == ':')
			return atoi(p + kl + 1);
	return -1;
}

/* ---- the stub's own JSON: the few fields read, in the order the stub
 * writes them (stub/explain); "key": is looked for after from. ---------- */

static const char *jfind(const char *from, const char *key)
{
	char pat[64];
	const char *p;

	if (!from)
		return NULL;
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(from, pat);
	return p ? p + strlen(pat) : NULL;
}

static int jbool(const char *v)
{
	return !v ? -1 : !strncmp(v, "true", 4) ? 1 : !strncmp(v, "false", 5) ? 0 : -1;
}

/* A JSON string value, unescaped as far as the stub escapes (\" \\ \n
 * \uXXXX below 0x20); "" for null. */
static void jstr(const char *v, char *out, size_t n)
{
	size_t o = 0;

	out[0] = '\0';
	if (!v || *v != '"')
		return;
	for (v++; *v && *v != '"' && o + 1 < n; v++) {
		if (*v == '\\' && v[1]) {
			v++;
			if (*v == 'u' && strlen(v) >= 5) {
				out[o++] = ' ';
				v += 4;
				continue;
			}
			out[o++] = *v == 'n' ? ' ' : *v;
			continue;
		}
		out[o++] = *v;
	}
	out[o] = '\0';
}

/* ---- running a stub ----------------------------------------------------- */

/* argv in project dir, stdout into out (may be NULL), stderr's first line
 * into err.  Returns the exit status, 128+signal, or -1. */
static int run_stub(char *const argv[], const char *project, char *out, size_t out_n, char *err,
                    size_t err_n)
{
	int po[2], pe[2], status;
	size_t on = 0, en = 0;
	pid_t pid;

	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		int nul = open("/dev/null", O_RDONLY);

		if (nul >= 0)
			dup2(nul, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		if (chdir(project))
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	for (struct pollfd pf[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
	     pf[0].fd >= 0 || pf[1].fd >= 0;) {
		char sink[4096];

		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			char *b = i ? err : out;
			size_t *bn = i ? &en : &on, bsz = i ? err_n : out_n;
			ssize_t r;

			if (pf[i].fd < 0 || !pf[i].revents)
				continue;
			if (b && *bn + 1 < bsz)
				r = read(pf[i].fd, b + *bn, bsz - 1 - *bn);
			else
				r = read(pf[i].fd, sink, sizeof(sink));
			if (r <= 0) {
				close(pf[i].fd);
				pf[i].fd = -1;
			} else if (b && *bn + 1 < bsz) {
				*bn += (size_t)r;
			}
		}
	}
	if (out)
		out[on] = '\0';
	err[en] = '\0';
	err[strcspn(err, "\n")] = '\0';
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void ask_stubs(void)
{
	static char out[1 << 17];
	char project[PATH_MAX], err[768], path[PATH_MAX];
	const char *bases[] = {getenv("TMPDIR"), "/tmp", "/var/tmp", getenv("HOME")};
	bool made = false;

	d.ns_available = d.fb_declared = d.fb_runs = -1;
	d.ll_kernel = d.ll_applied = -1;
	/* An empty project of our own, where the stubs may write (a
	 * read-only container's /tmp is not). */
	for (unsigned i = 0; i < sizeof(bases) / sizeof(bases[0]) && !made; i++) {
		if (!bases[i] || bases[i][0] != '/')
			continue;
		snprintf(project, sizeof(project), "%s/aijail-doctor.XXXXXX", bases[i]);
		made = mkdtemp(project) != NULL;
	}
	if (!made) {
		d.no_project = true;
		return;
	}
	if (d.explainer) {
		snprintf(path, sizeof(path), "%s/%s", d.dir, d.explainer);
		char *argv[] = {path, "--jail-explain=json", NULL};
		int rc = run_stub(argv, project, out, sizeof(out), err, sizeof(err));

		d.explain_rc = rc;
		snprintf(d.explain_err, sizeof(d.explain_err), "%s", err);
		const char *ns = jfind(out, "namespaces"), *fb, *ll, *lim;

		/* Its exit status says what it found (2: no namespaces here,
		 * 125: a blocker); the record is whole whenever it ends. */
		if (rc >= 0 && rc < 128 && ns && strstr(out, "\"buildable\":")) {
			d.explained = true;
			d.ns_available = jbool(jfind(ns, "available"));
			jstr(jfind(jfind(ns, "available"), "why"), d.ns_why, sizeof(d.ns_why));
			fb = jfind(ns, "fallback");
			d.fb_declared = jbool(jfind(fb, "declared"));
			d.fb_runs = jbool(jfind(fb, "runs"));
			jstr(jfind(jfind(fb, "runs"), "why"), d.fb_why, sizeof(d.fb_why));
			ll = jfind(fb, "landlock");
			d.ll_kernel =
			    ll && jfind(ll, "kernel_abi") ? atoi(jfind(ll, "kernel_abi")) : -1;
			d.ll_applied =
			    ll && jfind(ll, "applied_abi") ? atoi(jfind(ll, "applied_abi")) : -1;
			lim = jfind(ll, "limits");
			jstr(jfind(jfind(lim, "memory"), "enforced_by"), d.mem_by,
			     sizeof(d.mem_by));
			jstr(jfind(jfind(jfind(lim, "memory"), "cgroup_version"), "why"), d.mem_why,
			     sizeof(d.mem_why));
			jstr(jfind(jfind(lim, "processes"), "enforced_by"), d.pids_by,
			     sizeof(d.pids_by));
			jstr(jfind(jfind(jfind(lim, "processes"), "cgroup_version"), "why"),
			     d.pids_why, sizeof(d.pids_why));
		}
	}
	/* The full jail (jail: no fallback declared) and the one that may fall
	 * back (jail-worker), each running true. */
	d.runs[0].stub = "jail";
	d.runs[1].stub = "jail-worker";
	for (int i = 0; i < 2; i++) {
		struct run *r = &d.runs[i];

		r->status = -1;
		snprintf(path, sizeof(path), "%s/%s", d.dir, r->stub);
		if (access(path, X_OK))
			continue;
		char *argv[] = {path, "--jail-timeout=60", "true", NULL};
		r->tried = true;
		r->status = run_stub(argv, project, NULL, 0, r->err, sizeof(r->err));
	}
	rmdir(project);
}

/* ---- measurements ----------------------------------------------------- */

static void find_stubs(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')))
			*slash = '\0';
		snprintf(d.dir, sizeof(d.dir), "%s", self);
	}
	for (unsigned i = 0; i < N_STUBS; i++) {
		struct stub *s = &d.stubs[i];
		char p[PATH_MAX + 32];

		s->name = stub_names[i];
		s->covered = -1;
		snprintf(p, sizeof(p), "%s/%s", d.dir, s->name);
		s->present = !access(p, X_OK) && realpath(p, s->path);
		if (s->present && !d.explainer)
			d.explainer = s->name;
	}
}

/* Where the install command of a profile for these stubs is: the profile
 * made for this folder (share/aijail/apparmor/aijail beside bin/), whose
 * "# Install:" line names its place under /etc/apparmor.d. */
/* The name under /etc/apparmor.d of the profile for the stubs in dir, as
 * contrib/apparmor/profile.sh names it. */
static void profile_name(const char *dir, char *out, size_t n)
{
	size_t o = snprintf(out, n, "aijail");

	if (!strcmp(dir, "/usr/bin"))
		return;
	for (; *dir && o + 1 < n; dir++)
		out[o++] = *dir == '/' ? '.' : *dir;
	out[o] = '\0';
}

static void profile_fix(void)
{
	static char text[16384];
	char want[PATH_MAX + 16], name[128];
	const char *inst, *first = NULL;

	for (unsigned i = 0; i < N_STUBS && !first; i++)
		if (d.stubs[i].present)
			first = d.stubs[i].path;
	snprintf(d.profile_file, sizeof(d.profile_file), "%s/../share/aijail/apparmor/aijail",
	         d.dir);
	snprintf(want, sizeof(want), "profile %s ", first ? first : "?");
	if (read_small(d.profile_file, text, sizeof(text)) < 0 || !strstr(text, want) ||
	    !(inst = strstr(text, "/etc/apparmor.d/")) ||
	    sscanf(inst + 16, "%127[A-Za-z0-9._-]", name) != 1) {
		profile_name(d.dir, name, sizeof(name));
		snprintf(
		    d.profile_fix, sizeof(d.profile_fix),
		    "sudo sh -c '%s/aijail-status --apparmor-profile >/etc/apparmor.d/%s' && sudo "
		    "apparmor_parser -r /etc/apparmor.d/%s",
		    d.dir, name, name);
		d.profile_file[0] = '\0';
		return;
	}
	char *rp = realpath(d.profile_file, NULL);

	if (rp) {
		snprintf(d.profile_file, sizeof(d.profile_file), "%s", rp);
		free(rp);
	}
	snprintf(want, sizeof(want), "/etc/apparmor.d/%s", name);
	if (!access(want, F_OK))
		snprintf(d.profile_fix, sizeof(d.profile_fix), "sudo apparmor_parser -r %s", want);
	else
		snprintf(d.profile_fix, sizeof(d.profile_fix),
		         "sudo install -m 0644 %s %s && sudo apparmor_parser -r %s", d.profile_file,
		         want, want);
}

static void measure_apparmor(void)
{
	static char profiles[1 << 16];
	char buf[8];

	d.aa_enabled = read_small("/sys/module/apparmor/parameters/enabled", buf, sizeof(buf)) > 0
	                   ? buf[0] == 'Y'
	                   : 0;
	d.aa_restrict = sysctl_num("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
	d.profiles_readable = -1;
	if (!d.aa_enabled)
		return;
	/* The list is readable by root alone; a user learns coverage from
	 * the stub's run. */
	d.profiles_readable =
	    read_small("/sys/kernel/security/apparmor/profiles", profiles, sizeof(profiles)) >= 0;
	for (unsigned i = 0; i < N_STUBS; i++) {
		struct stub *s = &d.stubs[i];
		char line[PATH_MAX + 4];
		const char *p;

		if (!s->present || !d.profiles_readable)
			continue;
		snprintf(line, sizeof(line), "%s (", s->path);
		s->covered = 0;
		for (p = profiles; (p = strstr(p, line)); p++)
			if (p == profiles || p[-1] == '\n') {
				s->covered = 1;
				break;
			}
	}
	profile_fix();
}

static void measure_kernel(void)
{
	static char status[4096];
	struct utsname u;
	char sys[256];

	d.uid = getuid();
	if (!uname(&u))
		snprintf(d.kernel, sizeof(d.kernel), "%s %s", u.release, u.machine);
	d.max_userns = sysctl_num("/proc/sys/user/max_user_namespaces");
	d.userns_clone = sysctl_num("/proc/sys/kernel/unprivileged_userns_clone");
	d.ll_abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, 1U);
	d.ll_errno = d.ll_abi < 0 ? errno : 0;
	d.seccomp_mode = d.seccomp_filters = -1;
	if (read_small("/proc/self/status", status, sizeof(status)) > 0) {
		d.seccomp_mode = field_int(status, "Seccomp");
		d.seccomp_filters = field_int(status, "Seccomp_filters");
	}
	d.seccomp_avail =
	    read_small("/proc/sys/kernel/seccomp/actions_avail", sys, sizeof(sys)) > 0;
	d.notif = d.seccomp_avail && strstr(sys, "user_notif");
	d.proc_covered = doctor_proc_covered("/proc");
	doctor_cgroup(&d.cg_version, d.cg_path, sizeof(d.cg_path), d.cg_controllers,
	              sizeof(d.cg_controllers), &d.cg_writable);
	d.ia32 = doctor_ia32();
	doctor_docker(d.docker, sizeof(d.docker));
}

/* The profile contrib/apparmor/profile.sh makes for the stubs beside this
 * program, byte for byte (tests/status compares them), for installs that
 * ship none for their folder: a wheel's, a copy. */
int doctor_profile(void)
{
	char name[PATH_MAX];

	find_stubs();
	profile_name(d.dir, name, sizeof(name));
	printf("# AppArmor profile for aijail's stubs in %s: each may make a user\n"
	       "# namespace (userns) where kernel.apparmor_restrict_unprivileged_userns=1\n"
	       "# (Ubuntu 24.04 and later) and is otherwise unconfined; the stub confines\n"
	       "# what it runs itself (namespaces, seccomp, Landlock).\n"
	       "# Install: sudo install -m 0644 THIS-FILE /etc/apparmor.d/%s && sudo "
	       "apparmor_parser -r /etc/apparmor.d/%s\n"
	       "# Needs AppArmor 4.0 or later (the userns rule); AppArmor 3 has no such\n"
	       "# restriction to meet.\n\nabi <abi/4.0>,\n\ninclude <tunables/global>\n",
	       d.dir, name, name);
	for (unsigned i = 0; i < N_STUBS; i++)
		if (d.stubs[i].present)
			printf(
			    "\nprofile %s/%s flags=(unconfined) {\n  userns,\n\n  # Site-specific "
			    "additions and overrides: local/README.\n  include if exists "
			    "<local/%s>\n}\n",
			    d.dir, d.stubs[i].name, name);
	return fflush(stdout) || ferror(stdout) ? 2 : 0;
}

int doctor_main(bool json)
{
	find_stubs();
	measure_kernel();
	measure_apparmor();
	ask_stubs();
	doctor_judge(&d, checks);
	if (json)
		doctor_print_json(&d, checks);
	else
		doctor_print_text(&d, checks);
	if (fflush(stdout) || ferror(stdout))
		return 2;
	return doctor_print_overall(checks) == S_OK ? 0 : 1;
}
