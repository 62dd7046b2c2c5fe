# Modes are ranked in the order they are declared: a later one may not
# give back what an earlier one took away.
include "base.aj";

policy p extends base {
    mode ci when env CI {
        gpu off;
        display off;
        network host;
    }
}
