policy p {
    forward 192.168.1.10:11434;
}
