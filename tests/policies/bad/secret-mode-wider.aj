# A mode chosen by a trigger must not give the jail more than the one
# before it: here the use of a key the default mode does not bind.
policy p {
    network allow "api.github.com";
    mode ci {
        secret GITHUB_TOKEN "api.github.com";
    }
}
