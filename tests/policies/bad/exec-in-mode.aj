policy p {
    mode lockdown { exec sh; }
}
