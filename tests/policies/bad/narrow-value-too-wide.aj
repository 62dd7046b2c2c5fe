policy p {
    syscalls deny ioctl(*, 0x100000000);
}
