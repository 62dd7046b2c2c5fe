include "base.aj";

policy p extends base {
    syscalls deny getsockopt(*, SOL_IP, IPT_SO_SET_REPLAC);
}
