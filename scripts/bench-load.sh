#!/usr/bin/env bash
# How long `gate check` takes to load a plan whose grader folder holds large data files
# (a benchmark, not a test: machines are noisy). Every reading of the check's graders reads
# each file of the grader's folder (up to 512 files of 16 MiB), so a folder of expected
# answers is read as code would be.
#
# Makes, in a temporary folder, a task whose check is `python3 graders/check.py` beside 200
# JSON files of answers (93 MB, fixed seed), times `gate check` on it (best of ROUNDS), and
# prints it beside the time of reading those files once (`cat`), measured in the same run.
# Usage: scripts/bench-load.sh [ROUNDS]   (default 3)
#        GATE_BIN=path/to/gate scripts/bench-load.sh   (that binary, not a fresh release build)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
if [ -n "${GATE_BIN:-}" ]; then
  gate=$(realpath "$GATE_BIN")
else
  cargo build --release --locked --quiet
  gate=${CARGO_TARGET_DIR:-$PWD/target}/release/gate
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/graders/answers" "$work/out"
python3 - "$work" <<'PY'
import json, random, sys
random.seed(1)
for i in range(200):
    d = [{"id": f"case-{i}-{j}", "input": " ".join(random.choice(
        ["alpha", "beta", "gamma", "delta", "src/x", "out/y", "expected", "value"])
        for _ in range(20)), "expected": random.random()} for j in range(2500)]
    open(f"{sys.argv[1]}/graders/answers/a{i:03}.json", "w").write(json.dumps(d))
PY
printf '#!/bin/sh\necho 41 > out/answer.txt\n' > "$work/agent.sh"
chmod +x "$work/agent.sh"
printf 'print(open("out/answer.txt").read())\n' > "$work/graders/check.py"
cat > "$work/plan.yaml" <<'YAML'
version: 1
sampling: {single: {n: 3, c: 0}}
tasks:
  - id: t
    run: ./agent.sh
    check: python3 graders/check.py
    writes: [out]
YAML
# Wall seconds of a command (python's monotonic clock: no GNU time needed).
wall() { python3 - "$@" <<'PY'
import subprocess, sys, time
t = time.monotonic()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
print(f"{time.monotonic() - t:.3f}")
PY
}
best=9999; read_once=9999
for _ in $(seq "$rounds"); do
  c=$(wall sh -c "cat '$work'/graders/answers/*.json > /dev/null")
  g=$(wall "$gate" check "$work/plan.yaml")
  read_once=$(awk -v a="$read_once" -v b="$c" 'BEGIN { print (b < a) ? b : a }')
  best=$(awk -v a="$best" -v b="$g" 'BEGIN { print (b < a) ? b : a }')
done
size=$(du -sm "$work/graders" | cut -f1)
awk -v g="$best" -v c="$read_once" -v s="$size" 'BEGIN {
  printf "load:     gate check, a grader folder of 200 JSON answer files (%d MB): %.2f s (best of rounds); reading them once (cat) %.3f s, ratio %.0f\n", s, g, c, g / c
}'
