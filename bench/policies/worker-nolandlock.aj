# worker-nolandlock.aj: jail-worker with Landlock switched off.  Only the
# benchmark builds it (bench/run.sh), to price Landlock: start-up and
# file-heavy work, against the shipped jail-worker in the same run.
# Never install it.
include "worker.aj";

policy worker-nolandlock extends worker {
    landlock off;
}
