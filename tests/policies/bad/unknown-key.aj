policy p {
    netwrok none;
}
