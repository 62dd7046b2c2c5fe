policy p {
    mask .env;
}
