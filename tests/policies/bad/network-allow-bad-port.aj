policy p {
    network allow "registry.npmjs.org:99999";
}
