policy p {
    ro /usr;
