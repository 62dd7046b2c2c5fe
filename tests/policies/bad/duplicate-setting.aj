policy p {
    network none;
    network host;
}
