# Keys bound to hosts the jail reaches: under 'network public', and in a
# mode through 'network allow' (a pattern covers the first host); a mode's
# 'network' keeps its own block's keys only, so lockdown binds none, and
# the stricter gh binds no key, and no host of one, that normal does not.
policy p {
    network public;
    secret OPEN_KEY "api.openai.com" "api.anthropic.com";
    secret GITHUB_TOKEN "api.github.com";
    secret EXAMPLE_KEY "example.org:8443";
    mode gh {
        network allow "*.github.com" "example.org:8443";
        secret GITHUB_TOKEN "api.github.com";
        secret EXAMPLE_KEY "example.org:8443";
    }
    mode lockdown {
        network none;
    }
}
