policy p {
    network public;
    secret "API_KEY" "a.example.com";
}
