#!/usr/bin/env bash
# Benchmark of the packages wall (docs/trust.md, "The packages installed where node looks
# for a check's packages"): before each check gate `lstat`s every path of the task's
# `node_modules` recorded at the start. Runs the same plan (N trials, each with a check,
# `--jobs 2`) in a task folder with a `node_modules` of PACKAGES packages of FILES files
# each, and in the same folder with that `node_modules` moved out of node's way (the
# baseline, measured in the same run), and prints both wall times, the ratio and the cost
# per check. Not a test: machines are noisy; the best of ROUNDS is kept.
# Usage: scripts/bench-packages.sh [ROUNDS] [N] [PACKAGES] [FILES]   (default 3 200 2000 20)
#        NESTED=1: every package with a node_modules of its own (thousands of them)
#        GATE_BIN=path/to/gate scripts/bench-packages.sh
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}; n=${2:-200}; packages=${3:-2000}; files=${4:-20}
if [ -n "${GATE_BIN:-}" ]; then
  gate=$(realpath "$GATE_BIN")
else
  cargo build --release --quiet
  gate=${CARGO_TARGET_DIR:-$PWD/target}/release/gate
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/task"
python3 - "$work/task/node_modules" "$packages" "$files" "${NESTED:-0}" <<'PY'
import os, sys
top, packages, files, nested = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
for p in range(packages):
    d = os.path.join(top, f"pkg{p}", "lib")
    os.makedirs(d)
    if nested:  # a node_modules of its own in every package (a dependency node nests)
        os.makedirs(os.path.join(top, f"pkg{p}", "node_modules", "dep"))
        open(os.path.join(top, f"pkg{p}", "node_modules", "dep", "index.js"), "w").write("\n")
    open(os.path.join(top, f"pkg{p}", "package.json"), "w").write('{"name":"pkg%d"}\n' % p)
    for f in range(files - 1):
        open(os.path.join(d, f"f{f}.js"), "w").write("module.exports = %d\n" % f)
PY
printf 'version: 1\nsampling: {single: {n: %s, c: 0}}\ntasks:\n  - id: t\n    cwd: task\n    run: "true"\n    check: "true"\n' "$n" > "$work/plan.yaml"
entries=$(find "$work/task/node_modules" | wc -l)

wall() { python3 - "$@" <<'PY'
import subprocess, sys, time
t = time.monotonic()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
print(f"{time.monotonic() - t:.4f}")
PY
}
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (b < a) ? b : a }'; }
with=9999; without=9999
for _ in $(seq "$rounds"); do
  rm -rf "$work/out"
  w=$(wall "$gate" run "$work/plan.yaml" --jobs 2 --ledger "$work/out/ledger.jsonl" --no-step-summary)
  with=$(min "$with" "$w")
  mv "$work/task/node_modules" "$work/aside"
  rm -rf "$work/out"
  w=$(wall "$gate" run "$work/plan.yaml" --jobs 2 --ledger "$work/out/ledger.jsonl" --no-step-summary)
  without=$(min "$without" "$w")
  mv "$work/aside" "$work/task/node_modules"
done
awk -v a="$with" -v b="$without" -v n="$n" -v e="$entries" 'BEGIN {
  printf "%d checks, node_modules of %d entries: %.3f s; without it (baseline): %.3f s\n", n, e, a, b
  printf "ratio %.2f; cost per check %.2f ms (%.0f ns per recorded path)\n", a / b, (a - b) * 1000 / n, (a - b) * 1e9 / n / e
}'
