policy p {
    network allow follow cladue "api.anthropic.com:443";
}
