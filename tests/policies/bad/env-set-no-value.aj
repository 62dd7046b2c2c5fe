policy p {
    env set HOME;
}
