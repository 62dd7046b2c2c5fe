policy p {
    limit processes 0;
    mode a {
        limit processes unlimted;
    }
    mode b {
        limit processes 10 percent;
    }
    mode c {
        limit processes 5000000;
    }
}
