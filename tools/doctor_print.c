/* doctor_print.c: aijail-status --doctor's report, as text or JSON, and
 * its verdict. */
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
#include "status.h"

/* Every snprintf here builds a message to print: a cut is never acted on. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

static const char *const state_word[] = {"ok", "falls back", "fails", "info"};
static const char *const state_json[] = {"ok", "fallback", "fails", "info"};


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

enum state doctor_print_overall(const struct check *checks)
{
	enum state worst = S_OK;

	for (int i = 0; i < N_CHECKS; i++)
		if (checks[i].state != S_INFO && checks[i].state > worst)
			worst = checks[i].state;
	return worst;
}

static const char *verdict_text(const struct facts *d, const struct check *checks, enum state s)
{
	enum state run = checks[C_RUN].state;

	if (s == S_OK)
		return "every stub builds its full jail here";
	if (d->no_project)
		return "the stubs could not be asked: see the fixes";
	if (run == S_FAILS)
		return "the stubs fail closed here: see the fixes";
	if (run == S_FALLBACK)
		return "no full jail here: jail-worker runs its Landlock fallback, the stubs that "
		       "declare none fail closed: see the fixes";
	return "every stub builds its jail here, with less than it could: see the fixes";
}

void doctor_print_json(const struct facts *d, const struct check *checks)
{
	enum state v = doctor_print_overall(checks);

	printf("{\n  \"doctor\": 1,\n  \"uid\": %u,\n  \"kernel\": ", (unsigned)d->uid);
	status_json_str(d->kernel);
	printf(",\n  \"verdict\": \"%s\",\n  \"summary\": ", state_json[v]);
	status_json_str(verdict_text(d, checks, v));
	fputs(",\n  \"checks\": [\n", stdout);
	for (int i = 0; i < N_CHECKS; i++) {
		const struct check *c = &checks[i];

		printf("    {\"name\": \"%s\", \"state\": \"%s\", \"detail\": ", c->name,
		       state_json[c->state]);
		status_json_str(c->detail);
		fputs(", \"fix\": ", stdout);
		status_json_str(c->fix[0] ? c->fix : NULL);
		fputs(i + 1 < N_CHECKS ? "},\n" : "}\n", stdout);
	}
	fputs("  ],\n  \"userns\": {\"max_user_namespaces\": ", stdout);
	json_n(d->max_userns);
	fputs(", \"unprivileged_userns_clone\": ", stdout);
	json_n(d->userns_clone);
	fputs(", \"available\": ", stdout);
	json_b(d->ns_available);
	fputs(", \"why\": ", stdout);
	status_json_str(d->ns_why[0] ? d->ns_why : NULL);
	fputs(", \"asked\": ", stdout);
	status_json_str(d->explainer);
	fputs("},\n  \"apparmor\": {\"enabled\": ", stdout);
	json_b(d->aa_enabled);
	fputs(", \"restrict_unprivileged_userns\": ", stdout);
	json_n(d->aa_restrict);
	fputs(", \"profiles_readable\": ", stdout);
	json_b(d->profiles_readable);
	fputs(", \"profile_file\": ", stdout);
	status_json_str(d->profile_file[0] ? d->profile_file : NULL);
	fputs(", \"stubs\": [", stdout);
	for (unsigned i = 0, k = 0; i < N_STUBS; i++) {
		const struct stub *s = &d->stubs[i];

		if (!s->present)
			continue;
		printf("%s{\"stub\": \"%s\", \"path\": ", k++ ? ", " : "", s->name);
		status_json_str(s->path);
		fputs(", \"covered\": ", stdout);
		json_b(s->covered);
		putchar('}');
	}
	fputs("]},\n  \"landlock\": {\"abi\": ", stdout);
	json_n(d->ll_abi > 0 ? d->ll_abi : -1);
	fputs(", \"applied_abi\": ", stdout);
	json_n(d->ll_applied);
	fputs("},\n  \"seccomp\": {\"available\": ", stdout);
	json_b(d->seccomp_avail);
	fputs(", \"user_notif\": ", stdout);
	json_b(d->notif);
	fputs(", \"mode_before_us\": ", stdout);
	json_n(d->seccomp_mode);
	fputs(", \"filters_before_us\": ", stdout);
	json_n(d->seccomp_filters);
	fputs("},\n  \"cgroups\": {\"version\": ", stdout);
	json_n(d->cg_version > 0 ? d->cg_version : -1);
	fputs(", \"cgroup\": ", stdout);
	status_json_str(d->cg_path[0] ? d->cg_path : NULL);
	fputs(", \"writable\": ", stdout);
	json_b(d->cg_writable);
	fputs(", \"controllers\": ", stdout);
	status_json_str(d->cg_controllers);
	fputs(", \"memory_by\": ", stdout);
	status_json_str(d->mem_by[0] ? d->mem_by : NULL);
	fputs(", \"processes_by\": ", stdout);
	status_json_str(d->pids_by[0] ? d->pids_by : NULL);
	fputs("},\n  \"ia32_emulation\": ", stdout);
	json_b(d->ia32);
	fputs(",\n  \"proc_covered\": ", stdout);
	json_b(d->proc_covered);
	fputs(",\n  \"docker_socket\": ", stdout);
	status_json_str(d->docker[0] ? d->docker : NULL);
	fputs(",\n  \"fallback\": {\"declared\": ", stdout);
	json_b(d->fb_declared);
	fputs(", \"runs\": ", stdout);
	json_b(d->fb_runs);
	fputs(", \"why\": ", stdout);
	status_json_str(d->fb_why[0] ? d->fb_why : NULL);
	fputs("},\n  \"runs\": [", stdout);
	for (int i = 0, k = 0; i < 2; i++) {
		const struct run *r = &d->runs[i];

		if (!r->tried)
			continue;
		printf("%s{\"stub\": \"%s\", \"argv\": [\"%s\", \"true\"], \"exit\": ",
		       k++ ? ", " : "", r->stub, r->stub);
		json_n(r->status);
		fputs(", \"stderr\": ", stdout);
		status_json_str(r->status ? r->err : NULL);
		putchar('}');
	}
	fputs("]\n}\n", stdout);
}

void doctor_print_text(const struct facts *d, const struct check *checks)
{
	enum state v = doctor_print_overall(checks);

	printf("aijail doctor: uid %u, kernel %s, stubs in %s\n", (unsigned)d->uid, d->kernel,
	       d->dir);
	for (int i = 0; i < N_CHECKS; i++) {
		const struct check *c = &checks[i];

		printf("%-10s %-17s %s\n", state_word[c->state], c->name, c->detail);
		if (c->fix[0])
			printf("%-28s fix: %s\n", "", c->fix);
	}
	printf("verdict: %s\n", verdict_text(d, checks, v));
}
