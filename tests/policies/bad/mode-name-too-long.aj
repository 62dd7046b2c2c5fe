policy p {
    mode a-mode-whose-name-is-far-too-long-for-the-jail-to-record { }
}
