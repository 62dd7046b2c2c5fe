# claude.aj: jail-claude runs Claude Code itself in the jail: its state
# (~/.claude, ~/.claude.json) read-write, its program wherever it was
# installed read-only, its model API through the proxy, nothing else of
# the home.  docs/agents.md has the particulars.
include "base.aj";

policy claude extends base {
    exec claude;
    # The Messages API, or the host ANTHROPIC_BASE_URL names instead; the
    # sign-in's token refresh.
    network allow "console.anthropic.com:443" "platform.claude.com:443"
                  follow claude "api.anthropic.com:443";
    rw+ ~/.claude;              # settings, sessions (projects/<cwd>/*.jsonl), sign-in
    # Its main file and the backups it writes beside it: bound when present
    # (a bind of one file keeps its inode, see docs/agents.md).
    rw? ~/.claude.json;
    # The program: the native installer's (~/.local/bin/claude, a link into
    # ~/.local/share/claude), npm's in the home (prefix ~/.local, ~/.npm-global;
    # nvm, Volta, fnm and their node); /usr/lib/node_modules and
    # /usr/local are in base.aj's /usr.
    ro? ~/.local/bin ~/.local/share/claude ~/.local/lib/node_modules ~/.npm-global ~/.nvm
        ~/.volta ~/.local/share/fnm;
    # The key never enters the jail: a placeholder, its value added on the
    # way to the API host, or to the host ANTHROPIC_BASE_URL names
    # (docs/agents.md); a sign-in in ~/.claude needs neither.
    secret ANTHROPIC_API_KEY follow;
    secret ANTHROPIC_AUTH_TOKEN follow;
    env keep "ANTHROPIC_*" "CLAUDE_*" "DISABLE_*" API_TIMEOUT_MS MCP_TIMEOUT BASH_DEFAULT_TIMEOUT_MS;
    # Its program is read-only and its hosts are the API's: no update, no
    # telemetry, which the proxy would refuse anyway.
    env set DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1;
    limit processes 1536;

    # The project read-only (base.aj), the API only, no key from the
    # environment (base.aj drops *_KEY): the sign-in in ~/.claude works.
    mode lockdown {
        network allow follow claude "api.anthropic.com:443";
    }
}
