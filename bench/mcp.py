#!/usr/bin/env python3
"""bench/mcp.py: the overhead of aijail-mcp over the stub called directly.

A run_command of /bin/true through the server (the round trip a client
sees: request written, answer read) against the stub run directly by
subprocess (fork, exec, wait), N times each, interleaved; prints the
medians.  Run it as the user the jails are for, from a project directory:

    cd PROJECT && python3 bench/mcp.py [BUILD] [N]
"""
import json
import os
import statistics
import subprocess
import sys
import time

build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
n = int(sys.argv[2]) if len(sys.argv) > 2 else 200
stub = os.path.join(build, "bin", "jail")
srv = subprocess.Popen([os.path.join(build, "bin", "aijail-mcp"), "--root", "."],
                       stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def rpc(i, method, params):
    srv.stdin.write((json.dumps({"jsonrpc": "2.0", "id": i, "method": method,
                                 "params": params}) + "\n").encode())
    srv.stdin.flush()
    return json.loads(srv.stdout.readline())


rpc(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                      "clientInfo": {"name": "bench", "version": "1"}})
call = {"name": "run_command", "arguments": {"command": ["/bin/true"]}}
env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/"),
       "LANG": "C.UTF-8", "TERM": "dumb"}
via, direct = [], []
for i in range(1, n + 1):
    t = time.perf_counter()
    r = rpc(i, "tools/call", call)
    via.append(time.perf_counter() - t)
    assert r["result"]["structuredContent"]["exit_code"] == 0, r
    t = time.perf_counter()
    subprocess.run([stub, "--", "/bin/true"], env=env, check=True, stdin=subprocess.DEVNULL)
    direct.append(time.perf_counter() - t)
srv.stdin.close()
srv.wait()
mv, md = statistics.median(via) * 1000, statistics.median(direct) * 1000
print("| path | median of %d (ms) |" % n)
print("| --- | --- |")
print("| stub directly (subprocess) | %.2f |" % md)
print("| run_command via aijail-mcp | %.2f |" % mv)
print("| the server's overhead | %.2f |" % (mv - md))
