policy p {
    network allow "registry.npmjs.org" "files..pythonhosted.org";
}
