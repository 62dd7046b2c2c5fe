policy p {
    hostname "my host";
}
