policy p {
    network allow registry.npmjs.org;
}
