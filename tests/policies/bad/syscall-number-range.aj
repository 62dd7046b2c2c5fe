policy p {
    syscalls deny syscall[5000];
}
