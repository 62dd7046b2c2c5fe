# Under 'network host' the jail connects past the proxy: nothing would add
# the value.
policy p {
    network host;
    secret API_KEY "api.example.com:8443";
}
