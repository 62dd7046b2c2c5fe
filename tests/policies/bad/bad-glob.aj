policy p {
    mask "id_[rsa";
}
