/* variant.h: one complete variant, built by replaying lowered blocks. */
#ifndef AJ_VARIANT_H
#define AJ_VARIANT_H

#include "types.h"

/* The defaults, before any block. */
void variant_start(struct variant *v, const char *mode, const char *command);
/* Replays one block's changes: a later change replaces an earlier one (a
 * mount by its path, a setting by its key), lists accumulate.  False
 * (reported) on a contradiction with an earlier block. */
bool variant_apply(struct variant *v, const change_list *block);
/* What follows from the whole: the mode's variable, the patterns lowered,
 * the toggles' mounts, the order, Landlock, the seccomp programs. */
bool variant_finish(struct variant *v);

#endif
