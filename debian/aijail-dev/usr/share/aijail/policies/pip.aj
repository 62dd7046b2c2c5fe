# pip.aj: jail-pip runs pip with its own cache read-write.
include "base.aj";

policy pip extends base {
    exec pip;
    # The package index only: PIP_INDEX_URL, else index-url in pip.conf,
    # replaces PyPI's two hosts; extra-index-url adds its host.
    network allow follow pip "pypi.org:443" "files.pythonhosted.org:443";
    rw+ ~/.cache/pip;
    env keep "PIP_*" VIRTUAL_ENV;

    mode lockdown {
        ro? ~/.cache/pip;
        env drop "PIP_*";
    }
}
