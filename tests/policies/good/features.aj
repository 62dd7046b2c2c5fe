# Every construct of the language once, compiled by the corpus test.
include "base.aj";

policy features extends base {
    hostname "box-1";
    network loopback;
    landlock require 3;
    ro? /srv/data "/opt/with space";
    rw+ $HOME/.cache/tool;
    rw? /run/user/$UID/bus;
    tmpfs /scratch;
    link /usr/local/bin/py -> /usr/bin/python3;
    mask "/config/*.ini" "**/private/" "[Tt]oken?.txt";
    deny "/.ssh/";
    env keep "MY_*" EDITOR;
    env set LANG=C.UTF-8 GREETING="hello world" RUNTIME=$XDG_RUNTIME_DIR/x;
    rlimit nofile 1024 4096;
    rlimit as unlimited;
    timeout 3600;
    syscalls kill vmsplice;
    syscalls deny socket(in {AF_PACKET, AF_VSOCK}) socket(AF_INET, SOCK_RAW);
    syscalls return EAFNOSUPPORT socketpair(AF_NETLINK);
    docker on;

    mode ci when env CI GITHUB_ACTIONS {
        network none;
        timeout 600;
    }
    default mode normal;
}
