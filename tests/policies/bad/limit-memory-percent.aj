policy p {
    limit memory 0 percent;
    mode a {
        limit memory 150 percent;
    }
    mode b {
        limit memory 25 precent;
    }
}
