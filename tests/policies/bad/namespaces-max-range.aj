policy p {
    namespaces user max 99;
}
