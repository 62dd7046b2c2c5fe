policy p {
    rw $HOMEDIR/.cache;
}
