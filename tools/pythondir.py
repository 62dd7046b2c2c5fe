"""pythondir.py PREFIX: where under PREFIX this interpreter finds packages.

The first folder of sys.path below PREFIX/lib that holds packages
(dist-packages or site-packages), so that what make install puts there is
importable as it is; else sysconfig's purelib for PREFIX, which is where
a virtual environment or an interpreter of that prefix would look.
"""
import os
import sys
import sysconfig

prefix = os.path.normpath(sys.argv[1])
for d in sys.path:
    d = os.path.normpath(d) if d else ""
    if d.startswith(prefix + "/lib/") and os.path.basename(d) in ("dist-packages", "site-packages"):
        print(d)
        break
else:
    print(sysconfig.get_path("purelib", "posix_prefix", vars={"base": prefix, "platbase": prefix}))
