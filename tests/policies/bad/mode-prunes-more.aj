policy p {
    mode lockdown {
        scan prune "target/";
    }
}
