# exec with arguments of its own (jail-codex): given before the caller's.
include "base.aj";

policy p extends base {
    exec tool "-c" "mode=off" quiet;
}
