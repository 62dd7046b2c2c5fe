# cargo.aj: jail-cargo runs cargo with its registry and git caches read-write.
include "base.aj";

policy cargo extends base {
    exec cargo;
    network host;               # crates.io
    rw+ ~/.cargo/registry ~/.cargo/git;
    ro? ~/.cargo/bin ~/.rustup;  # the toolchain rustup installed
    env keep "CARGO_*" "RUSTUP_*" RUSTFLAGS;
    # cargo runs a rustc per core, about 8 tasks each (-j 32: 255 tasks
    # here): 1536 is a 192-core build, and still stops a fork bomb of
    # 2,000.  Memory stays at base.aj's quarter, which also stops a bomb;
    # a workspace whose rustc processes together need more (a big crate
    # takes a gigabyte or more while it links) raises it in its own
    # policy: 'limit memory 50 percent;'.
    limit processes 1536;

    mode lockdown {
        ro? ~/.cargo/registry ~/.cargo/git;
        env drop "CARGO_*" "RUSTUP_*" RUSTFLAGS;
    }
}
