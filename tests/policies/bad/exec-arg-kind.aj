policy p {
    exec tool 5 $HOME;
}
