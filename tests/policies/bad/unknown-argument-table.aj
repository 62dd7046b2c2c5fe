policy p {
    syscalls deny read(0);
}
