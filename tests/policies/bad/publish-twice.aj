# One host port, one jail port.
policy p {
    network none;
    publish 3000 3000:8080;
}
