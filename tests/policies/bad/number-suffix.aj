policy p {
    rlimit as 12X;
}
