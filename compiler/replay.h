/* replay.h: one complete variant, built by replaying the changes of its
 * blocks. */
#ifndef AJ_REPLAY_H
#define AJ_REPLAY_H

#include "changes.h"

/* The defaults, before any block. */
void replay_start(struct variant *v, const char *mode, const char *command);
/* Replays one block's changes: a later change replaces an earlier one (a
 * mount by its path, a setting by its key), lists accumulate.  False
 * (reported) on a contradiction with an earlier block. */
bool replay_block(struct variant *v, const change_list *block);
/* What follows from the whole: the mode's variable, the scan automaton,
 * the toggles' mounts, the order, Landlock, the seccomp programs. */
bool replay_finish(struct variant *v);

#endif
