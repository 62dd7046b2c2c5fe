# cargo.aj: jail-cargo runs cargo with its registry and git caches read-write.
include "base.aj";

policy cargo extends base {
    exec cargo;
    network host;               # crates.io
    rw+ ~/.cargo/registry ~/.cargo/git;
    ro? ~/.cargo/bin ~/.rustup;  # the toolchain rustup installed
    env keep "CARGO_*" "RUSTUP_*" RUSTFLAGS;
    # cargo runs a rustc per core, about 8 tasks each (-j 32: 255 tasks
    # here), and a rustc of a large crate takes a gigabyte or more while
    # it links: base.aj's bounds would stop a real build on a big host.
    limit processes 4096;
    limit memory 50 percent;

    mode lockdown {
        ro? ~/.cargo/registry ~/.cargo/git;
        env drop "CARGO_*" "RUSTUP_*" RUSTFLAGS;
    }
}
