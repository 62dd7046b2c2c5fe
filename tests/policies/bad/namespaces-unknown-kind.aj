policy p {
    namespaces user nett max 2;
}
