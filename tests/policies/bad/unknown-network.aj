policy p {
    network nonee;
}
