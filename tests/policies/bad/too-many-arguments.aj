policy p {
    syscalls deny unshare(1, 2);
}
