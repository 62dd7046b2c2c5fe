policy p {
    syscalls deny @mount except ptrace;
}
