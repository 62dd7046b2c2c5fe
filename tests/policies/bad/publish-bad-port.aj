policy p {
    network none;
    publish 3000:70000;
}
