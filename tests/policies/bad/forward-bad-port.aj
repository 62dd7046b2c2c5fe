policy p {
    forward 11434 127.0.0.1:99999;
}
