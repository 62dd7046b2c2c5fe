# worker-blocked.aj: jail-worker with 'network blocked' (no network
# namespace; docs/performance.md says what that leaves readable).  Only the
# benchmark builds it (bench/run.sh), to price the network namespace
# against the shipped jail-worker in the same run.  Never install it.
include "worker.aj";

policy worker-blocked extends worker {
    network blocked;
}
