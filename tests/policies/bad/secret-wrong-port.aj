# HOST is HOST:443: a list that allows another port of the host does not
# reach it.
policy p {
    network allow "api.example.com:8443";
    secret API_KEY "api.example.com";
}
