policy p {
    ro ~root/.cache;
}
