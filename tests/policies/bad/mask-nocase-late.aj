policy p {
    mask ".env" nocase;
}
