policy p {
    limit memory 25%;
}
