# 'network none' has no proxy to add the value.
policy p {
    network none;
    secret API_KEY "api.example.com";
}
