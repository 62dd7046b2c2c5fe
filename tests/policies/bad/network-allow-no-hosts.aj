policy p {
    network allow;
}
