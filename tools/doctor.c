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
#define N_STUBS (sizeof(stub_names) / sizeof(stub_names[0]))

enum state { S_OK, S_FALLBACK, S_FAILS, S_INFO };
static const char *const state_word[] = {"ok", "falls back", "fails", "info"};
static const char *const state_json[] = {"ok", "fallback", "fails", "info"};

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
static struct check checks[N_CHECKS] = {
    [C_USERNS] = {.name = "userns"},        [C_APPARMOR] = {.name = "apparmor"},
    [C_LANDLOCK] = {.name = "landlock"},    [C_SECCOMP] = {.name = "seccomp"},
    [C_CGROUPS] = {.name = "cgroups"},      [C_IA32] = {.name = "ia32"},
    [C_PROC] = {.name = "proc_masks"},      [C_CSECCOMP] = {.name = "container_seccomp"},
    [C_DOCKER] = {.name = "docker_socket"}, [C_RUN] = {.name = "stubs_run"},
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

static struct {
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
} d;

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

/* ---- the verdicts ----------------------------------------------------------- */

static void say(struct check *c, enum state s, const char *fix, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void say(struct check *c, enum state s, const char *fix, const char *fmt, ...)
{
	va_list ap;

	c->state = s;
	va_start(ap, fmt);
	vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
	va_end(ap);
	snprintf(c->fix, sizeof(c->fix), "%s", fix ? fix : "");
}

static const char max_fix[] = "sudo sysctl -w user.max_user_namespaces=15000";
static const char clone_fix[] = "sudo sysctl -w kernel.unprivileged_userns_clone=1";

static void judge(void)
{
	char limits[160], none[8] = "";
	const struct run *full = &d.runs[0], *worker = &d.runs[1];
	bool ns_ok = d.ns_available == 1;
	enum state no_ns = d.fb_runs == 1 ? S_FALLBACK : S_FAILS;
	/* Where AppArmor's restriction is what stops them, the profile is the
	 * one fix (the stub's message also names the sysctl, which lifts the
	 * restriction for every program). */
	bool aa_cause = d.aa_restrict == 1 && d.uid && !ns_ok && d.profile_fix[0];
	const char *ns_fix = aa_cause ? d.profile_fix : d.ns_why;

	snprintf(limits, sizeof(limits), "user.max_user_namespaces %ld%s", d.max_userns,
	         d.userns_clone < 0 ? ", no kernel.unprivileged_userns_clone" : "");
	if (d.userns_clone >= 0)
		snprintf(limits + strlen(limits), sizeof(limits) - strlen(limits),
		         ", kernel.unprivileged_userns_clone %ld", d.userns_clone);

	/* User namespaces: the stub's answer first. */
	if (d.explained && ns_ok)
		say(&checks[C_USERNS], S_OK, NULL, "%s; %s made its namespaces", limits,
		    d.explainer);
	else if (d.explained)
		say(&checks[C_USERNS], no_ns, ns_fix, "%s; %s cannot make its namespaces%s", limits,
		    d.explainer,
		    no_ns == S_FALLBACK ? " (jail-worker runs its Landlock fallback)" : "");
	else if (d.explainer && full->tried && full->status == 0)
		say(&checks[C_USERNS], S_OK, NULL, "%s; jail made its namespaces", limits);
	else if (d.explainer)
		say(&checks[C_USERNS], S_FAILS, d.explain_err[0] ? d.explain_err : full->err,
		    "%s; %s --jail-explain=json exited %d, and jail true %d", limits, d.explainer,
		    d.explain_rc, full->status);
	else if (d.max_userns == 0)
		say(&checks[C_USERNS], S_FAILS, max_fix, "%s; no stub beside %s to ask", limits,
		    d.dir);
	else if (d.uid && d.userns_clone == 0)
		say(&checks[C_USERNS], S_FAILS, clone_fix, "%s; no stub beside %s to ask", limits,
		    d.dir);
	else
		say(&checks[C_USERNS], S_INFO, NULL, "%s; no stub beside %s to ask", limits, d.dir);

	/* AppArmor's restriction, and the profiles by the stubs' paths. */
	{
		struct check *c = &checks[C_APPARMOR];
		char cov[512] = "";
		unsigned yes = 0, known = 0, n = 0;

		for (unsigned i = 0; i < N_STUBS; i++) {
			const struct stub *s = &d.stubs[i];

			if (!s->present)
				continue;
			n++;
			if (s->covered >= 0)
				known++;
			if (s->covered == 1)
				yes++;
		}
		if (known)
			snprintf(cov, sizeof(cov),
			         "; a loaded profile covers %u of the %u stubs in %s", yes, n,
			         d.dir);
		else if (d.aa_enabled && n)
			snprintf(cov, sizeof(cov),
			         "; which profiles are loaded only root may read (the stubs' run "
			         "decides)");
		if (!d.aa_enabled)
			say(c, S_OK, NULL, "AppArmor is not enabled");
		else if (d.aa_restrict != 1)
			say(c, S_OK, NULL,
			    "enabled; kernel.apparmor_restrict_unprivileged_userns %s%s",
			    d.aa_restrict < 0 ? "does not exist (no restriction)" : "is 0", cov);
		else if (!d.uid)
			say(c, yes < n && known ? S_INFO : S_OK,
			    yes < n && known ? d.profile_fix : NULL,
			    "kernel.apparmor_restrict_unprivileged_userns is 1, which spares root, "
			    "not "
			    "users%s",
			    cov);
		else if (d.explained && ns_ok)
			say(c, S_OK, NULL,
			    "kernel.apparmor_restrict_unprivileged_userns is 1; a profile lets %s "
			    "make its "
			    "namespaces%s",
			    d.explainer, cov);
		else
			say(c, no_ns, d.profile_fix,
			    "kernel.apparmor_restrict_unprivileged_userns is 1 and no profile lets "
			    "the stubs "
			    "make user namespaces%s",
			    cov);
	}

	if (d.ll_abi > 0)
		say(&checks[C_LANDLOCK], S_OK, NULL, "kernel ABI %d%s", d.ll_abi,
		    d.ll_applied > 0 ? "; the stubs apply it" : "");
	else
		say(&checks[C_LANDLOCK], S_FALLBACK,
		    "boot a kernel with CONFIG_SECURITY_LANDLOCK=y and landlock in lsm= (for "
		    "example "
		    "lsm=landlock,lockdown,yama,integrity,apparmor,bpf)",
		    "not available (%s): jails run without it (policies ask it best effort), the "
		    "fallback cannot run, policies that require it fail",
		    strerror(d.ll_errno));

	if (d.seccomp_avail)
		say(&checks[C_SECCOMP], S_OK, d.notif ? NULL : "a kernel of 5.0 or later",
		    "filters available%s",
		    d.notif ? ", with user notification (refusal reports)"
		            : "; no user notification: refusals are not reported");
	else
		say(&checks[C_SECCOMP], S_FAILS, "a kernel with CONFIG_SECCOMP_FILTER=y",
		    "no seccomp filters (/proc/sys/kernel/seccomp/actions_avail missing): the "
		    "stubs "
		    "fail closed");

	{
		bool cg = !strcmp(d.mem_by, "cgroup") && !strcmp(d.pids_by, "cgroup");

		if (d.explained && cg)
			say(&checks[C_CGROUPS], S_OK, NULL,
			    "cgroup v%d, %s; memory and processes bounded by a cgroup of the "
			    "jail's",
			    d.cg_version, d.cg_path);
		else
			say(&checks[C_CGROUPS], d.explained ? S_FALLBACK : S_INFO,
			    d.cg_version == 2
			        ? "run under a delegated cgroup, e.g. systemd-run --user "
			          "--scope -p Delegate=yes COMMAND"
			        : "boot with systemd.unified_cgroup_hierarchy=1 (cgroup v2)",
			    "cgroup %s, %s, %s (controllers: %s); memory by %s, processes by "
			    "%s%s%s",
			    d.cg_version == 2   ? "v2"
			    : d.cg_version == 1 ? "v1"
			                        : "unknown",
			    d.cg_path[0] ? d.cg_path : "?",
			    d.cg_writable ? "writable by us" : "not writable by us (no delegation)",
			    d.cg_controllers[0] ? d.cg_controllers : "none",
			    d.mem_by[0] ? d.mem_by : "?", d.pids_by[0] ? d.pids_by : "?",
			    d.mem_why[0] ? ": " : "", d.mem_why);
	}

	if (d.ia32 == -1)
		say(&checks[C_IA32], S_INFO, NULL,
		    "not an x86_64 machine: no i386 entry to filter");
	else if (d.ia32 < 0)
		say(&checks[C_IA32], S_INFO, NULL,
		    "unknown: the i386 call was killed by a seccomp filter loaded before us");
	else
		say(&checks[C_IA32], S_OK, NULL,
		    d.ia32 ? "on: i386 system calls (int 0x80) exist, and every stub's filter "
		             "kills them"
		           : "off: the kernel refuses i386 system calls itself "
		             "(ia32_emulation=false or "
		             "no CONFIG_IA32_EMULATION)");

	if (!d.proc_covered)
		say(&checks[C_PROC], S_OK, NULL, "no part of /proc is covered by another mount");
	else
		say(&checks[C_PROC], ns_ok ? S_OK : no_ns,
		    "docker run --security-opt systempaths=unconfined (Kubernetes: procMount: "
		    "Unmasked)",
		    "parts of /proc are covered (a container's masked and read-only paths): the "
		    "kernel "
		    "refuses the jail a fresh /proc");

	if (d.seccomp_mode != 2)
		say(&checks[C_CSECCOMP], S_OK, NULL,
		    "no seccomp filter was loaded before us (Seccomp: %d)", d.seccomp_mode);
	else
		say(&checks[C_CSECCOMP], ns_ok ? S_OK : no_ns,
		    ns_ok ? NULL
		          : "docker run --security-opt seccomp=unconfined (Kubernetes: "
		            "seccompProfile.type: Unconfined)",
		    "%d filter%s loaded before us (a container runtime's profile, or a jail's)%s",
		    d.seccomp_filters, d.seccomp_filters == 1 ? "" : "s",
		    ns_ok ? " allows the stubs' namespaces" : " refuses new namespaces");

	if (!d.docker[0])
		say(&checks[C_DOCKER], S_OK, NULL, "no Docker socket in reach");
	else if (ns_ok)
		say(&checks[C_DOCKER], S_OK, NULL,
		    "%s is in reach: the jails leave it out unless a policy's docker toggle binds "
		    "it",
		    d.docker);
	else
		say(&checks[C_DOCKER], S_FAILS,
		    "remove the socket from the container, or give it the options that allow "
		    "namespaces",
		    "%s is in reach, and the fallback refuses to run beside it (Landlock cannot "
		    "hide a "
		    "socket before ABI 9)",
		    d.docker);

	{
		char txt[700];
		size_t l = 0;
		enum state s = S_OK;

		txt[0] = '\0';
		for (int i = 0; i < 2; i++) {
			const struct run *r = &d.runs[i];

			if (!r->tried)
				continue;
			l += (size_t)snprintf(txt + l, sizeof(txt) - l, "%s%s true: exit %d%s%s",
			                      l ? "; " : "", r->stub, r->status,
			                      r->status ? ": " : "", r->status ? r->err : "");
			if (l >= sizeof(txt))
				l = sizeof(txt) - 1;
		}
		/* No stub to ask is no verdict of "works". */
		if (!full->tried && !worker->tried)
			s = S_FAILS;
		else if (full->tried && full->status == 0)
			s = S_OK;
		else if (worker->tried && worker->status == 0)
			s = S_FALLBACK;
		else
			s = S_FAILS;
		if (d.no_project)
			snprintf(txt, sizeof(txt),
			         "no folder to make an empty project in ($TMPDIR, /tmp, /var/tmp, "
			         "$HOME): the stubs were not asked");
		say(&checks[C_RUN], s,
		    s == S_OK      ? NULL
		    : d.no_project ? "set TMPDIR to a folder this user may write"
		    : !full->tried && !worker->tried
		        ? "install the stubs beside aijail-status (make "
		          "install, the package, the archive's bin/)"
		    : ns_fix[0] ? ns_fix
		                : none,
		    "%s", l || d.no_project ? txt : "no stub beside this program to run");
	}
}

/* ---- output ---------------------------------------------------------------- */

static void json_s(const char *s)
{
	if (!s) {
		fputs("null", stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void json_n(long v)
{
	if (v < 0)
		fputs("null", stdout);
	else
		printf("%ld", v);
}

static void json_b(int v)
{
	fputs(v < 0 ? "null" : v ? "true" : "false", stdout);
}

static enum state overall(void)
{
	enum state worst = S_OK;

	for (int i = 0; i < N_CHECKS; i++)
		if (checks[i].state != S_INFO && checks[i].state > worst)
			worst = checks[i].state;
	return worst;
}

static const char *verdict_text(enum state s)
{
	enum state run = checks[C_RUN].state;

	if (s == S_OK)
		return "every stub builds its full jail here";
	if (d.no_project)
		return "the stubs could not be asked: see the fixes";
	if (run == S_FAILS)
		return "the stubs fail closed here: see the fixes";
	if (run == S_FALLBACK)
		return "no full jail here: jail-worker runs its Landlock fallback, the stubs that "
		       "declare none fail closed: see the fixes";
	return "every stub builds its jail here, with less than it could: see the fixes";
}

static void print_json(void)
{
	enum state v = overall();

	printf("{\n  \"doctor\": 1,\n  \"uid\": %u,\n  \"kernel\": ", (unsigned)d.uid);
	json_s(d.kernel);
	printf(",\n  \"verdict\": \"%s\",\n  \"summary\": ", state_json[v]);
	json_s(verdict_text(v));
	fputs(",\n  \"checks\": [\n", stdout);
	for (int i = 0; i < N_CHECKS; i++) {
		const struct check *c = &checks[i];

		printf("    {\"name\": \"%s\", \"state\": \"%s\", \"detail\": ", c->name,
		       state_json[c->state]);
		json_s(c->detail);
		fputs(", \"fix\": ", stdout);
		json_s(c->fix[0] ? c->fix : NULL);
		fputs(i + 1 < N_CHECKS ? "},\n" : "}\n", stdout);
	}
	fputs("  ],\n  \"userns\": {\"max_user_namespaces\": ", stdout);
	json_n(d.max_userns);
	fputs(", \"unprivileged_userns_clone\": ", stdout);
	json_n(d.userns_clone);
	fputs(", \"available\": ", stdout);
	json_b(d.ns_available);
	fputs(", \"why\": ", stdout);
	json_s(d.ns_why[0] ? d.ns_why : NULL);
	fputs(", \"asked\": ", stdout);
	json_s(d.explainer);
	fputs("},\n  \"apparmor\": {\"enabled\": ", stdout);
	json_b(d.aa_enabled);
	fputs(", \"restrict_unprivileged_userns\": ", stdout);
	json_n(d.aa_restrict);
	fputs(", \"profiles_readable\": ", stdout);
	json_b(d.profiles_readable);
	fputs(", \"profile_file\": ", stdout);
	json_s(d.profile_file[0] ? d.profile_file : NULL);
	fputs(", \"stubs\": [", stdout);
	for (unsigned i = 0, k = 0; i < N_STUBS; i++) {
		const struct stub *s = &d.stubs[i];

		if (!s->present)
			continue;
		printf("%s{\"stub\": \"%s\", \"path\": ", k++ ? ", " : "", s->name);
		json_s(s->path);
		fputs(", \"covered\": ", stdout);
		json_b(s->covered);
		putchar('}');
	}
	fputs("]},\n  \"landlock\": {\"abi\": ", stdout);
	json_n(d.ll_abi > 0 ? d.ll_abi : -1);
	fputs(", \"applied_abi\": ", stdout);
	json_n(d.ll_applied);
	fputs("},\n  \"seccomp\": {\"available\": ", stdout);
	json_b(d.seccomp_avail);
	fputs(", \"user_notif\": ", stdout);
	json_b(d.notif);
	fputs(", \"mode_before_us\": ", stdout);
	json_n(d.seccomp_mode);
	fputs(", \"filters_before_us\": ", stdout);
	json_n(d.seccomp_filters);
	fputs("},\n  \"cgroups\": {\"version\": ", stdout);
	json_n(d.cg_version > 0 ? d.cg_version : -1);
	fputs(", \"cgroup\": ", stdout);
	json_s(d.cg_path[0] ? d.cg_path : NULL);
	fputs(", \"writable\": ", stdout);
	json_b(d.cg_writable);
	fputs(", \"controllers\": ", stdout);
	json_s(d.cg_controllers);
	fputs(", \"memory_by\": ", stdout);
	json_s(d.mem_by[0] ? d.mem_by : NULL);
	fputs(", \"processes_by\": ", stdout);
	json_s(d.pids_by[0] ? d.pids_by : NULL);
	fputs("},\n  \"ia32_emulation\": ", stdout);
	json_b(d.ia32);
	fputs(",\n  \"proc_covered\": ", stdout);
	json_b(d.proc_covered);
	fputs(",\n  \"docker_socket\": ", stdout);
	json_s(d.docker[0] ? d.docker : NULL);
	fputs(",\n  \"fallback\": {\"declared\": ", stdout);
	json_b(d.fb_declared);
	fputs(", \"runs\": ", stdout);
	json_b(d.fb_runs);
	fputs(", \"why\": ", stdout);
	json_s(d.fb_why[0] ? d.fb_why : NULL);
	fputs("},\n  \"runs\": [", stdout);
	for (int i = 0, k = 0; i < 2; i++) {
		const struct run *r = &d.runs[i];

		if (!r->tried)
			continue;
		printf("%s{\"stub\": \"%s\", \"argv\": [\"%s\", \"true\"], \"exit\": ",
		       k++ ? ", " : "", r->stub, r->stub);
		json_n(r->status);
		fputs(", \"stderr\": ", stdout);
		json_s(r->status ? r->err : NULL);
		putchar('}');
	}
	fputs("]\n}\n", stdout);
}

static void print_text(void)
{
	enum state v = overall();

	printf("aijail doctor: uid %u, kernel %s, stubs in %s\n", (unsigned)d.uid, d.kernel, d.dir);
	for (int i = 0; i < N_CHECKS; i++) {
		const struct check *c = &checks[i];

		printf("%-10s %-17s %s\n", state_word[c->state], c->name, c->detail);
		if (c->fix[0])
			printf("%-28s fix: %s\n", "", c->fix);
	}
	printf("verdict: %s\n", verdict_text(v));
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
	judge();
	if (json)
		print_json();
	else
		print_text();
	if (fflush(stdout) || ferror(stdout))
		return 2;
	return overall() == S_OK ? 0 : 1;
}
