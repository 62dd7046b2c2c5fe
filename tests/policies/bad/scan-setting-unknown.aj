policy p {
    scan prun "node_modules";
}
