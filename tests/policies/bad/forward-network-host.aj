# The host's network has the host's ports already: a forward needs the
# jail's own network namespace.
policy p {
    network host;
    forward 11434;
}
