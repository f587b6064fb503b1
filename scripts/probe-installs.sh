#!/usr/bin/env bash
# What the packages wall's reading of quoted words costs honest agents (docs/trust.md,
# "Review 55's breaks, closed in session 19"): a task folder whose node_modules is the real
# install of the JavaScript runners (scripts/node-runners.sh: jest, mocha, vitest, playwright;
# `.bin` left out so the box leaves it writable), a node check that preloads one of those
# packages, and an agent that answers right and installs one unused package by a popular
# name, which the plan lists in `policy.sandbox.installs`. Prints, per name, gate's exit code (0: verdict kept; 4: no verdict) and the file
# that writes the name; then the first read's cost: the same run with a name nothing writes,
# against a run that installs nothing, best of 3. Not a test: a probe, with its numbers.
# Usage: scripts/probe-installs.sh [NAMES...]     GATE_BIN=path/to/gate to skip the build
set -euo pipefail
cd "$(dirname "$0")/.."
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(lodash commander eslint prettier express zod dotenv moment vue dayjs)
if [ -n "${GATE_BIN:-}" ]; then
  gate=$(realpath "$GATE_BIN")
else
  cargo build --release --quiet
  gate=${CARGO_TARGET_DIR:-$PWD/target}/release/gate
fi
command -v node >/dev/null || { echo "probe-installs: node is not installed" >&2; exit 2; }
bash scripts/node-runners.sh >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tpl"
cp -r target/node-runners/node_modules "$work/tpl/"
rm -rf "$work/tpl/node_modules/.bin" "$work/tpl/node_modules/.vite" "$work/tpl/node_modules/.package-lock.json"
# run NAME: the exit code and the refusal's asking file, for an agent that installs NAME.
run() {
  local d="$work/run"; rm -rf "$d"; mkdir -p "$d/task/graders"
  cp -r "$work/tpl/node_modules" "$d/task/"
  # The plan lets a trial install NAME (`policy.sandbox.installs`; by default no new name
  # may be added): what is measured is the reading of the packages there, which still
  # refuses a listed name some package writes. LISTED=no leaves it out.
  local policy=""
  [ -n "$1" ] && [ "${LISTED:-yes}" = yes ] && policy="policy:\n  sandbox: {installs: [$1]}\n"
  printf "version: 1\n${policy}sampling: {single: {n: 2, c: 0}}\ntasks:\n  - id: agent\n    cwd: task\n    run: sh agent.sh\n    check: sh graders/check.sh\n" > "$d/plan.yaml"
  echo 'exec node -r ./node_modules/color-convert graders/check.js' > "$d/task/graders/check.sh"
  echo 'process.exit(require("fs").readFileSync("result.txt", "utf8").trim() === "right" ? 0 : 1);' > "$d/task/graders/check.js"
  echo '{}' > "$d/task/graders/package.json"
  { echo 'echo right > result.txt'
    [ -n "$1" ] && echo "mkdir -p node_modules/$1 && echo 'module.exports = 1;' > node_modules/$1/index.js"
  } > "$d/task/agent.sh"
  local t0 t1 rc=0
  t0=$(date +%s.%N)
  (cd "$d" && NO_COLOR=1 "$gate" run plan.yaml --ledger "$d/ledger.jsonl" --no-step-summary > "$d/out.txt" 2>&1) || rc=$?
  t1=$(date +%s.%N)
  secs=$(echo "$t1 - $t0" | bc)
  code=$rc
  asker=$(grep -o 'node_modules/[^`]*` writes' "$d/out.txt" | head -1 | sed 's/` writes//' || true)
}
printf '%-12s %-5s %s\n' NAME EXIT "WRITTEN BY"
refused=0
for n in "${names[@]}"; do
  run "$n"
  [ "$code" = 4 ] && refused=$((refused + 1))
  printf '%-12s %-5s %s\n' "$n" "$code" "${asker:--}"
done
echo "refused: $refused of ${#names[@]} listed in policy.sandbox.installs (exit 4: no verdict; 0: verdict kept)"
LISTED=no run lodash
echo "lodash not listed (the default): exit $code"
best() { local b=""; for _ in 1 2 3; do run "$1"; if [ -z "$b" ] || [ "$(echo "$secs < $b" | bc)" = 1 ]; then b=$secs; fi; done; echo "$b"; }
base=$(best "")
read_=$(best zz-nothing-writes-this)
echo "first read: run with an unused new name ${read_} s, with no install ${base} s (best of 3), ratio $(echo "scale=2; $read_ / $base" | bc)"
