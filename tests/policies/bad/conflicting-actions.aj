policy p {
    syscalls deny clone3;
    syscalls return ENOSYS clone3;
}
