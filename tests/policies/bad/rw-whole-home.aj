policy p {
    rw ~;
}
