policy p {
    gpu yes;
}
