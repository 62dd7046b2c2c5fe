policy p {
    rw /;
}
