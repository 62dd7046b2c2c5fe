policy p {
    syscalls default deny;
    syscalls allow read write;
    syscalls deny write;
}
