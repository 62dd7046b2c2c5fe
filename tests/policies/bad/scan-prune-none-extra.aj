policy p {
    scan prune none "target/";
}
