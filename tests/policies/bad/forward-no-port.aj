policy p {
    forward 127.0.0.1;
}
