policy p {
    mask "*.key";
    deny "*.key";
}
