# npm.aj: jail-npm runs npm with its own cache (and pnpm's) read-write;
# the generic jail uses it for npm, npx and pnpm.  node and npm themselves
# live under /usr (the global prefix /usr, /usr/lib/node_modules), read-only.
include "base.aj";

policy npm extends base {
    exec npm;
    # The registry only, through the stub's proxy: npm's own setting
    # (NPM_CONFIG_REGISTRY, else registry= in ~/.npmrc) when it names one.
    network allow follow npm "registry.npmjs.org:443";
    rw+ ~/.npm ~/.cache/pnpm;   # npm's cache (npx's too), pnpm's metadata cache
    rw+ ~/.local/share/pnpm/store;   # pnpm's package store, not its global bin dir
    env keep "NPM_CONFIG_*" "npm_config_*" NODE_ENV NODE_OPTIONS;
    # npm test runs test runners that start a node per core, about 8
    # tasks each (jest, 32 workers: 247 tasks here): 1536 is 192 workers,
    # and still stops a fork bomb of 2,000.
    limit processes 1536;

    mode lockdown {
        ro? ~/.npm ~/.cache/pnpm ~/.local/share/pnpm/store;
        env drop "NPM_CONFIG_*" "npm_config_*" NODE_OPTIONS;
    }
}
