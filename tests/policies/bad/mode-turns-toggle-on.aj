policy p {
    gpu off;
    mode strict { docker off; }
    mode render { gpu on; }
}
