// client.mjs: the official MCP TypeScript SDK's Client over its
// StdioClientTransport drives build/bin/aijail-mcp, and a raw pipe checks
// what the SDK will not send (a malformed line, an old revision, stdin's
// end).  Run by tests/mcp/run.sh as the unprivileged test user.
//
// Usage: node client.mjs MODULES SERVER PROJECT OUTSIDE STUBDIR TREE
// Prints PASS/FAIL/SKIP lines; exits 1 if anything failed.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [modules, server, project, outside, stubdir, tree] = process.argv.slice(2);
const sdk = (p) => import(pathToFileURL(path.join(modules, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");

let failed = 0;
const pass = (n, d) => console.log(`PASS ${n}${d ? ` (${d})` : ""}`);
const fail = (n, why) => {
  failed++;
  console.log(`FAIL ${n}: ${why}`);
};
const skip = (n, why) => console.log(`SKIP ${n}: ${why}`);
const check = (n, ok, why, detail) => (ok ? pass(n, detail) : fail(n, why));
const text = (r) => (r.content || []).map((c) => c.text || "").join("\n");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const home = process.env.HOME;

// The processes of this user whose argv is exactly argv.
function procsWith(argv) {
  const want = argv.join("\0") + "\0";
  const found = [];
  for (const p of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (fs.readFileSync(`/proc/${p}/cmdline`, "latin1") === want) found.push(p);
    } catch {}
  }
  return found;
}

async function connect(args = [], env = {}) {
  const transport = new StdioClientTransport({
    command: server,
    args: ["--root", project, ...args],
    cwd: project,
    env: { PATH: process.env.PATH, HOME: home, ...env },
    stderr: "pipe",
  });
  const client = new Client({ name: "aijail-test", version: "1" });
  await client.connect(transport);
  return client;
}

const run = (client, args, opts) =>
  client.callTool({ name: "run_command", arguments: args }, undefined, opts);

const client = await connect([], { AJ_MCP_LEAK: "leaked-value" });

// tools/list
{
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort().join(",");
  const rc = tools.find((t) => t.name === "run_command");
  check("tools-list", names === "run_command,sandbox_status" &&
    JSON.stringify(rc.inputSchema.required) === '["command"]' &&
    rc.outputSchema && rc.outputSchema.required.includes("refusals"),
  `tools: ${names}`, names);
  check("protocol", client.getServerVersion()?.name === "aijail-mcp",
    JSON.stringify(client.getServerVersion()));
}

// cat .env: masked, reads empty
{
  const r = await run(client, { command: ["cat", ".env"] });
  const s = r.structuredContent;
  check("cat-env", !r.isError && s.exit_code === 0 && s.stdout === "" &&
    !JSON.stringify(r).includes("hunter2"), JSON.stringify(r).slice(0, 400), "empty");
}

// the real ~/.ssh/id_rsa
{
  const key = path.join(home, ".ssh", "id_rsa");
  if (!fs.existsSync(key)) {
    skip("ssh-key", `${key} does not exist: nothing to read`);
  } else {
    const r = await run(client, { command: ["cat", key] });
    const s = r.structuredContent;
    check("ssh-key", !r.isError && s.exit_code !== 0 && !s.stdout.includes("PRIVATE KEY"),
      JSON.stringify(r).slice(0, 400), `exit ${s.exit_code}`);
  }
}

// a cwd outside the roots: a tool error naming the rule, nothing run
{
  const marker = path.join(outside, "ran");
  const r = await run(client, { command: ["touch", marker], cwd: outside });
  check("cwd-outside", r.isError && /--root/.test(text(r)) && !fs.existsSync(marker),
    JSON.stringify(r).slice(0, 400), text(r).slice(0, 80));
  // The same directory through a symbolic link below the root.
  const link = path.join(project, "escape-link");
  try { fs.symlinkSync(outside, link); } catch {}
  const r2 = await run(client, { command: ["touch", marker], cwd: "escape-link" });
  check("cwd-outside-link", r2.isError && !fs.existsSync(marker), JSON.stringify(r2).slice(0, 300));
  fs.rmSync(link, { force: true });
}

// wrong types, unknown profile, an option the server keeps off
for (const [name, args, rule] of [
  ["bad-type", { command: "ls" }, /command must be/],
  ["bad-profile", { command: ["true"], profile: "jail-nonesuch" }, /--profile/],
  ["hosts-off", { command: ["true"], allow_hosts: ["example.com"] }, /--allow-hosts/],
  ["timeout-cap", { command: ["true"], timeout: 1e9 }, /--max-timeout/],
]) {
  const r = await run(client, args);
  check(name, r.isError && rule.test(text(r)), JSON.stringify(r).slice(0, 300));
}

// the environment: the server's own variables stay out
{
  const r = await run(client, { command: ["env"] });
  const out = r.structuredContent?.stdout || "";
  check("env-clean", !r.isError && !out.includes("leaked-value") && out.includes("PATH="),
    out.slice(0, 300));
}

// stdin
{
  const r = await run(client, { command: ["cat"], stdin: "through stdin\n" });
  check("stdin", r.structuredContent?.stdout === "through stdin\n", JSON.stringify(r).slice(0, 300));
}

// a timeout
{
  const t0 = Date.now();
  const r = await run(client, { command: ["sleep", "30"], timeout: 1 });
  const s = r.structuredContent;
  check("timeout", s && s.timed_out === true && Date.now() - t0 < 25000,
    JSON.stringify(r).slice(0, 300), `${s?.duration_ms} ms`);
}

// a refused ptrace, in refusals
{
  const r = await run(client, {
    command: ["python3", "-c", "import ctypes; ctypes.CDLL(None).ptrace(0, 0, 0, 0)"],
  });
  const calls = r.structuredContent?.refusals?.calls || [];
  check("ptrace-refusal", calls.some((c) => c.name === "ptrace" && c.count >= 1),
    JSON.stringify(r).slice(0, 400), JSON.stringify(calls));
}

// sandbox_status: the masks found, the layers named
{
  const r = await client.callTool({ name: "sandbox_status", arguments: {} });
  const d = r.structuredContent || {};
  const found = (d.scan?.found || []).map((f) => f.path);
  const t = text(r);
  check("status", !r.isError && d.schema === 1 && found.includes(".env") &&
    /Landlock/.test(t) && /seccomp/.test(t) && /namespaces/.test(t) && /mode:/.test(t),
  t.slice(0, 400), `found ${found.join(",")}`);
}

// a cancel kills the jail
{
  const argv = ["sleep", "617"];
  const ac = new AbortController();
  const p = run(client, { command: argv }, { signal: ac.signal }).catch((e) => e);
  let seen = [];
  for (let i = 0; i < 100 && !seen.length; i++) {
    await sleep(100);
    seen = procsWith(argv);
  }
  if (!seen.length) {
    fail("cancel", "the jailed sleep never appeared in /proc");
  } else {
    ac.abort("test");
    await p;
    let left = seen;
    for (let i = 0; i < 50 && left.length; i++) {
      await sleep(100);
      left = procsWith(argv);
    }
    check("cancel", left.length === 0, `still running: ${left}`);
  }
  // the server goes on
  const r = await run(client, { command: ["echo", "after"] });
  check("after-cancel", r.structuredContent?.stdout === "after\n", JSON.stringify(r).slice(0, 200));
}

// several calls at once: two jails run side by side
{
  const a1 = new AbortController(), a2 = new AbortController();
  const p1 = run(client, { command: ["sleep", "620"] }, { signal: a1.signal }).catch((e) => e);
  const p2 = run(client, { command: ["sleep", "620"] }, { signal: a2.signal }).catch((e) => e);
  let seen = [];
  for (let i = 0; i < 100 && seen.length < 2; i++) {
    await sleep(100);
    seen = procsWith(["sleep", "620"]);
  }
  check("concurrent", seen.length === 2, `jails seen at once: ${seen.length}`);
  a1.abort("test");
  a2.abort("test");
  await Promise.all([p1, p2]);
}

await client.close();

// --max-concurrent 1: a second call waits for the first
{
  const c = await connect(["--max-concurrent", "1"]);
  const a1 = new AbortController();
  const p1 = run(c, { command: ["sleep", "621"] }, { signal: a1.signal }).catch((e) => e);
  let seen = [];
  for (let i = 0; i < 100 && !seen.length; i++) {
    await sleep(100);
    seen = procsWith(["sleep", "621"]);
  }
  let done = false;
  const p2 = run(c, { command: ["echo", "second"] }).then((r) => { done = true; return r; });
  await sleep(1500);
  const waited = seen.length && !done;
  a1.abort("test");
  await p1;
  const r2 = await p2;
  check("max-concurrent", waited && r2.structuredContent?.stdout === "second\n",
    `first seen: ${seen.length}, second done early: ${done}`);
  await c.close();
}

// --min-mode: a weaker mode refused, an unnamed one raised
{
  const c = await connect(["--min-mode", "worker"]);
  const r = await run(c, { command: ["true"], mode: "normal" });
  check("min-mode-refused", r.isError && /--min-mode/.test(text(r)), JSON.stringify(r).slice(0, 300));
  const s = await c.callTool({ name: "sandbox_status", arguments: {} });
  check("min-mode-raised", s.structuredContent?.mode?.name === "worker",
    JSON.stringify(s.structuredContent?.mode));
  await c.close();
}

// --allow-hosts: the named host through the jail's proxy, any other refused
// and in refusals.connections
{
  const c = await connect(["--allow-hosts"]);
  const curl = (u) => `curl -sS -m 20 -o /dev/null -w '%{http_code}\\n' ${u} || true`;
  const r = await run(c, {
    command: ["sh", "-c", `command -v curl >/dev/null || { echo nocurl; exit 0; }; ${curl("https://registry.npmjs.org/")}; ${curl("https://example.com/")}`],
    allow_hosts: ["registry.npmjs.org"],
    timeout: 60,
  });
  const out = (r.structuredContent?.stdout || "").trim().split("\n");
  const conns = r.structuredContent?.refusals?.connections || [];
  if (out[0] === "nocurl") {
    skip("allow-hosts", "no curl on PATH to reach a host from inside");
  } else if (out[0] !== "200") {
    skip("allow-hosts", `registry.npmjs.org not reachable from this machine (${out[0]})`);
  } else {
    check("allow-hosts", out[1] === "000" && conns.some((x) => x.host === "example.com" && x.port === 443),
      JSON.stringify(r).slice(0, 500), `registry 200; example.com refused: ${JSON.stringify(conns)}`);
  }
  await c.close();
}

// --config: the same options from a JSON file
{
  const cfg = path.join(outside, "aijail-mcp.json");
  fs.writeFileSync(cfg, JSON.stringify({ min_mode: "lockdown", max_timeout: 5 }));
  const c = await connect(["--config", cfg]);
  const r1 = await run(c, { command: ["true"], mode: "worker" });
  const r2 = await run(c, { command: ["true"], timeout: 10 });
  check("config", r1.isError && /--min-mode/.test(text(r1)) && r2.isError && /--max-timeout/.test(text(r2)),
    JSON.stringify([r1, r2]).slice(0, 300));
  await c.close();
}

// exit 125: the stub's fatal line as a tool error
{
  const c = await connect(["--allow-maps"]);
  const r = await run(c, { command: ["true"], rw_maps: ["/"] });
  check("exit-125", r.isError && /fatal:/.test(text(r)), JSON.stringify(r).slice(0, 300),
    text(r).split("\n")[0].slice(0, 120));
  await c.close();
}

// A command that ran, wrote a file and exited 125 with a line that looks
// like the stub's: its own exit code, not "the jail could not be built"
// (the stub's record says it ran: jail(1), --jail-status-fd)
{
  const made = path.join(project, "mcp-made-125.txt");
  const c = await connect();
  const r = await run(c, {
    command: ["sh", "-c", "echo made >mcp-made-125.txt; echo 'jail: fatal: unable to create the namespaces: Operation not permitted' >&2; exit 125"],
  });
  const s = r.structuredContent || {};
  check("ran-exit-125", !r.isError && s.exit_code === 125 && s.timed_out === false &&
    fs.existsSync(made) && /^jail: fatal:/.test(s.stderr), JSON.stringify(r).slice(0, 400), "exit 125, ran");
  fs.rmSync(made, { force: true });
  await c.close();
}

// The server itself in a jail: sandbox_status is aijail-status's view
{
  let c;
  try {
    const transport = new StdioClientTransport({
      command: path.join(stubdir, "jail"),
      args: [`--jail-ro=${tree}`, "--", server, "--root", project],
      cwd: project,
      env: { PATH: process.env.PATH, HOME: home },
      stderr: "pipe",
    });
    c = new Client({ name: "aijail-test", version: "1" });
    await c.connect(transport);
  } catch (e) {
    skip("status-inside", `aijail-mcp could not be started inside jail (--jail-ro=${tree}): ${e}`);
    c = null;
  }
  if (c) {
    const s = await c.callTool({ name: "sandbox_status", arguments: {} });
    const d = s.structuredContent || {};
    check("status-inside", !s.isError && d.in_jail === true && /inside a jail/.test(text(s)),
      JSON.stringify(s).slice(0, 300));
    await c.close();
  }
}

// A root that holds the temporary directory: the refusal log goes elsewhere
{
  const tmpRoot = fs.realpathSync(process.env.TMPDIR || "/tmp");
  const c = await connect(["--root", tmpRoot]);
  const r = await run(c, { command: ["echo", "ok"] });
  check("log-outside-roots", !r.isError && r.structuredContent?.stdout === "ok\n",
    JSON.stringify(r).slice(0, 300));
  await c.close();
}

// --- raw JSON-RPC ------------------------------------------------------------------------

function raw(args = []) {
  const child = spawn(server, ["--root", project, ...args], {
    cwd: project, env: { PATH: process.env.PATH, HOME: home }, stdio: ["pipe", "pipe", "inherit"],
  });
  let buf = "";
  const waiting = [];
  const got = [];
  child.stdout.on("data", (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      got.push(JSON.parse(line));
      while (waiting.length) waiting.shift()();
    }
  });
  const next = async (ms = 10000) => {
    const end = Date.now() + ms;
    while (!got.length) {
      if (Date.now() > end) throw new Error("no answer");
      await new Promise((r) => { waiting.push(r); setTimeout(r, 200); });
    }
    return got.shift();
  };
  const send = (o) => child.stdin.write((typeof o === "string" ? o : JSON.stringify(o)) + "\n");
  return { child, next, send };
}

{
  const s = raw();
  s.send({ jsonrpc: "2.0", id: 1, method: "initialize",
    params: { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
  const init = await s.next();
  check("negotiate-old", init.result?.protocolVersion === "2024-11-05", JSON.stringify(init));
  s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  s.send("{this is not json");
  const e = await s.next();
  check("malformed", e.error?.code === -32700 && e.id === null, JSON.stringify(e));
  s.send({ jsonrpc: "2.0", id: 2, method: "no/such" });
  const m = await s.next();
  check("unknown-method", m.error?.code === -32601 && m.id === 2, JSON.stringify(m));
  s.send({ jsonrpc: "2.0", id: 3, method: "tools/call",
    params: { name: "run_command", arguments: { command: ["echo", "still"] } } });
  const a = await s.next(30000);
  check("after-malformed", a.id === 3 && a.result?.content?.[0]?.text?.includes("still") &&
    a.result.structuredContent === undefined, JSON.stringify(a).slice(0, 300),
  "2024-11-05: no structuredContent");
  // stdin's end ends the server and every jail it started
  const argv = ["sleep", "618"];
  s.send({ jsonrpc: "2.0", id: 4, method: "tools/call",
    params: { name: "run_command", arguments: { command: argv } } });
  let seen = [];
  for (let i = 0; i < 100 && !seen.length; i++) {
    await sleep(100);
    seen = procsWith(argv);
  }
  const exited = new Promise((r) => s.child.on("exit", r));
  s.child.stdin.end();
  const code = await Promise.race([exited, sleep(10000).then(() => "still running")]);
  let left = procsWith(argv);
  for (let i = 0; i < 30 && left.length; i++) {
    await sleep(100);
    left = procsWith(argv);
  }
  if (!seen.length) fail("stdin-eof", "the jailed sleep never appeared in /proc");
  else check("stdin-eof", code === 0 && left.length === 0, `server: ${code}; left: ${left}`);
}

// SIGTERM ends the server and kills its jails
{
  const s = raw();
  s.send({ jsonrpc: "2.0", id: 1, method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
  await s.next();
  const argv = ["sleep", "622"];
  s.send({ jsonrpc: "2.0", id: 2, method: "tools/call",
    params: { name: "run_command", arguments: { command: argv } } });
  let seen = [];
  for (let i = 0; i < 100 && !seen.length; i++) {
    await sleep(100);
    seen = procsWith(argv);
  }
  const exited = new Promise((r) => s.child.on("exit", (code, sig) => r(code ?? sig)));
  s.child.kill("SIGTERM");
  const code = await Promise.race([exited, sleep(10000).then(() => "still running")]);
  let left = procsWith(argv);
  for (let i = 0; i < 30 && left.length; i++) {
    await sleep(100);
    left = procsWith(argv);
  }
  if (!seen.length) fail("sigterm", "the jailed sleep never appeared in /proc");
  else check("sigterm", code === 143 && left.length === 0, `server: ${code}; left: ${left}`);
}

{
  const s = raw();
  s.send({ jsonrpc: "2.0", id: 1, method: "initialize",
    params: { protocolVersion: "1999-01-01", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
  const init = await s.next();
  check("negotiate-unknown", init.result?.protocolVersion === "2025-11-25", JSON.stringify(init));
  s.send({ jsonrpc: "2.0", id: 2, method: "ping" });
  const p = await s.next();
  check("ping", p.id === 2 && p.result && Object.keys(p.result).length === 0, JSON.stringify(p));
  s.child.stdin.end();
}

process.exit(failed ? 1 : 0);
