policy p {
    deny "a**b";
}
