# base.aj: what every aijail profile shares.
#
# The host's system directories come in read-only, the project read-write,
# everything else is fresh and empty.  Secrets inside the project are masked
# (present, empty, read-only) or denied (present, inaccessible).

policy base {
    hostname "jail";
    network none;
    landlock on;

    # The system part follows the layout it finds (an image's as much as
    # a host's): link? is the host's own link where it has a link, a
    # read-only bind where it has a directory (an Alpine-style /bin),
    # nothing where it has nothing.
    ro?     /usr /etc /opt;
    link?   /bin -> usr/bin;
    link?   /sbin -> usr/sbin;
    link?   /lib -> usr/lib;
    link?   /lib64 -> usr/lib64;
    tmpfs   /tmp /var/tmp /run;
    # Where /etc/resolv.conf may point: the files, never their folders.
    # systemd-resolved's folder also holds io.systemd.Resolve, a socket
    # any user may connect to (a read-only bind does not stop connect()),
    # and through it a jail without network could ask the host to look up
    # any name.  A file bind keeps the inode it found: a change the host
    # makes by renaming a new file in shows in the next jail, not this one.
    ro?     /run/systemd/resolve/resolv.conf /run/systemd/resolve/stub-resolv.conf
            /run/resolvconf/resolv.conf;
    dev     minimal;
    proc;
    tmpfs   $HOME;              # private and empty: no ~/.ssh, no ~/.aws
    rw      $PROJECT;

    mask nocase ".env" ".env.*" "credentials.json" "secrets.yml" "*token*.json"
                "*.pem" "id_ed25519*" "id_rsa*";
    deny nocase "secrets/" "*.key" ".gnupg/";
    # The one walk that finds them does not enter dependency trees and
    # caches (their secret-looking files are fixtures and CA bundles, and
    # they are most of a project's entries), and stops the jail below 32
    # levels.  docs/secrets.md has the measurements and what it means.
    scan prune "node_modules/" ".git/objects/" ".venv/" "__pycache__/";
    scan depth 32;

    env keep PATH TERM COLORTERM NO_COLOR LANG LANGUAGE "LC_*" TZ USER LOGNAME;
    # Proxies: the tools that get the network (and --net) need them.
    env keep HTTP_PROXY HTTPS_PROXY NO_PROXY ALL_PROXY http_proxy https_proxy no_proxy all_proxy;
    env set  HOME=$HOME AIJAIL=1;

    rlimit core 0;
    # Runaways: a fork bomb or a leak stops here instead of taking the
    # host with it.  For the whole jail where the caller owns a cgroup
    # (pids.max, memory.max), else per user namespace (RLIMIT_NPROC, so
    # again the whole jail) and per process (RLIMIT_DATA).  Tasks count
    # threads.  Measured here (cgroup pids.peak): npm install of express,
    # typescript, webpack, eslint and jest 20 tasks, this repository's
    # make -j 43, jest about 8 per worker and cargo about 8 per job, so a
    # tool that sizes its workers by the cores reaches 1024 near 128 cores
    # (cargo.aj and npm.aj allow 1536).  A quarter of physical memory
    # leaves the host room to kill the runaway.
    limit processes 1024;
    limit memory 25 percent;

    syscalls default allow;
    # The calls that leave or rebuild the jail (mount, pivot_root, ptrace,
    # bpf, …).  chroot is the compiler's, with every new namespace: both
    # are refused unless a policy says 'namespaces' (browser.aj).
    syscalls deny @aj-escape except chroot;
    syscalls deny ioctl(*, TIOCSTI) ioctl(*, TIOCLINUX) ioctl(*, TIOCSETD);
    # clone3 passes its flags in memory seccomp cannot read: make libc fall
    # back to clone(2), whose flags the filter reads ('namespaces').
    syscalls return ENOSYS clone3;
    # Families that reach the hypervisor (vsock), the hardware or raw
    # packets, and the kernel's crypto and key interfaces.
    syscalls return EAFNOSUPPORT socket(in {AF_PACKET, AF_VSOCK, AF_BLUETOOTH, AF_KEY, AF_ALG});
    # The kernel's packet filters as programs load them (iptables-legacy,
    # arptables, ebtables, ipvsadm): a table is a blob the kernel parses,
    # the path of several privilege escalations (CVE-2021-22555).  It
    # needs root of a network namespace, which only a profile that allows
    # new namespaces reaches (browser.aj); no tool in a jail programs the
    # host's filters, so every profile refuses it.  The ordinary IPv6
    # options between these numbers (IPV6_RECVTCLASS 66, IPV6_TCLASS 67)
    # stay open.
    syscalls deny setsockopt(*, SOL_IP, in {IPT_SO_SET_REPLACE, IPT_SO_SET_ADD_COUNTERS,
                                            ARPT_SO_SET_REPLACE, ARPT_SO_SET_ADD_COUNTERS,
                                            EBT_SO_SET_ENTRIES, EBT_SO_SET_COUNTERS})
                  setsockopt(*, SOL_IPV6, in {IP6T_SO_SET_REPLACE, IP6T_SO_SET_ADD_COUNTERS})
                  getsockopt(*, SOL_IP, in {IPT_SO_GET_INFO, IPT_SO_GET_ENTRIES,
                                            IPT_SO_GET_REVISION_MATCH, IPT_SO_GET_REVISION_TARGET,
                                            ARPT_SO_GET_INFO, ARPT_SO_GET_ENTRIES,
                                            ARPT_SO_GET_REVISION_TARGET, EBT_SO_GET_INFO,
                                            EBT_SO_GET_ENTRIES, EBT_SO_GET_INIT_INFO,
                                            EBT_SO_GET_INIT_ENTRIES})
                  getsockopt(*, SOL_IPV6, in {IP6T_SO_GET_INFO, IP6T_SO_GET_ENTRIES,
                                              IP6T_SO_GET_REVISION_MATCH,
                                              IP6T_SO_GET_REVISION_TARGET})
                  # IPVS: its options are IP_VS_BASE_CTL to 15 past it.
                  setsockopt(*, SOL_IP, & 0xfffffff0 == IP_VS_BASE_CTL)
                  getsockopt(*, SOL_IP, & 0xfffffff0 == IP_VS_BASE_CTL);

    gpu on;
    display on;
    docker off;                 # the Docker socket is root on the host: opt in per policy

    # Disposable processes spawned by an agent: chosen automatically.
    mode worker when env HERMES_KANBAN_TASK AIJAIL_WORKER {
        gpu off;
        docker off;
        display off;
    }

    # Critical operations (deploy, restore): nothing changes outside the
    # process, nothing leaves the machine.
    mode lockdown {
        ro $PROJECT;
        # A .env that appears during the run stays unreadable, where
        # Landlock can do it for free (docs/secrets.md, "the fence").
        scan guard "/.env";
        network none;
        gpu off;
        docker off;
        display off;
        # A stricter environment: nothing shaped like a credential, and no
        # variable that makes a tool load other code (the profiles drop
        # their own in their lockdown blocks).
        env drop "*TOKEN*" "*SECRET*" "*PASSWORD*" "*PASSWD*" "*_KEY" "*_KEY_*"
                 "*CREDENTIAL*" "*_AUTH*" "LD_*" "*_PROXY" "*_proxy";
        # An allowlist: what a service needs, nothing newer or stranger.
        # The denies above still win over it.
        syscalls default deny;
        syscalls allow @system-service;
    }
}
