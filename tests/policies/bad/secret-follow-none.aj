# A key that follows a tool's API host, in a policy that follows no tool.
policy p {
    network allow "api.example.com";
    secret API_KEY follow;
}
