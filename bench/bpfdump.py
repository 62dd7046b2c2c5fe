#!/usr/bin/env python3
"""bpfdump.py GEN_HEADER OUT: the first seccomp filter of a policy's
generated table (the compiler's gen/NAME.h, its default mode's) written
as raw struct sock_filter, for `floor -l` (bench/floor.c): the layers
floor loads the very filter jail-worker loads.  Prints its length."""
import re, struct, sys
h = open(sys.argv[1]).read()
m = re.search(r"\{\.insns = (aj_a\d+), \.n = (\d+)\}", h)
name, n = m.group(1), int(m.group(2))
body = re.search(r"static const struct aj_bpf_insn " + name + r"\[\d+\] = \{(.*?)\n\};", h, re.S).group(1)
ins = re.findall(r"\.code = (0x[0-9a-f]+), \.jt = (\d+), \.jf = (\d+), \.k = (0x[0-9a-f]+)", body)
assert len(ins) >= n
open(sys.argv[2], "wb").write(b"".join(struct.pack("<HBBI", int(c, 16), int(t), int(f), int(k, 16)) for c, t, f, k in ins[:n]))
print(n)
