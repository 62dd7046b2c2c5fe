policy p {
    forward [fe80::1]:8080;
}
