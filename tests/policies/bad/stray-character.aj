policy p {
    ro /usr; %
}
