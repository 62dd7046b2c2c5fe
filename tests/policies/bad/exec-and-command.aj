policy p {
    exec python3;
    command npm { rw+ ~/.npm; }
}
