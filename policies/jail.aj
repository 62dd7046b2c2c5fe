# jail.aj: the generic jail.  `jail CMD ARGS…` picks the caches of the
# tool it runs by the command's name, from the per-tool policies.
include "python.aj";
include "npm.aj";
include "pip.aj";
include "uv.aj";
include "cargo.aj";
include "browser.aj";
include "claude.aj";
include "codex.aj";
include "gemini.aj";
include "opencode.aj";

policy jail extends base {
    command python python3 use python;
    command npm npx pnpm use npm;
    command pip pip3 use pip;
    command uv use uv;
    command cargo use cargo;
    command chromium chromium-browser use browser;
    # The agents themselves (docs/agents.md).
    command claude use claude;
    command codex use codex;
    command gemini use gemini;
    command opencode use opencode;
    # Only the Docker CLI gets the socket (it is root on the host), and not
    # in worker or lockdown mode.
    command docker docker-compose {
        docker on;
    }
    # git needs a name and an address to commit; ~/.gitconfig stays out
    # (it can hold credentials), so they come from the environment.
    command git {
        env keep GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL;
    }
}
