policy p {
    network allow "pypi.org";
    mode worker {
        network allow "pypi.org" "evil.example.com";
    }
}
