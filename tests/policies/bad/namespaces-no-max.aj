policy p {
    namespaces user pid;
}
