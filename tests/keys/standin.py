#!/usr/bin/env python3
"""standin.py: the HTTPS host a bound key is for, in the test's own network
namespace (tests/integration/keys.sh).

Usage: standin.py ADDR PORT CERT KEY LOG REAL
Answers 200 "real-ok" only to a request that carries REAL (Authorization:
Bearer REAL, token REAL, Basic of user:REAL, X-Api-Key: REAL, or key=REAL
in the query), 401 otherwise; keeps connections alive (HTTP/1.1); appends
one JSON line per request to LOG: the request line, the headers, the body,
and which connection it came on.  A git client's ls-remote gets a smart
HTTP advertisement of one ref under the same rule; /big/N, N MiB of
zeros (bench/keys.sh).
"""
import base64
import http.server
import json
import socketserver
import ssl
import sys

addr, port, cert, key, log, real = sys.argv[1:7]
conns = [0]


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        conns[0] += 1
        self.conn_no = conns[0]

    def log_message(self, *a):
        pass

    def authorised(self):
        auth = self.headers.get("Authorization", "")
        if auth in ("Bearer " + real, "token " + real):
            return True
        if auth.startswith("Basic "):
            try:
                if base64.b64decode(auth[6:]).decode().split(":", 1)[1] == real:
                    return True
            except Exception:
                pass
        return self.headers.get("X-Api-Key") == real or ("key=" + real) in self.path

    def answer(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        with open(log, "a") as f:
            f.write(json.dumps({"line": self.requestline, "headers": dict(self.headers.items()),
                                "body": body.decode(errors="replace"), "conn": self.conn_no}) + "\n")
        ok = self.authorised()
        if self.path.startswith("/big/") and ok:
            # /big/N: N MiB, for make bench's throughput
            size = int(self.path[5:]) << 20
            self.send_response(200)
            self.send_header("Content-Length", str(size))
            self.end_headers()
            chunk = b"\0" * (1 << 20)
            for _ in range(size >> 20):
                self.wfile.write(chunk)
            return
        if self.path.startswith("/repo.git/info/refs") and ok:
            pkt = lambda s: ("%04x" % (len(s) + 4)) + s
            data = (pkt("# service=git-upload-pack\n") + "0000" +
                    pkt("1111111111111111111111111111111111111111 HEAD\0agent=standin\n") + "0000").encode()
            ctype = "application/x-git-upload-pack-advertisement"
        else:
            data = b"real-ok" if ok else b"no-key"
            ctype = "text/plain"
        self.send_response(200 if ok else 401)
        if not ok and self.path.startswith("/repo.git"):
            self.send_header("WWW-Authenticate", 'Basic realm="standin"')
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = answer


class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
srv = S((addr, int(port)), H)
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
srv.serve_forever()
