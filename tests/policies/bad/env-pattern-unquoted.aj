policy p {
    env keep LC_*;
}
