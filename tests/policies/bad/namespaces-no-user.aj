policy p {
    namespaces pid net max 2;
}
