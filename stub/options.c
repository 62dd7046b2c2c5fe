/* options.c: the stub's own options, one table: parsing, --jail-help
 * and which options take a value all read it.  What an option sets lives
 * in the room that uses it, or in struct opts (stub.h) for what main()
 * decides with; main.c reads the command line through options_parse(). */
#include <string.h>

#include "stub.h"

static noreturn void help(const struct aj_policy *pol);

/* Which tables, from which compiler: the identity aijail-compile printed. */
static noreturn void version(const struct aj_policy *pol)
{
	out_fd(1);
	out_s(aj_progname);
	out_s(": policy ");
	out_s(pol->name);
	out_s("\nidentity: ");
	out_s(pol->identity ? pol->identity : "none (compiled before identities)");
	out_c('\n');
	out_flush();
	_exit(0);
}

/* What each option sets: where its state lives (the room that uses it),
 * or struct opts for what main() decides with. */
static void set_explain(struct opts *o, const char *v, const char *opt)
{
	if (v && strcmp(v, "json"))
		die_usage("json or nothing is needed after", opt);
	o->explain = true, rp_json = v;
}
static void set_help(struct opts *o, const char *v, const char *opt)
{
	help(o->pol);
}
static void set_version(struct opts *o, const char *v, const char *opt)
{
	version(o->pol);
}
static void set_mode(struct opts *o, const char *v, const char *opt)
{
	o->mode = v, o->mode_opt = opt;
}
static void set_ro(struct opts *o, const char *v, const char *opt)
{
	extra_map(v, false, opt);
}
static void set_rw(struct opts *o, const char *v, const char *opt)
{
	extra_map(v, true, opt);
}
static void set_net(struct opts *o, const char *v, const char *opt)
{
	if (v && strcmp(v, "public"))
		die_usage("public or nothing is needed after", opt);
	extra_net(v ? AJ_NET_PUBLIC : AJ_NET_HOST, opt);
}
static void set_net_max(struct opts *o, const char *v, const char *opt)
{
	if (strcmp(v, "public"))
		die_usage("public is needed after", opt);
	extra_net_max(AJ_NET_PUBLIC);
}
static void set_no_net(struct opts *o, const char *v, const char *opt)
{
	extra_net(AJ_NET_NONE, opt);
}
static void set_allow_host(struct opts *o, const char *v, const char *opt)
{
	egress_allow_host(v, opt);
}
static void set_forward(struct opts *o, const char *v, const char *opt)
{
	forward_add(v, opt);
}
static void set_secret(struct opts *o, const char *v, const char *opt)
{
	secret_add(v, opt);
}
static void set_publish(struct opts *o, const char *v, const char *opt)
{
	publish_add(v, opt);
}
static void set_timeout(struct opts *o, const char *v, const char *opt)
{
	extra_timeout(v, opt);
}
static void set_log(struct opts *o, const char *v, const char *opt)
{
	o->log = v, o->log_opt = opt;
}
static void set_log_allowed(struct opts *o, const char *v, const char *opt)
{
	if (strcmp(v, "yes") && strcmp(v, "no"))
		die_usage("yes or no is needed after", opt);
	reached_on = v[0] == 'y';
}
static void set_terminal(struct opts *o, const char *v, const char *opt)
{
	term_option(v, opt);
}
static void set_status_fd(struct opts *o, const char *v, const char *opt)
{
	status_option(v, opt);
}

/* The options every stub takes, one row each: parsing, --jail-help and
 * which options take a value all read this table.  Spelt
 * --jail-NAME[=VALUE]; the generic jail also takes --NAME, --NAME VALUE
 * for a row whose value is needed, and --MODE for each mode.  A toggle's
 * --jail-T and --jail-no-T are the policy's (variant/extra.c), after the
 * table.  help: '\n' starts a line of its own, under the first. */
enum { ARG_NONE, ARG_NEEDED, ARG_OPTIONAL };
static const struct option {
	const char *name, *arg, *help;
	unsigned char takes;
	void (*set)(struct opts *o, const char *value, const char *opt);
} options[] = {
    {"explain", "json", "show what the jail would be, here and now, and exit", ARG_OPTIONAL,
     set_explain},
    {"mode", "NAME", "the mode, weakest first:", ARG_NEEDED, set_mode},
    {"ro", "PATH",
     "also PATH, read-only (a directory or a file; not a\nsystem directory, nor $HOME or a "
     "parent of it)",
     ARG_NEEDED, set_ro},
    {"rw", "PATH", "also PATH, writable (not in a read-only mode)", ARG_NEEDED, set_rw},
    {"net", "public",
     "the host's network (not in a mode that takes it\naway); =public: any name, only to "
     "public\naddresses, never the host's",
     ARG_OPTIONAL, set_net},
    {"net-max", "public",
     "the network never wider than public (a 'host'\ngroup gets public; none and allow stay)",
     ARG_NEEDED, set_net_max},
    {"no-net", NULL, "no network at all", ARG_NONE, set_no_net},
    {"allow-host", "HOST[:PORT]",
     "also HOST (443 unless PORT), through the jail's\nproxy: the network is then the named "
     "hosts only",
     ARG_NEEDED, set_allow_host},
    {"forward", "[HOST:]PORT",
     "the host's 127.0.0.1:PORT (HOST 127.0.0.1 or\n::1) at the jail's own 127.0.0.1:PORT and "
     "[::1]:PORT,\nbeside the policy's 'forward' (at most 8 in all)",
     ARG_NEEDED, set_forward},
    {"secret", "NAME=HOST[:PORT][,...]",
     "your variable NAME, which the jail sees as a\nplaceholder; its value is added only to "
     "https\nrequests to the HOSTs (docs/keys.md)",
     ARG_NEEDED, set_secret},
    {"publish", "[ADDR:][HOSTPORT:]PORT",
     "the jail's 127.0.0.1:PORT on the host's\nADDR:HOSTPORT (127.0.0.1:PORT unless named; at "
     "most 8)",
     ARG_NEEDED, set_publish},
    {"timeout", "S", "kill everything after S seconds", ARG_NEEDED, set_timeout},
    {"log", "FILE",
     "append what the jail refused, and each connection the\nproxy allowed, to FILE as JSON "
     "lines (not one the jail\ncan write)",
     ARG_NEEDED, set_log},
    {"log-allowed", "yes|no", "no: only the refusals in --jail-log's FILE", ARG_NEEDED,
     set_log_allowed},
    {"terminal", "passthrough|filter",
     "passthrough: your terminal to the jail as it is\n(the default, filter, gives it a "
     "pseudo-terminal whose\noutput goes through a filter)",
     ARG_NEEDED, set_terminal},
    {"status-fd", "N",
     "when the run ends, one JSON line to fd N (above 2):\nwhether the jail was built, the "
     "command ran, how it\nended; no process of the jail holds N (jail(1))",
     ARG_NEEDED, set_status_fd},
    {"version", NULL, "the policy's identity and the compiler's version", ARG_NONE, set_version},
    {"help", NULL, "this text", ARG_NONE, set_help},
};
#define N_OPTIONS (sizeof(options) / sizeof(options[0]))

/* "  --jail-NAME=ARG" then its help from column 25, or on the next line
 * when the name is longer. */
static void help_row(const struct option *op, const struct aj_policy *pol)
{
	static const char pad[] = "                        ";
	size_t n = 9 + strlen(op->name);

	out_s("  --jail-");
	out_s(op->name);
	if (op->takes != ARG_NONE) {
		out_s(op->takes == ARG_OPTIONAL ? "[=" : "=");
		out_s(op->arg);
		out_s(op->takes == ARG_OPTIONAL ? "]" : "");
		n += strlen(op->arg) + (op->takes == ARG_OPTIONAL ? 3 : 1);
	}
	if (n + 1 < sizeof(pad))
		out_s(pad + n);
	else
		out_s("\n"), out_s(pad);
	for (const char *h = op->help; *h; h++) {
		out_c(*h);
		if (*h == '\n')
			out_s(pad);
	}
	if (op->set == set_mode)
		for (unsigned i = 0; i < pol->n_modes; i++)
			out_c(' '), out_s(pol->modes[i]);
	out_c('\n');
}

static noreturn void help(const struct aj_policy *pol)
{
	out_fd(1);
	out_s("usage: ");
	out_s(aj_progname);
	if (pol->exec) {
		out_s(" [--jail-OPTION...] [--] [ARG...]\n\nRuns ");
		out_s(pol->exec);
		for (unsigned i = 0; i < pol->n_exec_args; i++) {
			out_c(' ');
			out_s(pol->exec_args[i]);
		}
		out_s(" ARG... in the \"");
		out_s(pol->name);
		out_s("\" jail.\n");
	} else {
		out_s(" [OPTION...] [--] COMMAND [ARG...]\n\n"
		      "Runs COMMAND in the \"");
		out_s(pol->name);
		out_s("\" jail; its name picks the policy's command group.\n"
		      "Each --jail-NAME[=VALUE] below may also be spelt --NAME [VALUE], and\n"
		      "--jail-mode=MODE as --MODE.\n");
	}
	for (unsigned i = 0; i < N_OPTIONS; i++)
		help_row(&options[i], pol);
	out_s("  --jail-T, --jail-no-T the toggle T on or off (not on in a mode that turns it\n"
	      "                        off), T one of" AJ_TOGGLES(
	          AJ_WORD_ITEM) "\n"
	                        "  --                    ends the jail's options\n\n"
	                        "Exit status: the command's; 128+N when it died of signal N; 124 "
	                        "on timeout;\n"
	                        "125 when the jail could not be built (or the command exited 125;\n"
	                        "--jail-status-fd tells them apart); 126 when the command cannot "
	                        "run;\n"
	                        "127 when it is not found.  --jail-explain: 0 when the jail can be "
	                        "built here,\n"
	                        "2 when the policy's fallback (no namespaces) would run instead, "
	                        "125 when\n"
	                        "nothing would.\n");
	out_flush();
	_exit(0);
}

static const struct option *option_row(const char *name)
{
	for (unsigned i = 0; i < N_OPTIONS; i++)
		if (!strcmp(options[i].name, name))
			return &options[i];
	return NULL;
}

static bool is_mode(const struct aj_policy *pol, const char *name)
{
	for (unsigned i = 0; i < pol->n_modes; i++)
		if (!strcmp(pol->modes[i], name))
			return true;
	return false;
}

/* Returns the index of the first argument that is not the stub's.  A
 * per-tool stub stops at the first argument that is not --jail-*: its
 * tool's own options never collide with ours. */
int options_parse(const struct aj_policy *pol, int argc, char **argv, struct opts *o)
{
	int i;

	o->pol = pol;
	for (i = 1; i < argc; i++) {
		char name[16];
		const char *opt = argv[i], *a = opt, *eq, *value = NULL;
		const struct option *op;
		size_t n;

		if (!strcmp(a, "--"))
			return i + 1;
		if (!strncmp(a, "--jail-", 7))
			a += 7;
		else if (!pol->exec && a[0] == '-' && a[1] == '-')
			a += 2;
		else if (!pol->exec && a[0] == '-' && a[1])
			die_usage("unknown option", opt);
		else
			break;
		eq = strchr(a, '=');
		n = eq ? (size_t)(eq - a) : strlen(a);
		if (n >= sizeof(name))
			die_usage("unknown option", opt);
		memcpy(name, a, n);
		name[n] = '\0';
		value = eq ? eq + 1 : NULL;
		op = option_row(name);
		if (!eq && a == opt + 2 && !op && is_mode(pol, name)) {
			o->mode = a, o->mode_opt = opt; /* --MODE, the generic jail's */
			continue;
		}
		/* --NAME VALUE, the generic jail's spelling */
		if (!eq && a == opt + 2 && op && op->takes == ARG_NEEDED)
			value = i + 1 < argc ? argv[++i] : "";
		if (op && value && op->takes == ARG_NONE)
			die_usage("no value is taken by", opt);
		else if (op && !value && op->takes == ARG_NEEDED)
			die_usage("a value is needed after", opt);
		else if (op)
			op->set(o, value, opt);
		else if (value || !extra_toggle(name, opt))
			die_usage("unknown option", opt);
	}
	return i;
}
