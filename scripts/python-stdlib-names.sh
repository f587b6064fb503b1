#!/bin/sh
# Writes the top-level module names of the standard library of every Python this machine
# has (pyenv's 2.7 and 3.6 to 3.13 here), one per line, sorted:
#   src/plan/python_stdlib.txt   those of the Pythons 3
#   src/plan/python2_stdlib.txt  those only Python 2 has
# A folder the trials write named like one of them, lying where a Python check looks first
# (its script's folder, or the folder it runs in under `-m`/`-c`), is a package a trial can
# plant in front of the standard library's. Run offline; the lists are committed.
# Usage: scripts/python-stdlib-names.sh [PYTHON…] (default: every pyenv version, then python3)
set -eu
cd "$(dirname "$0")/.."
if [ "$#" -eq 0 ]; then
    set -- $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/*/bin/python 2>/dev/null) python3
fi
code='
import sys, pkgutil, os, sysconfig
names = set(getattr(sys, "stdlib_module_names", ()))
names.update(sys.builtin_module_names)
try:
    std = sysconfig.get_paths()["stdlib"]
except Exception:
    import distutils.sysconfig as d
    std = d.get_python_lib(standard_lib=True)
for d in (std, os.path.join(std, "lib-dynload")):
    for m in pkgutil.iter_modules([d]):
        names.add(m[1])
for n in sorted(names):
    if n and n not in ("__main__", "__pycache__") and n.replace("_", "a").isalnum() and not n[0].isdigit():
        print("%d %s" % (sys.version_info[0], n))
'
tmp=$(mktemp)
for py in "$@"; do
    "$py" -c "$code"
done | sort -u > "$tmp"
sed -n 's/^3 //p' "$tmp" | sort -u > src/plan/python_stdlib.txt
sed -n 's/^2 //p' "$tmp" | sort -u | comm -23 - src/plan/python_stdlib.txt > src/plan/python2_stdlib.txt
rm -f "$tmp"
wc -l src/plan/python_stdlib.txt src/plan/python2_stdlib.txt
