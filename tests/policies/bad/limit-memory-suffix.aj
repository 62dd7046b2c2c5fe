# Sizes take K, M, G or T (powers of 1024), no B.
policy p {
    limit memory 4GB;
    mode a {
        limit memory 512MiB;
    }
}
