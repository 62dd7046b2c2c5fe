/* toggles.h: what each toggle (AJ_TOGGLES) brings into a jail. */
#ifndef AJ_TOGGLES_H
#define AJ_TOGGLES_H

#include "variant.h"

struct lowering; /* changes.h: the handlers' side */

/* A mount a toggle adds when it is on: a fixed path, or a variable's. */
struct toggle_mount {
	int toggle; /* enum aj_toggle */
	int op, flags;
	const char *path; /* NULL: the variable's value */
	int var;          /* enum aj_var */
};

/* A variable a toggle keeps when it is on and, when drop_when_off, drops
 * when it is off, whatever else keeps it. */
struct toggle_env {
	int toggle;
	bool drop_when_off;
	const char *name;
};

const struct toggle_mount *toggles_mounts(size_t *n);
const struct toggle_env *toggles_envs(size_t *n);
/* Can a run have toggle t on in the variant: is it on, or off without a
 * mode block's saying so (aj_variant.toggles_fixed)? */
bool toggles_switchable(const struct variant *v, int t);
/* The toggle whose mounts use the variable, -1 for a policy's own. */
int toggles_of_var(int var);
/* GPU|DOCKER|… on|off; (the key is the toggle's name): lw->arg is the
 * toggle, set by a mode block for good (aj_variant.toggles_fixed). */
bool toggles_lower(struct lowering *lw, const struct stmt *s);

#endif
