# Every construct of the language once, compiled by the corpus test.
include "base.aj";

group @my-escape @aj-escape except ptrace;

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
    env drop "MY_SECRET_*";
    env set LANG=C.UTF-8 GREETING="hello world" RUNTIME=$XDG_RUNTIME_DIR/x;
    rlimit nofile 1024 4096;
    rlimit as unlimited;
    timeout 3600;
    syscalls kill vmsplice;
    syscalls deny @my-escape syscall[470];
    syscalls deny socket(AF_INET, SOCK_RAW) socket(in {AF_INET, AF_INET6}, & 0xf == SOCK_RAW);
    syscalls allow read;
    syscalls return EAFNOSUPPORT socketpair(AF_NETLINK);
    docker on;
    namespaces user pid net max 2;

    # Declared after base's lockdown, so at least as strict (modes are
    # ranked in the order they are declared).
    mode ci when env CI GITHUB_ACTIONS {
        network none;
        gpu off;
        display off;
        docker off;
        timeout 600;
        env drop EDITOR;
    }
    default mode normal;
}
