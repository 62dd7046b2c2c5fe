policy p {
    forward 11434;
    forward [::1]:11434;
}
