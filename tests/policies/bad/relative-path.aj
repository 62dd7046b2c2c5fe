policy p {
    ro usr/lib;
}
