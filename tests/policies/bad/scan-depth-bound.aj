policy p {
    scan depth 16 stop;
}
