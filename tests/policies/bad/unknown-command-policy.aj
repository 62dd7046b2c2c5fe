policy p {
    command python use pyton;
}
