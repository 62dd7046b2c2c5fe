# uv.aj: jail-uv runs uv with its own cache read-write.
include "base.aj";

policy uv extends base {
    exec uv;
    network host;               # the package index
    rw+ ~/.cache/uv;
    ro? ~/.local/bin;           # where uv's installer puts it
    env keep "UV_*" VIRTUAL_ENV;

    mode lockdown {
        ro? ~/.cache/uv;
        env drop "UV_*";
    }
}
