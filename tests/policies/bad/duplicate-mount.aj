policy p {
    ro /usr;
    rw /usr;
}
