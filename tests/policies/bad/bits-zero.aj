policy p {
    syscalls deny clone(& 0);
}
