# 'limit': every form, and modes that only ever lower a limit.
policy limits {
    limit memory unlimited;
    limit processes unlimited;

    mode worker {
        limit memory 75 percent;
        limit processes 4096;
    }
    mode ci {
        limit memory 25 percent;
        limit processes 512;
    }
    mode lockdown {
        limit memory 25 percent;    # as strict as ci is enough
        limit processes 64;
    }
    command make {
        limit processes 8192;       # its normal mode; the modes set their own
    }
}

policy sized extends limits {
    limit memory 16G;
    mode worker { limit memory 4G; }
    mode ci { limit memory 2048M; }
    # A size after a share: which is less depends on the host, so the
    # compiler does not compare them.
    mode lockdown { limit memory 1G; }
    mode sealed { limit memory 10 percent; limit processes 32; }
}
