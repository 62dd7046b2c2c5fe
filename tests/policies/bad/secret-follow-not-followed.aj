# A key that follows a host the tool's setting does not replace.
policy p {
    network allow "console.anthropic.com" follow claude "api.anthropic.com";
    secret ANTHROPIC_API_KEY follow "console.anthropic.com";
}
