policy p {
    landlock maybe;
}
