#!/usr/bin/env bash
# Benchmarks of `gate run` (targets from the issue; not tests, since machines are noisy):
#  1. per-trial overhead: 1000 no-op trials with --jobs 2, against
#     `seq 1000 | xargs -P2 -I{} sh -c true` measured in the same run (target ratio <= 1.5
#     with the box on, judged on CPU time — the issue's user + sys — and on wall time, each
#     said; the ratio with `policy.sandbox: off` is printed beside it);
#  2. peak RSS of a 20,000-trial run, ledger writes and the final report included
#     (target < 50 MB), with the box and with `policy.sandbox: off`;
#  3. peak disk of one trial that prints 600 MB to stdout (target < 64 MB): sampled every
#     10 ms as the blocks of every file under the output folder plus the blocks of every
#     regular file (named, deleted, O_TMPFILE or memfd) that gate or its children hold open.
# Wall time moves with the load of a shared machine; the CPU time of each side (its processes
# and all their children, from getrusage) is printed beside it, per trial, and moves less.
# Usage: scripts/bench-run.sh [ROUNDS]   (default 3; the best round of each side is kept)
#        GATE_BIN=path/to/gate scripts/bench-run.sh   (that binary, not a fresh release build)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
if [ -n "${GATE_BIN:-}" ]; then
  gate=$(realpath "$GATE_BIN")
else
  cargo build --release --quiet
  gate=${CARGO_TARGET_DIR:-$PWD/target}/release/gate
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Wall seconds of a command, from python's monotonic clock (no bc/GNU time needed), and its
# CPU seconds (user + system, the command and all its children).
wall() { python3 - "$@" <<'PY'
import resource, subprocess, sys, time
t = time.monotonic()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
w = time.monotonic() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{w:.4f} {r.ru_utime + r.ru_stime:.4f}")
PY
}
# Peak RSS of a command in KiB.
peak_rss() { python3 - "$@" <<'PY'
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}

printf 'version: 1\nsampling: {single: {n: %s, c: 0}}\ntasks:\n  - id: noop\n    run: "true"\n' 1000 > "$work/noop.yaml"
printf 'version: 1\nsampling: {single: {n: %s, c: 0}}\ntasks:\n  - id: noop\n    run: "true"\n' 20000 > "$work/big.yaml"
# The same 1000 trials without the box (`policy.sandbox: off`), to show what the box costs.
printf 'version: 1\nsampling: {single: {n: %s, c: 0}}\ntasks:\n  - id: noop\n    run: "true"\npolicy: {sandbox: off}\n' 1000 > "$work/noop-off.yaml"
printf 'version: 1\nsampling: {single: {n: %s, c: 0}}\ntasks:\n  - id: noop\n    run: "true"\npolicy: {sandbox: off}\n' 20000 > "$work/big-off.yaml"

min() { awk -v a="$1" -v b="$2" 'BEGIN { print (b < a) ? b : a }'; }
base=9999; ours=9999; unboxed=9999; base_cpu=9999; ours_cpu=9999; unboxed_cpu=9999
for _ in $(seq "$rounds"); do
  read -r b bc < <(wall sh -c 'seq 1000 | xargs -P2 -I{} sh -c true')
  rm -rf "$work/out"
  read -r o oc < <(wall "$gate" run "$work/noop.yaml" --jobs 2 --ledger "$work/out/ledger.jsonl" --no-step-summary)
  rm -rf "$work/out"
  read -r u uc < <(wall "$gate" run "$work/noop-off.yaml" --jobs 2 --ledger "$work/out/ledger.jsonl" --no-step-summary)
  base=$(min "$base" "$b"); base_cpu=$(min "$base_cpu" "$bc")
  ours=$(min "$ours" "$o"); ours_cpu=$(min "$ours_cpu" "$oc")
  unboxed=$(min "$unboxed" "$u"); unboxed_cpu=$(min "$unboxed_cpu" "$uc")
done
sandbox=$("$gate" check "$work/noop.yaml" 2>&1 >/dev/null | sed "s/^sandbox (what gate run would record on this machine): //")
awk -v o="$ours" -v b="$base" -v u="$unboxed" -v oc="$ours_cpu" -v bc="$base_cpu" -v uc="$unboxed_cpu" -v s="$sandbox" 'BEGIN {
  printf "overhead: 1000 no-op trials, --jobs 2, against xargs -P2 sh -c true %.2f s, %.2f ms CPU per trial (best of rounds, same run):\n", b, bc
  printf "          box on:  gate %.2f s, ratio %.2f; %.2f ms CPU per trial, ratio %.2f (box: %s)\n", o, o / b, oc, oc / bc, s
  printf "          box off: gate %.2f s, ratio %.2f; %.2f ms CPU per trial, ratio %.2f (policy.sandbox: off)\n", u, u / b, uc, uc / bc
  printf "          target: box-on ratio <= 1.5: CPU (user + sys, as in the issue) %s, wall %s; the box costs %.2f ms per trial (wall), %.2f ms of CPU\n", (oc / bc <= 1.5) ? "met" : "NOT MET", (o / b <= 1.5) ? "met" : "NOT MET", (o - u), (oc - uc)
}'

rm -rf "$work/out"
rss=$(peak_rss "$gate" run "$work/big.yaml" --jobs 2 --ledger "$work/out/ledger.jsonl" --no-step-summary)
ledger_kb=$(du -k "$work/out/ledger.jsonl" | cut -f1)
rm -rf "$work/out"
rss_off=$(peak_rss "$gate" run "$work/big-off.yaml" --jobs 2 --ledger "$work/out/ledger.jsonl" --no-step-summary)
awk -v r="$rss" -v u="$rss_off" -v l="$ledger_kb" 'BEGIN {
  printf "memory:   20,000-trial run, --jobs 2: peak RSS %.1f MB with the box, %.1f MB without (target < 50 MB: %s); ledger %.1f MB\n", r / 1024, u / 1024, (r < 50 * 1024 && u < 50 * 1024) ? "met" : "NOT MET", l / 1024
}'

# Peak bytes of disk (and shared memory) of a command: files under DIR plus regular files
# open in the command's process tree, sampled every 10 ms; also the command's peak RSS.
peak_disk() { python3 - "$@" <<'PY'
import os, resource, stat, subprocess, sys, time
out = sys.argv[1]
p = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
def tree(root):
    pids, todo = [], [root]
    while todo:
        pid = todo.pop()
        pids.append(pid)
        try:
            for tid in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    todo += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return pids
peak = 0
while p.poll() is None:
    seen, used = set(), 0
    for d, _, files in os.walk(out):
        for name in files:
            try:
                st = os.lstat(os.path.join(d, name))
            except OSError:
                continue
            if (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino)); used += st.st_blocks * 512
    for pid in tree(p.pid):
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                st = os.stat(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino)); used += st.st_blocks * 512
    peak = max(peak, used)
    time.sleep(0.01)
if p.returncode != 0:
    sys.exit(f"gate exited {p.returncode}")
print(peak, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}

printf 'version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: flood\n    run: "head -c 600000000 /dev/zero"\n' > "$work/flood.yaml"
rm -rf "$work/out"
mkdir -p "$work/out"
read -r disk rss < <(peak_disk "$work/out" "$gate" run "$work/flood.yaml" --ledger "$work/out/ledger.jsonl" --no-step-summary)
awk -v d="$disk" -v r="$rss" 'BEGIN {
  printf "flood:    one trial printing 600 MB: peak disk %.2f MB (target < 64 MB); peak RSS %.1f MB\n", d / 1048576, r / 1024
}'
