policy p {
    scan prune "vendor/";
    deny "vendor/keys/";
}
