# browser.aj: jail-browser runs Debian's Chromium with its own sandbox on.
#
# Chromium isolates each renderer in a user, PID and network namespace of
# its own, then confines it with its own seccomp filter.  Every other
# profile refuses new namespaces of every kind and chroot; this one allows
# the three kinds that sandbox makes, and chroot, with which it leaves its
# renderers an empty root.  The trade-off: a process of this jail can be
# root of a user namespace of its own, which reaches kernel code that needs
# a capability there (the configuration of its own network namespace, for
# one).  Against that, the filter still refuses mount, new mount, IPC, UTS,
# cgroup and time namespaces and the rest of @aj-escape, the packet
# filters' tables (base.aj), and, below, the configuration of a network
# namespace, which Chromium never does; and the kernel refuses a fifth
# user namespace below the jail's, at any depth: the sandbox uses one, and
# Chromium's start-up probes a few more, whose count the kernel releases
# late.
# docs/browser.md has the measurements.
include "base.aj";

policy browser extends base {
    exec chromium;
    network host;               # the pages it renders
    namespaces user pid net max 4;
    # What a network namespace's root would configure, and Chromium does
    # not (its namespaces stay empty; docs/browser.md has the strace):
    # every netlink family but the device events it reads (NETLINK_ROUTE
    # too, which creates links (veth, vxlan), traffic control and routes;
    # Chromium's address tracker reads it, is refused, and counts the
    # network as up), and the ioctls that create bridges, VLANs and
    # tunnels.  x_tables is refused in base.aj.
    syscalls return EAFNOSUPPORT socket(AF_NETLINK, *, in {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
                                                           11, 12, 13, 14, 16, 17, 18, 19, 20,
                                                           21, 22, 23, 24, 25, 26, 27, 28, 29,
                                                           30, 31});
    syscalls deny ioctl(*, in {SIOCSIFBR, SIOCSIFVLAN, SIOCBRADDBR, SIOCBRDELBR, SIOCBRADDIF,
                               SIOCBRDELIF})
                  # SIOCADDTUNNEL and its kin, and the drivers' own.
                  ioctl(*, & 0xfffffff0 == SIOCDEVPRIVATE);
}
