# npm.aj: jail-npm runs npm with its own cache (and pnpm's) read-write.
include "base.aj";

policy npm extends base {
    exec npm;
    network host;               # the registry
    rw+ ~/.npm ~/.cache/pnpm;
    env keep "NPM_CONFIG_*" "npm_config_*" NODE_ENV NODE_OPTIONS;
}
