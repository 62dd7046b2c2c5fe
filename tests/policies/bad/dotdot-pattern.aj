policy p {
    mask "../.env";
}
