# A mode that forwards a port the weaker mode does not is wider.
policy p {
    forward 5432;
    mode lockdown {
        network none;
        forward 11434;
    }
}
