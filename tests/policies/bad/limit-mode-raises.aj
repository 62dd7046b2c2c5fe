# A later mode is the stricter one: it may lower a limit, never raise it.
include "base.aj";

policy p extends base {
    mode ci when env CI {
        gpu off;
        docker off;
        display off;
        network none;
        limit processes 2048;
    }
}
