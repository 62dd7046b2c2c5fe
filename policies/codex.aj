# codex.aj: jail-codex runs OpenAI's Codex CLI itself in the jail: its
# state ($CODEX_HOME, else ~/.codex) read-write, its program read-only,
# its model API through the proxy, nothing else of the home
# (docs/agents.md).
include "base.aj";

policy codex extends base {
    # Codex's own sandbox (bubblewrap, in its read-only and workspace-write
    # modes) needs the namespaces the jail refuses, and every shell command
    # of Codex would fail: the jail is the sandbox.  A -s or a
    # sandbox_mode of the caller's still wins over this (Codex reads the
    # option last); `jail codex` cannot add it (docs/agents.md).
    exec codex "-c" "sandbox_mode=danger-full-access";
    # The Responses API (or the host of openai_base_url, or of a provider's
    # base_url in config.toml); ChatGPT's sign-in and its Codex backend.
    network allow "auth.openai.com:443" "chatgpt.com:443"
                  follow codex "api.openai.com:443";
    rw+ ~/.codex;
    # The program where npm (prefix ~/.local, ~/.npm-global), nvm, Volta
    # or fnm put it in the home, read-only; /usr's is base.aj's.
    ro? ~/.local/bin ~/.local/lib/node_modules ~/.npm-global ~/.nvm ~/.volta
        ~/.local/share/fnm;
    # Its keys by placeholder: the real value is added on the way to the
    # API host by aijail-keys, outside the jail (docs/keys.md).
    secret OPENAI_API_KEY follow;
    secret CODEX_API_KEY follow;
    env keep "CODEX_*" "OPENAI_*" RUST_LOG;
    limit processes 1536;

    mode lockdown {
        network allow follow codex "api.openai.com:443";
    }
}
