# The host's network shares the host's ports: a published port needs the
# jail's own network namespace.
policy p {
    network host;
    publish 3000;
}
