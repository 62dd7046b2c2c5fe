policy p {
    scan depth 0;
}
