policy p {
    syscalls default allow;
    syscalls allow read;
}
