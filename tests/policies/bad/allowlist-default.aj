policy p {
    syscalls default kill;
}
