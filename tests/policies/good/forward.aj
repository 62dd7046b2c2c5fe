# forward: the host's loopback ports, bare, with the host, quoted; a
# mode's 'network' keeps only the forwards it says itself (lockdown the
# one, worker inherits all three).
include "base.aj";

policy p extends base {
    network none;
    forward 11434 127.0.0.1:5432 "[::1]:8080";
    mode lockdown {
        network none;
        forward 11434;
    }
}
