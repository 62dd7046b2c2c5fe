policy p {
    network allow follow pipp "pypi.org";
}
