policy p {
    ro /usr/../etc;
}
