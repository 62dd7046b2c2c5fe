/* follow.c: 'network allow follow TOOL': where each tool names the
 * registry it uses, as its own documentation says, so that the proxy
 * allows that registry instead of the tool's default hosts.  This is the
 * only place that knows the tools: a variant that follows one carries its
 * rows (emit.c), the stub reads its variables and files by them
 * (stub/egress/egress.c) and knows no tool's name.  A new tool is a line
 * of AJ_FOLLOWS and its rows here. */
#include "follow.h"
#include "ast.h"

#define N(a) (uint8_t)(sizeof(a) / sizeof((a)[0]))

/* npm: its variable in either case; ~/.npmrc, "registry" and the scopes'
 * "@scope:registry". */
static const struct aj_follow_env npm_envs[] = {
    {"NPM_CONFIG_REGISTRY", 1},
    {"npm_config_registry", 1},
};
static const struct aj_follow_key npm_keys[] = {
    {NULL, "registry", 1, 0},
    {NULL, ":registry", 0, 1},
};
static const struct aj_follow_file npm_files[] = {
    {NULL, "", "/.npmrc", "NPM_CONFIG_REGISTRY"},
};

/* pip: the index and the extra ones, in the variables or pip.conf (the
 * XDG place, then the legacy one). */
static const struct aj_follow_env pip_envs[] = {
    {"PIP_INDEX_URL", 1},
    {"PIP_EXTRA_INDEX_URL", 0},
};
static const struct aj_follow_key pip_keys[] = {
    {NULL, "index-url", 1, 0},
    {NULL, "extra-index-url", 0, 0},
};
static const struct aj_follow_file pip_files[] = {
    {NULL, "", "/.config/pip/pip.conf", "PIP_INDEX_URL"},
    {NULL, "", "/.pip/pip.conf", "PIP_INDEX_URL"},
};

/* uv: its default index, pip's old names, the [[index]] tables (UV_INDEX
 * is a list of "[name=]URL"). */
static const struct aj_follow_env uv_envs[] = {
    {"UV_DEFAULT_INDEX", 1},
    {"UV_INDEX_URL", 1},
    {"UV_INDEX", 0},
    {"UV_EXTRA_INDEX_URL", 0},
};
static const struct aj_follow_key uv_keys[] = {
    {NULL, "index-url", 1, 0},
    {NULL, "extra-index-url", 0, 0},
    {"index", "url", 0, 0},
};
static const struct aj_follow_file uv_files[] = {
    {NULL, "", "/.config/uv/uv.toml", "UV_DEFAULT_INDEX"},
};

/* cargo: a replaced source ([source.NAME] registry) and the named
 * registries ([registries.NAME] index), in $CARGO_HOME/config.toml, else
 * ~/.cargo/config.toml.  Cargo has no variable that takes a registry's URL
 * alone, so a registry only the file names is not handed over. */
static const struct aj_follow_key cargo_keys[] = {
    {"source.", "registry", 1, 0},
    {"registries.", "index", 0, 0},
};
static const struct aj_follow_file cargo_files[] = {
    {"CARGO_HOME", "/.cargo", "/config.toml", NULL},
};

/* The agents' model APIs (docs/agents.md).  Claude Code: its variable,
 * which the Anthropic SDK reads too. */
static const struct aj_follow_env claude_envs[] = {
    {"ANTHROPIC_BASE_URL", 1},
};

/* Codex, in config.toml ($CODEX_HOME, else ~/.codex): openai_base_url
 * moves the built-in provider (0.171 reads no variable for it); a
 * provider's base_url ([model_providers.NAME]) is one more host, not the
 * default's replacement: the file may list several. */
static const struct aj_follow_key codex_keys[] = {
    {NULL, "openai_base_url", 1, 0},
    {"model_providers.", "base_url", 0, 0},
};
static const struct aj_follow_file codex_files[] = {
    {"CODEX_HOME", "/.codex", "/config.toml", NULL},
};

/* Gemini CLI: the Gemini API's variable, and Vertex AI's. */
static const struct aj_follow_env gemini_envs[] = {
    {"GOOGLE_GEMINI_BASE_URL", 1},
    {"GOOGLE_VERTEX_BASE_URL", 0},
};

/* OpenCode: its providers are those of the AI SDK, which read these
 * variables, and a provider's "baseURL" in its global opencode.json
 * ($XDG_CONFIG_HOME/opencode, else ~/.config/opencode; a file whose name
 * ends in .json is read as JSON by the stub).  Each one more host: the
 * file may name several providers. */
static const struct aj_follow_env opencode_envs[] = {
    {"ANTHROPIC_BASE_URL", 0},
    {"OPENAI_BASE_URL", 0},
};
static const struct aj_follow_key opencode_keys[] = {
    {NULL, "baseURL", 0, 0},
};
static const struct aj_follow_file opencode_files[] = {
    {"XDG_CONFIG_HOME", "/.config", "/opencode/opencode.json", NULL},
};

static const struct aj_follow_conf tools[AJ_FOLLOW_COUNT] = {
    [AJ_FOLLOW_NPM] = {npm_envs, npm_keys, npm_files, N(npm_envs), N(npm_keys), N(npm_files)},
    [AJ_FOLLOW_PIP] = {pip_envs, pip_keys, pip_files, N(pip_envs), N(pip_keys), N(pip_files)},
    [AJ_FOLLOW_UV] = {uv_envs, uv_keys, uv_files, N(uv_envs), N(uv_keys), N(uv_files)},
    [AJ_FOLLOW_CARGO] = {NULL, cargo_keys, cargo_files, 0, N(cargo_keys), N(cargo_files)},
    [AJ_FOLLOW_CLAUDE] = {claude_envs, NULL, NULL, N(claude_envs), 0, 0},
    [AJ_FOLLOW_CODEX] = {NULL, codex_keys, codex_files, 0, N(codex_keys), N(codex_files)},
    [AJ_FOLLOW_GEMINI] = {gemini_envs, NULL, NULL, N(gemini_envs), 0, 0},
    [AJ_FOLLOW_OPENCODE] = {opencode_envs, opencode_keys, opencode_files, N(opencode_envs),
                            N(opencode_keys), N(opencode_files)},
};

const struct aj_follow_conf *follow_conf(int tool)
{
	return tool > AJ_FOLLOW_NONE && tool < AJ_FOLLOW_COUNT ? &tools[tool] : NULL;
}

/* The rows' strings are this file's: plain words and paths, no byte that
 * a C literal would have to escape. */
static const char *q(const char *s)
{
	return s ? ast_printf("\"%s\"", s) : "0";
}

const char *follow_init(int tool, follow_array_fn *array, void *o)
{
	const struct aj_follow_conf *c = follow_conf(tool);
	char *envs = "", *keys = "", *files = "";

	if (!c)
		return "0";
	for (size_t i = 0; i < c->n_envs; i++)
		envs = ast_printf("%s\t{.name = %s, .replaces = %u},\n", envs, q(c->envs[i].name),
		                  c->envs[i].replaces);
	for (size_t i = 0; i < c->n_keys; i++)
		keys = ast_printf("%s\t{.section = %s, .key = %s, .replaces = %u, .suffix = %u},\n",
		                  keys, q(c->keys[i].section), q(c->keys[i].key),
		                  c->keys[i].replaces, c->keys[i].suffix);
	for (size_t i = 0; i < c->n_files; i++)
		files = ast_printf("%s\t{.dir_env = %s, .home_dir = %s, .tail = %s, .var = %s},\n",
		                   files, q(c->files[i].dir_env), q(c->files[i].home_dir),
		                   q(c->files[i].tail), q(c->files[i].var));
	/* One after the other: the arrays' names follow the order they are
	 * written in. */
	const char *e = array(o, "struct aj_follow_env", envs, c->n_envs);
	const char *k = array(o, "struct aj_follow_key", keys, c->n_keys);
	const char *f = array(o, "struct aj_follow_file", files, c->n_files);
	return array(o, "struct aj_follow_conf",
	             ast_printf("\t{.envs = %s, .n_envs = %u,\n\t .keys = %s, .n_keys = %u,\n"
	                        "\t .files = %s, .n_files = %u},\n",
	                        e, c->n_envs, k, c->n_keys, f, c->n_files),
	             1);
}
