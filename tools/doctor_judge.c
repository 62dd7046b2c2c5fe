/* doctor_judge.c: aijail-status --doctor's verdicts: from what doctor.c
 * measured and the stubs answered, each check's state, what it means
 * and the one fix for it. */
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

/* Every snprintf here builds a message to print: a cut is never acted on. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

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

void doctor_judge(const struct facts *d, struct check *checks)
{
	char limits[160], none[8] = "";
	const struct run *full = &d->runs[0], *worker = &d->runs[1];
	bool ns_ok = d->ns_available == 1;
	enum state no_ns = d->fb_runs == 1 ? S_FALLBACK : S_FAILS;
	/* Where AppArmor's restriction is what stops them, the profile is the
	 * one fix (the stub's message also names the sysctl, which lifts the
	 * restriction for every program). */
	bool aa_cause = d->aa_restrict == 1 && d->uid && !ns_ok && d->profile_fix[0];
	const char *ns_fix = aa_cause ? d->profile_fix : d->ns_why;

	snprintf(limits, sizeof(limits), "user.max_user_namespaces %ld%s", d->max_userns,
	         d->userns_clone < 0 ? ", no kernel.unprivileged_userns_clone" : "");
	if (d->userns_clone >= 0)
		snprintf(limits + strlen(limits), sizeof(limits) - strlen(limits),
		         ", kernel.unprivileged_userns_clone %ld", d->userns_clone);

	/* User namespaces: the stub's answer first. */
	if (d->explained && ns_ok)
		say(&checks[C_USERNS], S_OK, NULL, "%s; %s made its namespaces", limits,
		    d->explainer);
	else if (d->explained)
		say(&checks[C_USERNS], no_ns, ns_fix, "%s; %s cannot make its namespaces%s", limits,
		    d->explainer,
		    no_ns == S_FALLBACK ? " (jail-worker runs its Landlock fallback)" : "");
	else if (d->explainer && full->tried && full->status == 0)
		say(&checks[C_USERNS], S_OK, NULL, "%s; jail made its namespaces", limits);
	else if (d->explainer)
		say(&checks[C_USERNS], S_FAILS, d->explain_err[0] ? d->explain_err : full->err,
		    "%s; %s --jail-explain=json exited %d, and jail true %d", limits, d->explainer,
		    d->explain_rc, full->status);
	else if (d->max_userns == 0)
		say(&checks[C_USERNS], S_FAILS, max_fix, "%s; no stub beside %s to ask", limits,
		    d->dir);
	else if (d->uid && d->userns_clone == 0)
		say(&checks[C_USERNS], S_FAILS, clone_fix, "%s; no stub beside %s to ask", limits,
		    d->dir);
	else
		say(&checks[C_USERNS], S_INFO, NULL, "%s; no stub beside %s to ask", limits,
		    d->dir);

	/* AppArmor's restriction, and the profiles by the stubs' paths. */
	{
		struct check *c = &checks[C_APPARMOR];
		char cov[512] = "";
		unsigned yes = 0, known = 0, n = 0;

		for (unsigned i = 0; i < N_STUBS; i++) {
			const struct stub *s = &d->stubs[i];

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
			         d->dir);
		else if (d->aa_enabled && n)
			snprintf(cov, sizeof(cov),
			         "; which profiles are loaded only root may read (the stubs' run "
			         "decides)");
		if (!d->aa_enabled)
			say(c, S_OK, NULL, "AppArmor is not enabled");
		else if (d->aa_restrict != 1)
			say(c, S_OK, NULL,
			    "enabled; kernel.apparmor_restrict_unprivileged_userns %s%s",
			    d->aa_restrict < 0 ? "does not exist (no restriction)" : "is 0", cov);
		else if (!d->uid)
			say(c, yes < n && known ? S_INFO : S_OK,
			    yes < n && known ? d->profile_fix : NULL,
			    "kernel.apparmor_restrict_unprivileged_userns is 1, which spares root, "
			    "not "
			    "users%s",
			    cov);
		else if (d->explained && ns_ok)
			say(c, S_OK, NULL,
			    "kernel.apparmor_restrict_unprivileged_userns is 1; a profile lets %s "
			    "make its "
			    "namespaces%s",
			    d->explainer, cov);
		else
			say(c, no_ns, d->profile_fix,
			    "kernel.apparmor_restrict_unprivileged_userns is 1 and no profile lets "
			    "the stubs "
			    "make user namespaces%s",
			    cov);
	}

	if (d->ll_abi > 0)
		say(&checks[C_LANDLOCK], S_OK, NULL, "kernel ABI %d%s", d->ll_abi,
		    d->ll_applied > 0 ? "; the stubs apply it" : "");
	else
		say(&checks[C_LANDLOCK], S_FALLBACK,
		    "boot a kernel with CONFIG_SECURITY_LANDLOCK=y and landlock in lsm= (for "
		    "example "
		    "lsm=landlock,lockdown,yama,integrity,apparmor,bpf)",
		    "not available (%s): jails run without it (policies ask it best effort), the "
		    "fallback cannot run, policies that require it fail",
		    strerror(d->ll_errno));

	if (d->seccomp_avail)
		say(&checks[C_SECCOMP], S_OK, d->notif ? NULL : "a kernel of 5.0 or later",
		    "filters available%s",
		    d->notif ? ", with user notification (refusal reports)"
		             : "; no user notification: refusals are not reported");
	else
		say(&checks[C_SECCOMP], S_FAILS, "a kernel with CONFIG_SECCOMP_FILTER=y",
		    "no seccomp filters (/proc/sys/kernel/seccomp/actions_avail missing): the "
		    "stubs "
		    "fail closed");

	{
		bool cg = !strcmp(d->mem_by, "cgroup") && !strcmp(d->pids_by, "cgroup");

		if (d->explained && cg)
			say(&checks[C_CGROUPS], S_OK, NULL,
			    "cgroup v%d, %s; memory and processes bounded by a cgroup of the "
			    "jail's",
			    d->cg_version, d->cg_path);
		else
			say(&checks[C_CGROUPS], d->explained ? S_FALLBACK : S_INFO,
			    d->cg_version == 2
			        ? "run under a delegated cgroup, e.g. systemd-run --user "
			          "--scope -p Delegate=yes COMMAND"
			        : "boot with systemd.unified_cgroup_hierarchy=1 (cgroup v2)",
			    "cgroup %s, %s, %s (controllers: %s); memory by %s, processes by "
			    "%s%s%s",
			    d->cg_version == 2   ? "v2"
			    : d->cg_version == 1 ? "v1"
			                         : "unknown",
			    d->cg_path[0] ? d->cg_path : "?",
			    d->cg_writable ? "writable by us"
			                   : "not writable by us (no delegation)",
			    d->cg_controllers[0] ? d->cg_controllers : "none",
			    d->mem_by[0] ? d->mem_by : "?", d->pids_by[0] ? d->pids_by : "?",
			    d->mem_why[0] ? ": " : "", d->mem_why);
	}

	if (d->ia32 == -1)
		say(&checks[C_IA32], S_INFO, NULL,
		    "not an x86_64 machine: no i386 entry to filter");
	else if (d->ia32 < 0)
		say(&checks[C_IA32], S_INFO, NULL,
		    "unknown: the i386 call was killed by a seccomp filter loaded before us");
	else
		say(&checks[C_IA32], S_OK, NULL,
		    d->ia32 ? "on: i386 system calls (int 0x80) exist, and every stub's filter "
		              "kills them"
		            : "off: the kernel refuses i386 system calls itself "
		              "(ia32_emulation=false or "
		              "no CONFIG_IA32_EMULATION)");

	if (!d->proc_covered)
		say(&checks[C_PROC], S_OK, NULL, "no part of /proc is covered by another mount");
	else
		say(&checks[C_PROC], ns_ok ? S_OK : no_ns,
		    "docker run --security-opt systempaths=unconfined (Kubernetes: procMount: "
		    "Unmasked)",
		    "parts of /proc are covered (a container's masked and read-only paths): the "
		    "kernel "
		    "refuses the jail a fresh /proc");

	if (d->seccomp_mode != 2)
		say(&checks[C_CSECCOMP], S_OK, NULL,
		    "no seccomp filter was loaded before us (Seccomp: %d)", d->seccomp_mode);
	else
		say(&checks[C_CSECCOMP], ns_ok ? S_OK : no_ns,
		    ns_ok ? NULL
		          : "docker run --security-opt seccomp=unconfined (Kubernetes: "
		            "seccompProfile.type: Unconfined)",
		    "%d filter%s loaded before us (a container runtime's profile, or a jail's)%s",
		    d->seccomp_filters, d->seccomp_filters == 1 ? "" : "s",
		    ns_ok ? " allows the stubs' namespaces" : " refuses new namespaces");

	if (!d->docker[0])
		say(&checks[C_DOCKER], S_OK, NULL, "no Docker socket in reach");
	else if (ns_ok)
		say(&checks[C_DOCKER], S_OK, NULL,
		    "%s is in reach: the jails leave it out unless a policy's docker toggle binds "
		    "it",
		    d->docker);
	else
		say(&checks[C_DOCKER], S_FAILS,
		    "remove the socket from the container, or give it the options that allow "
		    "namespaces",
		    "%s is in reach, and the fallback refuses to run beside it (Landlock cannot "
		    "hide a "
		    "socket before ABI 9)",
		    d->docker);

	{
		char txt[700];
		size_t l = 0;
		enum state s = S_OK;

		txt[0] = '\0';
		for (int i = 0; i < 2; i++) {
			const struct run *r = &d->runs[i];

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
		if (d->no_project)
			snprintf(txt, sizeof(txt),
			         "no folder to make an empty project in ($TMPDIR, /tmp, /var/tmp, "
			         "$HOME): the stubs were not asked");
		say(&checks[C_RUN], s,
		    s == S_OK       ? NULL
		    : d->no_project ? "set TMPDIR to a folder this user may write"
		    : !full->tried && !worker->tried
		        ? "install the stubs beside aijail-status (make "
		          "install, the package, the archive's bin/)"
		    : ns_fix[0] ? ns_fix
		                : none,
		    "%s", l || d->no_project ? txt : "no stub beside this program to run");
	}
}
