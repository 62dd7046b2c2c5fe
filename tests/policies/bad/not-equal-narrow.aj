policy p {
    syscalls deny ioctl(*, != 0x5401);
}
