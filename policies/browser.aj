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
# cgroup and time namespaces, netfilter's netlink and the rest of
# @aj-escape, and the kernel refuses a fifth user namespace below the
# jail's, at any depth: the sandbox uses one, and Chromium's start-up
# probes a few more, whose count the kernel releases late.
# docs/browser.md has the measurements.
include "base.aj";

policy browser extends base {
    exec chromium;
    network host;               # the pages it renders
    namespaces user pid net max 4;
    # NETLINK_NETFILTER (12): what a namespace's root would program.
    syscalls return EAFNOSUPPORT socket(AF_NETLINK, *, 12);
}
