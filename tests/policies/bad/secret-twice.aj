policy p {
    network public;
    secret API_KEY "a.example.com";
    secret API_KEY "b.example.com";
}
