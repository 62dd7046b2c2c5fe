#!/bin/bash
# term.sh: the cost of the jail's terminal (stub/term/).
#   throughput: `cat` of 100 MB of text to a terminal (a pty pair read by
#     a reader that throws it away), unjailed, jailed with
#     --jail-terminal=passthrough (the caller's pty itself), and jailed with
#     the filter (the jail's pty, relayed and filtered by the parent);
#   latency: a key written to the terminal until the target's echo comes
#     back (the target: `stty raw -echo; cat`), 2000 keys, the same three.
# Run as an unprivileged user who may create user namespaces.
# Usage: bench/term.sh [MB]   (default 100)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${AIJAIL_BUILD:-$root/build}/bin
mb=${1:-100}
py=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/p"
cd "$work/p"
# Text as a program writes it: lines, with a colour every line.
$py -c 'import os, sys, base64
n = int(sys.argv[1]) * 1000 * 1000
with open("data", "wb") as f:
    while n > 0:
        b = base64.b64encode(os.urandom(57 * 1000))
        chunk = b"".join(b"\033[32m" + b[i:i + 76] + b"\033[0m\n" for i in range(0, len(b), 76))
        f.write(chunk[:n])
        n -= len(chunk)' "$mb"
cat >"$work/drive.py" <<'PYEOF'
import os, pty, select, sys, time, statistics
mode, cmd = sys.argv[1], sys.argv[2:]
pid, m = pty.fork()
if pid == 0:
    os.execvp(cmd[0], cmd)
if mode == "tput":
    t = time.monotonic(); n = 0
    while True:
        try:
            b = os.read(m, 1 << 16)
        except OSError:
            break
        if not b:
            break
        n += len(b)
    d = time.monotonic() - t
    os.waitpid(pid, 0)
    print("%.0f MB in %.2f s: %.0f MB/s" % (n / 1e6, d, n / 1e6 / d))
else:
    # Wait for the target to be ready: its first echo.
    got = b""
    while b"R" not in got:
        os.write(m, b"R")
        r, _, _ = select.select([m], [], [], 0.5)
        if r:
            got += os.read(m, 4096)
    time.sleep(0.3)
    while select.select([m], [], [], 0.1)[0]:
        os.read(m, 4096)
    lat = []
    for _ in range(2000):
        t = time.perf_counter()
        os.write(m, b"x")
        got = b""
        while b"x" not in got:
            got += os.read(m, 64)
        lat.append((time.perf_counter() - t) * 1e6)
    os.write(m, b"\x03\x04")
    lat.sort()
    print("median %.0f us  p99 %.0f us" % (statistics.median(lat), lat[int(len(lat) * 0.99)]))
    os.kill(pid, 9)
PYEOF
echo "throughput, cat of $mb MB to a terminal:"
for _ in 1 2 3; do
	printf '  unjailed     %s\n' "$($py "$work/drive.py" tput cat data)"
	printf '  passthrough  %s\n' "$($py "$work/drive.py" tput "$bin/jail" --jail-terminal=passthrough cat data)"
	printf '  filter       %s\n' "$($py "$work/drive.py" tput "$bin/jail" cat data)"
done
echo "keystroke round trip (key to the target's echo):"
for _ in 1 2; do
	printf '  unjailed     %s\n' "$($py "$work/drive.py" lat sh -c 'stty raw -echo; exec cat')"
	printf '  passthrough  %s\n' "$($py "$work/drive.py" lat "$bin/jail" --jail-terminal=passthrough sh -c 'stty raw -echo; exec cat')"
	printf '  filter       %s\n' "$($py "$work/drive.py" lat "$bin/jail" sh -c 'stty raw -echo; exec cat')"
done
