# A plain number is bytes: this one was not meant.
policy p {
    limit memory 512;
    mode a {
        limit memory 0;
    }
    mode b {
        limit memory lots;
    }
}
