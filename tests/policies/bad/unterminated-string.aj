policy p {
    mask ".env;
}
