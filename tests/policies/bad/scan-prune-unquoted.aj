policy p {
    scan prune node_modules;
}
