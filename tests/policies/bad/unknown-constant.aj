policy p {
    syscalls deny ioctl(*, TIOCSIT);
}
