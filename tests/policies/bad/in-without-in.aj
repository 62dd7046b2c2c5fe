policy p {
    syscalls deny socket(of {AF_NETLINK, AF_PACKET});
}
