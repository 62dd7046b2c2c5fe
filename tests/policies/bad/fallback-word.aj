policy p {
    fallback seccomp;
}
