# pip.aj: jail-pip runs pip with its own cache read-write.
include "base.aj";

policy pip extends base {
    exec pip;
    network host;               # the package index
    rw+ ~/.cache/pip;
    env keep "PIP_*" VIRTUAL_ENV;

    mode lockdown {
        ro? ~/.cache/pip;
        env drop "PIP_*";
    }
}
