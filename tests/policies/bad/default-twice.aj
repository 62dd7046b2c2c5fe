policy p {
    syscalls default deny;
    syscalls default allow;
}
