"""connectproxy.py LOG PORTFILE [NAME=ADDRESS...]: a stand-in CONNECT proxy
on 127.0.0.1, the caller's upstream proxy for the network cases
(tests/integration/upstream.sh, keys.sh).  It writes its port to PORTFILE,
and to LOG one line per request: the request line, " | ", then the
Proxy-Authorization header's value ("-" when none).  CONNECT only (403
otherwise, and for deny.test); NAME=ADDRESS names it resolves from its own
table (else the resolver's); 502 when the target cannot be reached."""
import socket
import sys
import threading

log, portfile = sys.argv[1], sys.argv[2]
names = dict(a.split("=", 1) for a in sys.argv[3:])
srv = socket.create_server(("127.0.0.1", 0))
open(portfile, "w").write(str(srv.getsockname()[1]))


def pipe(a, b):
    try:
        while True:
            d = a.recv(65536)
            if not d:
                break
            b.sendall(d)
        b.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def serve(c):
    head = b""
    while b"\r\n\r\n" not in head:
        d = c.recv(4096)
        if not d:
            return
        head += d
    lines = head.split(b"\r\n\r\n")[0].decode().split("\r\n")
    auth = [l.split(":", 1)[1].strip() for l in lines[1:] if l.lower().startswith("proxy-authorization:")]
    with open(log, "a") as f:
        f.write(lines[0] + " | " + (auth[0] if auth else "-") + "\n")
    method, target = lines[0].split(" ")[:2]
    host, port = target.rsplit(":", 1)
    if method != "CONNECT" or host == "deny.test":
        c.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
        c.close()
        return
    try:
        u = socket.create_connection((names.get(host, host), int(port)), 5)
    except OSError:
        c.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
        c.close()
        return
    c.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
    threading.Thread(target=pipe, args=(u, c)).start()
    pipe(c, u)


while True:
    threading.Thread(target=serve, args=(srv.accept()[0],)).start()
