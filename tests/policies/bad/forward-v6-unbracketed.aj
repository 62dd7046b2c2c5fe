policy p {
    forward "::1:8080";
}
