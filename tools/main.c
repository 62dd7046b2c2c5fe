/* main.c: aijail-status, and which of its reports the options choose.
 *
 *   aijail-status [--json]                what is in force here (status.c)
 *   aijail-status --watchers [--json]     the caller's watchers (watchers.c)
 *   aijail-status --doctor [--json]       the machine, for the stubs (doctor.c)
 *   aijail-status --apparmor-profile      their AppArmor profile (doctor.c) */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "doctor.h"
#include "status.h"

int main(int argc, char **argv)
{
	bool json = false, watchers = false, doctor = false, profile = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--watchers")) {
			watchers = true;
		} else if (!strcmp(argv[i], "--doctor")) {
			doctor = true;
		} else if (!strcmp(argv[i], "--apparmor-profile")) {
			profile = true;
		} else if (!strcmp(argv[i], "--help")) {
			puts(
			    "usage: aijail-status [--json]\n       aijail-status --watchers "
			    "[--json]\n       aijail-status --doctor [--json]\n       "
			    "aijail-status "
			    "--apparmor-profile\n\nReports what confines this "
			    "process, measured from inside; with --watchers,\nthe caller's project "
			    "watchers; with --doctor, whether the stubs beside it can\nbuild their "
			    "jails on this machine, what falls back, and the fix for each; with\n"
			    "--apparmor-profile, the AppArmor profile for the stubs beside "
			    "it.\nExit "
			    "status: 0 in a jail (--watchers: 0; --doctor: full jails here), 1 "
			    "not\nin "
			    "a jail (--doctor: a stub falls back or fails), 2 usage.");
			return 0;
		} else {
			fprintf(stderr, "aijail-status: usage: unknown option: %s\n", argv[i]);
			return 2;
		}
	}
	if (watchers + doctor + profile > 1) {
		fprintf(stderr, "aijail-status: usage: --watchers, --doctor and --apparmor-profile "
		                "are three reports\n");
		return 2;
	}
	if (profile)
		return doctor_profile();
	if (watchers)
		return watchers_list(json);
	if (doctor)
		return doctor_main(json);
	return status_main(json);
}
