policy p {
    syscalls deny @mountt;
}
