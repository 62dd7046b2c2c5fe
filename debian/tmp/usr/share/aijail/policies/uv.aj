# uv.aj: jail-uv runs uv with its own cache read-write.
include "base.aj";

policy uv extends base {
    exec uv;
    # The package index only: UV_DEFAULT_INDEX or UV_INDEX_URL, else
    # index-url in ~/.config/uv/uv.toml, replaces PyPI's two hosts.
    network allow follow uv "pypi.org:443" "files.pythonhosted.org:443";
    rw+ ~/.cache/uv;
    ro? ~/.local/bin;           # where uv's installer puts it
    env keep "UV_*" VIRTUAL_ENV;

    mode lockdown {
        ro? ~/.cache/uv;
        env drop "UV_*";
    }
}
