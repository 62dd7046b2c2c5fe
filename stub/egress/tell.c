/* tell.c: the one line a refused connection of the jail's egress gets on
 * stderr (once a host), and its count and --jail-log line
 * (refusals_host()): the proxy's, and an upstream's refusal (upstream.c),
 * which has no option to suggest. */
#include <string.h>

#include "egress/egress.h"

/* Refusals already reported: one line per host and reason. */
static char told[32][AJ_HOST_MAX];
static unsigned n_told;

void tell_refused(const char *target, bool connect, const char *why, int hint)
{
	char h[AJ_HOST_MAX];
	const char *c = strrchr(target, ':');

	/* Every refusal counts for the summary; this line is once a host. */
	refusals_host(connect ? "connection" : "request", target, why);
	for (unsigned i = 0; i < n_told && i < 32; i++)
		if (!strcmp(told[i], target))
			return;
	memcpy(told[n_told++ % 32], target, strlen(target) + 1);
	memcpy(h, target, strlen(target) + 1);
	out_fd(2);
	out_s(aj_progname);
	out_s(": refused a connection to ");
	out_s(target);
	out_s(": ");
	out_s(why);
	out_s(" (policy ");
	out_s(aj_the_policy->name);
	if (hint == 2) {
		out_c(')');
	} else if (egress_public()) {
		out_s("); 'network public' reaches public addresses only; a port of the host "
		      "by --jail-forward=PORT");
	} else if (hint == 1) {
		out_s("); to allow it, list its address: --jail-allow-host=ADDRESS");
		out_s(c ? c : "");
	} else {
		out_s("); --jail-allow-host=");
		out_s(h);
		out_s(" allows it");
	}
	out_c('\n');
	out_flush();
}
