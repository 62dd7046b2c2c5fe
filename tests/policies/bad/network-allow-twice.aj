policy p {
    network allow "pypi.org" "PyPI.org:443";
}
