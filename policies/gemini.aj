# gemini.aj: jail-gemini runs Google's Gemini CLI itself in the jail: its
# state (~/.gemini) read-write, its program read-only, its model API
# through the proxy, nothing else of the home (docs/agents.md).
include "base.aj";

policy gemini extends base {
    exec gemini;
    # The Gemini API (or GOOGLE_GEMINI_BASE_URL's host); Google's sign-in
    # and the Code Assist API it uses.
    network allow "oauth2.googleapis.com:443" "cloudcode-pa.googleapis.com:443"
                  follow gemini "generativelanguage.googleapis.com:443";
    rw+ ~/.gemini;
    # The program where npm (prefix ~/.local, ~/.npm-global), nvm, Volta
    # or fnm put it in the home, read-only; /usr's is base.aj's.
    ro? ~/.local/bin ~/.local/lib/node_modules ~/.npm-global ~/.nvm ~/.volta
        ~/.local/share/fnm;
    # The key never enters the jail: a placeholder, its value added on the
    # way to the Gemini API, or to GOOGLE_GEMINI_BASE_URL's host
    # (docs/agents.md).
    secret GEMINI_API_KEY follow;
    secret GOOGLE_API_KEY follow;
    env keep "GEMINI_*" GOOGLE_API_KEY GOOGLE_GEMINI_BASE_URL GOOGLE_VERTEX_BASE_URL
             GOOGLE_GENAI_USE_VERTEXAI GOOGLE_CLOUD_PROJECT GOOGLE_CLOUD_LOCATION;
    # Its own sandbox (Docker, Podman, macOS Seatbelt), off unless asked,
    # would need the Docker socket: the jail is the sandbox.
    env set GEMINI_SANDBOX=false;
    limit processes 1536;

    mode lockdown {
        network allow follow gemini "generativelanguage.googleapis.com:443";
    }
}
