#!/usr/bin/env python3
"""Crates that `cargo build` and `cargo test` would compile with different features.

Cargo unifies the features of a crate across everything one command builds: a feature that
only a dev-dependency turns on makes `cargo test --release` compile that crate (and every
crate above it, gate included) a second time after `cargo build --release`. Cargo.toml turns
those features on in [dependencies] too; this prints any crate whose features still differ
between `cargo tree -e no-dev` (the build) and `cargo tree` (the tests), and its last line is
"0 crates differ" when there is none. Run: scripts/shared-features.py"""
import subprocess, sys

def features(*edges):
    out = subprocess.run(['cargo', 'tree', '--locked', '--prefix', 'none', '-f', '{p}|{f}', *edges],
                         capture_output=True, text=True, check=True).stdout
    seen = {}
    for line in out.splitlines():
        if '|' not in line:
            continue
        crate, feats = line.replace(' (*)', '').split('|', 1)
        seen.setdefault(crate.strip(), set()).update(f for f in feats.split(',') if f)
    return seen

build, test = features('-e', 'no-dev'), features()
differ = 0
for crate in sorted(build):
    extra = test.get(crate, set()) - build[crate]
    if extra:
        differ += 1
        print(f'{crate}: the tests also turn on {", ".join(sorted(extra))}')
print(differ, 'crates differ')
sys.exit(1 if differ else 0)
