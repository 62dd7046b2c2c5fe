policy p {
    syscalls deny socket(*, & 0xf == 0x10);
}
