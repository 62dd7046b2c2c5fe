# jail.aj: the generic jail.  `jail CMD ARGS…` picks the caches of the
# tool it runs by the command's name, from the per-tool policies.
include "python.aj";
include "npm.aj";
include "pip.aj";
include "uv.aj";
include "cargo.aj";

policy jail extends base {
    command python python3 use python;
    command npm npx pnpm use npm;
    command pip pip3 use pip;
    command uv use uv;
    command cargo use cargo;
}
