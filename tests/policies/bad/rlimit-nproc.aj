# The stub sets RLIMIT_NPROC from 'limit processes'.
policy p {
    rlimit nproc 100;
}
