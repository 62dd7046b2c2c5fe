# A jail's ports on the host: the same port, another host port, another
# host address; lockdown publishes what its own block says.
include "base.aj";

policy publish extends base {
    network none;
    publish 3000 8081:8080 127.0.0.2:9001:9000;
    mode lockdown {
        network none;
        publish 3000;
    }
}
