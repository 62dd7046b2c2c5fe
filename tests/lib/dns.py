#!/usr/bin/env python3
"""dns.py: a nameserver stand-in, for the names a test's /etc/hosts does not
hold: the stub's parent resolves a relayed name through resolv.conf's
nameservers (egress/names.c), and a name in /etc/hosts would be resolved by
the jail's libc before it asks the relay.  Used by tests/integration/keys.sh,
public.sh and bench/relay.sh, inside network namespaces they made.

Usage: dns.py TABLE LISTEN-ADDR...
TABLE is NAME=ADDR[,NAME=ADDR...] (NAME * answers any name), or the path of
a hosts-format file ("ADDR NAME" lines), read again at each question.
Answers A for a name in the table (one address each), NXDOMAIN for any
other name, an empty answer for other types; UDP on port 53 of each address.
"""
import select
import socket
import sys


def table_of(spec):
    if "=" in spec:
        return dict(p.split("=", 1) for p in spec.split(","))
    with open(spec) as f:
        return dict(l.split()[::-1] for l in f if l.strip())


socks = []
for a in sys.argv[2:]:
    s = socket.socket(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((a, 53))
    socks.append(s)
while True:
    for s in select.select(socks, [], [])[0]:
        q, peer = s.recvfrom(512)
        i, labels = 12, []
        while i < len(q) and q[i]:
            labels.append(q[i + 1:i + 1 + q[i]].decode(errors="replace").lower())
            i += 1 + q[i]
        if i + 5 > len(q):
            continue
        qtype, end = int.from_bytes(q[i + 1:i + 3], "big"), i + 5
        table = table_of(sys.argv[1])
        addr = table.get(".".join(labels), table.get("*"))
        an = b""
        if addr and qtype == 1:
            an = b"\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x05\x00\x04" + socket.inet_aton(addr)
        flags = b"\x85\x80" if addr else b"\x85\x83"
        s.sendto(q[:2] + flags + b"\x00\x01" + (b"\x00\x01" if an else b"\x00\x00")
                 + b"\x00\x00\x00\x00" + q[12:end] + an, peer)
