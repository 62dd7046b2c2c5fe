policy p {
    env keep "HF_*";
    mode lockdown {
        env drop HF_TOKEN "HF_*" HF_TOKEN;
    }
}
