/* mode.c: which mode a run uses, and the floor a jail leaves to the jails
 * started inside it.
 *
 * A mode's strength is its index: the compiler emits the modes weakest
 * first (the policy body's own, then each in the order the policies
 * declare it) and checks that each is at least as strict as the one
 * before it.  A run uses the mode an option names; else the strongest of
 * those the environment asks for (a trigger variable, the policy's
 * mode_env) and the policy's default.
 * A variable that is set asks, even when empty: a trigger variable an
 * orchestrator set to "" because it had no task id to give still asks for
 * its mode, and reading it as unset would give the weaker mode.  An empty
 * mode variable names no mode, and is refused like a misspelt one.
 *
 * The floor: pid 1 writes "aijail:MODE" as the NIS domain name of the
 * jail's own UTS namespace.  A stub started inside reads it back with
 * uname(2) and never uses a weaker mode: an explicit weaker choice is
 * refused, an automatic one is raised.  The jailed process cannot change
 * it: setdomainname(2) needs CAP_SYS_ADMIN, which the jail drops, and a
 * UTS namespace of its own needs clone/unshare flags the filter refuses.
 * An environment variable could not carry it: a process can always clear
 * its own environment. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "variant/variant.h"

#define FLOOR_TAG     "aijail:"
#define FLOOR_TAG_LEN 7

static char outer_buf[sizeof(((struct utsname *)0)->domainname)];
static const char *outer;

/* die.c's message, its hint naming the modes from the floor up. */
static noreturn void refuse(const struct aj_policy *pol, const char *name, const char *why,
                            unsigned from)
{
	static char hint[1024];
	size_t n = strlen(why);

	if (n >= sizeof(hint) / 2)
		n = sizeof(hint) / 2;
	memcpy(hint, why, n);
	memcpy(hint + n, "; the modes it may use are", 27);
	n += 26;
	for (unsigned i = from; i < pol->n_modes; i++) {
		size_t l = strlen(pol->modes[i]);

		if (n + 1 + l >= sizeof(hint))
			break;
		hint[n++] = ' ';
		memcpy(hint + n, pol->modes[i], l + 1);
		n += l;
	}
	diep("use the mode", name, 0, hint);
}

static unsigned mode_named(const struct aj_policy *pol, const char *name)
{
	for (unsigned i = 0; i < pol->n_modes; i++)
		if (!strcmp(pol->modes[i], name))
			return i;
	refuse(pol, name, "this policy has no such mode", 0);
}

/* The mode of the jail this stub runs in, or NULL outside any jail. */
static const char *enclosing_mode(void)
{
	struct utsname u;

	if (uname(&u) || strncmp(u.domainname, FLOOR_TAG, FLOOR_TAG_LEN))
		return NULL;
	memcpy(outer_buf, u.domainname + FLOOR_TAG_LEN, sizeof(u.domainname) - FLOOR_TAG_LEN);
	outer_buf[sizeof(outer_buf) - 1] = '\0';
	return outer = outer_buf;
}

const char *mode_outer(void)
{
	return outer;
}

static void raise_to(struct run *r, unsigned mode, const char *why, const char *arg)
{
	if (mode < r->mode)
		return;
	r->mode = mode;
	r->why = why;
	r->why_arg = arg;
}

void mode_choose(struct run *r, const char *name, const char *opt)
{
	const struct aj_policy *pol = r->pol;
	const char *env;

	r->outer = enclosing_mode();
	if (r->outer) {
		unsigned i = 0;

		while (i < pol->n_modes && strcmp(pol->modes[i], r->outer))
			i++;
		if (i == pol->n_modes) /* fail closed: we cannot tell what is weaker */
			refuse(pol, name ? name : r->outer,
			       "this runs inside a jail whose mode this policy does not know", 0);
		r->floor = i;
	}
	if (name) {
		r->mode = mode_named(pol, name);
		r->why = "chosen by";
		r->why_arg = opt;
		if (r->mode < r->floor)
			refuse(
			    pol, name,
			    "this runs inside a jail in a stricter mode, and a jail inside a jail "
			    "is never weaker than its own",
			    r->floor);
		return;
	}
	r->mode = pol->default_mode;
	r->why = "the policy's default";
	r->why_arg = NULL;
	for (unsigned i = 0; i < pol->n_triggers; i++)
		if (getenv(pol->triggers[i].env))
			raise_to(r, pol->triggers[i].mode, "triggered by", pol->triggers[i].env);
	env = getenv(pol->mode_env);
	if (env && !*env) {
		static const char empty[] =
		    " is set but empty (name a mode, or unset it for the automatic choice)";
		static char why[64 + sizeof(empty)];
		size_t n = strlen(pol->mode_env);

		if (n > 64)
			n = 64;

		memcpy(why, pol->mode_env, n);
		memcpy(why + n, empty, sizeof(empty));
		refuse(pol, "\"\"", why, r->floor);
	}
	if (env)
		raise_to(r, mode_named(pol, env), "chosen by", pol->mode_env);
	if (r->mode < r->floor) {
		r->mode = r->floor;
		r->why = "the floor of the jail this runs in";
		r->why_arg = NULL;
	}
}

/* pid 1, in the jail's new UTS namespace, before capabilities are gone. */
void mode_seal(const struct run *r)
{
	char tag[sizeof(((struct utsname *)0)->domainname)] = FLOOR_TAG;
	const char *name = r->pol->modes[r->mode];
	size_t n = strlen(name);

	if (FLOOR_TAG_LEN + n >= sizeof(tag))
		die("record the mode in the jail", ENAMETOOLONG, "the mode's name is too long");
	memcpy(tag + FLOOR_TAG_LEN, name, n);
	if (setdomainname(tag, FLOOR_TAG_LEN + n))
		die("record the mode in the jail", errno, NULL);
}
