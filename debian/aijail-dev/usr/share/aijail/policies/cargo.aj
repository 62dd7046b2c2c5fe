# cargo.aj: jail-cargo runs cargo with its registry and git caches read-write.
include "base.aj";

policy cargo extends base {
    exec cargo;
    # crates.io only (its sparse index, its downloads, its API): a source
    # replacement in $CARGO_HOME/config.toml replaces them.  Git
    # dependencies need --jail-allow-host=github.com.
    network allow follow cargo "index.crates.io:443" "static.crates.io:443" "crates.io:443";
    rw+ ~/.cargo/registry ~/.cargo/git;
    ro? ~/.cargo/config.toml ~/.cargo/config;   # its source replacement (a mirror), read-only
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
