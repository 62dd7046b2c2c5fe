policy p {
    limit memory 4G;
    limit processes 100;
    limit memory 2G;
}
