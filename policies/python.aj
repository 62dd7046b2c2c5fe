# python.aj: jail-python runs python3 with the model caches it needs.
include "base.aj";

policy python extends base {
    exec python3;
    network public;             # models and packages: the internet, never the host (--jail-net: the host's network)
    rw+ ~/.cache/huggingface ~/.cache/torch;
    env keep PYTHONPATH PYTHONUNBUFFERED VIRTUAL_ENV "HF_*" "TORCH_*";

    mode lockdown {
        ro? ~/.cache/huggingface ~/.cache/torch;   # models still load, nothing is written
        env drop PYTHONPATH "HF_*" "TORCH_*";
    }
}
