policy p {
    network allow "10.0.0";
}
