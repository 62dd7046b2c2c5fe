policy p {
    ro /usr
    rw $PROJECT;
}
