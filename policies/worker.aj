# worker.aj: jail-worker CMD ARGS… for disposable processes an agent
# spawns: the generic jail, always in worker mode or stricter.
include "jail.aj";

policy worker extends jail {
    default mode worker;
    gpu off;
    docker off;
    display off;
}
