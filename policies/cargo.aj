# cargo.aj: jail-cargo runs cargo with its registry and git caches read-write.
include "base.aj";

policy cargo extends base {
    exec cargo;
    network host;               # crates.io
    rw+ ~/.cargo/registry ~/.cargo/git;
    ro? ~/.cargo/bin ~/.rustup;  # the toolchain rustup installed
    env keep "CARGO_*" "RUSTUP_*" RUSTFLAGS;

    mode lockdown {
        ro? ~/.cargo/registry ~/.cargo/git;
        env drop "CARGO_*" "RUSTUP_*" RUSTFLAGS;
    }
}
