policy p {
    scan guard "/config/*.json";
}
