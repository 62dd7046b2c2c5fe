# python.aj: jail-python runs python3 with the model caches it needs.
include "base.aj";

policy python extends base {
    exec python3;
    network host;               # downloads models and packages
    rw+ ~/.cache/huggingface ~/.cache/torch;
    env keep PYTHONPATH PYTHONUNBUFFERED VIRTUAL_ENV "HF_*" "TORCH_*";

    mode lockdown {
        env drop PYTHONPATH "HF_*" "TORCH_*";
    }
}
