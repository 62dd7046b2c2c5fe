# network blocked: the host's network namespace, sockets refused but Unix.
include "base.aj";

policy p extends base {
    network blocked;
    mode worker { network blocked; }
}
