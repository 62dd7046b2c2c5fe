# A key goes to the hosts written, not to a family of names.
policy p {
    network public;
    secret API_KEY "*.example.com";
}
