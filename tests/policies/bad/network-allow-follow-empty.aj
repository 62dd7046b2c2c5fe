policy p {
    network allow "a.org" follow npm;
}
