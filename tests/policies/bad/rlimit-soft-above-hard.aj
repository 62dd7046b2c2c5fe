policy p {
    rlimit nofile 4096 1024;
}
