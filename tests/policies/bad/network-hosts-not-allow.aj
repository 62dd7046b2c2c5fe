policy p {
    network host "pypi.org";
}
