policy p {
    scan depth 16;
    scan depth 20;
}
