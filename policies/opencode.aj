# opencode.aj: jail-opencode runs OpenCode itself in the jail: its config,
# data, state and cache read-write, its program read-only, the model APIs
# through the proxy, nothing else of the home (docs/agents.md).
include "base.aj";

policy opencode extends base {
    exec opencode;
    # Anthropic's and OpenAI's APIs, or the hosts their AI SDK variables
    # name besides; another provider's host: --jail-allow-host.
    network allow follow opencode "api.anthropic.com:443" "api.openai.com:443";
    rw+ ~/.config/opencode ~/.local/share/opencode ~/.local/state/opencode ~/.cache/opencode;
    # The install script's ~/.opencode/bin, bun's, npm's in the home.
    ro? ~/.opencode ~/.bun ~/.local/bin ~/.local/lib/node_modules ~/.npm-global ~/.nvm
        ~/.volta ~/.local/share/fnm;
    # The two keys never enter the jail: placeholders, each value added on
    # the way to its own API.  A base URL adds a host here, and a key is
    # not moved to it: --jail-secret NAME=HOST (docs/agents.md).
    secret ANTHROPIC_API_KEY follow "api.anthropic.com:443";
    secret OPENAI_API_KEY follow "api.openai.com:443";
    env keep "OPENCODE_*" "ANTHROPIC_*" "OPENAI_*" GEMINI_API_KEY GOOGLE_GENERATIVE_AI_API_KEY
             OPENROUTER_API_KEY GROQ_API_KEY MISTRAL_API_KEY DEEPSEEK_API_KEY XAI_API_KEY;
    # Its program is read-only, and models.dev and its own update host
    # are not the model API's: the copy of the model list it carries.
    env set OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_MODELS_FETCH=1;
    limit processes 1536;

    mode lockdown {
        network allow follow opencode "api.anthropic.com:443" "api.openai.com:443";
    }
}
