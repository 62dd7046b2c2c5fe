#!/usr/bin/env python3
"""call.py SERVER [SERVER-ARG...] -- ARGUMENTS-JSON: one run_command through
aijail-mcp on pipes; prints the result as one JSON line (isError, text,
stdout, exit_code).  The server's own exit and stderr on failure."""
import json
import subprocess
import sys


def main():
    cut = sys.argv.index("--")
    server, args = sys.argv[1:cut], json.loads(sys.argv[cut + 1])
    msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "call.py", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
             "params": {"name": "run_command", "arguments": args}}]
    data = "".join(json.dumps(m) + "\n" for m in msgs).encode()
    # stdin stays open until the answer: at its end the server cancels.
    p = subprocess.Popen(server, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    p.stdin.write(data)
    p.stdin.flush()
    for ln in p.stdout:
        r = json.loads(ln)
        if r.get("id") == 2:
            p.stdin.close()
            p.wait()
            res = r.get("result") or {}
            sc = res.get("structuredContent") or {}
            print(json.dumps({"isError": res.get("isError", False),
                              "text": " ".join(c.get("text", "") for c in res.get("content", [])),
                              "stdout": sc.get("stdout", ""), "exit_code": sc.get("exit_code")}))
            return 0
    print(json.dumps({"isError": True, "text": "no answer; exit %d; stderr %s"
                      % (p.wait(), p.stderr.read().decode("utf-8", "replace")[-400:])}))
    return 1


sys.exit(main())
