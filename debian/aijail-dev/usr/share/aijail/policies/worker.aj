# worker.aj: jail-worker CMD ARGS… for disposable processes an agent
# spawns: the generic jail, always in worker mode or stricter.
include "jail.aj";

policy worker extends jail {
    default mode worker;
    # Copied into a container image, where the runtime's seccomp profile
    # refuses user namespaces: Landlock and the other layers alone
    # (--jail-explain lists what is then not in force).
    fallback landlock;
    # Asked for normal by name, still no GPU, no Docker socket and no
    # display: a mode block comes after every command group's own
    # settings (the docker group turns the socket on).
    mode normal {
        gpu off;
        docker off;
        display off;
    }
}
