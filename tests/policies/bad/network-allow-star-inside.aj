policy p {
    network allow "files.*.org:443";
}
