policy p {
    syscalls deny ptrac;
}
