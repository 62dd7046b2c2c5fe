# sockopts: getsockopt takes conditions like setsockopt; a masked compare
# names a range; the kernel's netfilter and netlink constants are known.
include "base.aj";

policy p extends base {
    syscalls deny getsockopt(*, SOL_IP, & 0xfffffff0 == IP_VS_BASE_CTL)
                  getsockopt(*, SOL_IPV6, in {IP6T_SO_GET_INFO, IP6T_SO_GET_ENTRIES});
    syscalls return EAFNOSUPPORT socket(AF_NETLINK, *, in {NETLINK_XFRM, NETLINK_GENERIC});
}
