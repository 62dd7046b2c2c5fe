policy p {
    link /bin -> $HOME/bin;
}
