policy p {
    env dorp "AWS_*";
}
