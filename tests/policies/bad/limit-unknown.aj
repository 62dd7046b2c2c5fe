policy p {
    limit proceses 100;
}
