policy p {
    mode worker when env CI { }
    mode lockdown when env CI { }
}
