#!/usr/bin/env bash
# What a suite task costs (issue 30): expected suite runs and test-case executions for
#  (a) 200 cases: 195 deterministic (always pass), 5 at the healthy rate (90%), and
#  (b) 50 cases, all at the healthy rate,
# under "90% vs 70%", alpha 0.05, beta 0.1 (the calibrated sequential rule, the default), for
#  before: main at d9129a1, before the family and the targeted re-runs: every case judged by
#          the plan's rule at alpha 0.05, and every suite run runs every case;
#  after:  this change: every case judged by the rule designed again at Šidák's share
#          1 − (1 − 0.05)^(1/K) of alpha (beta unchanged), and a run after the first runs
#          only the cases still undecided at its launch ($GATE_SUITE_CASES).
#
# Both columns are EXACT expectations, computed here from the rules' lattices as `gate plan
# --format json` publishes them (no simulation): a case's stopping time T_i (the trial at
# which its rule decides, at most max_trials) has an exact distribution at its rate; a suite
# run ends the task when every case has decided, so with independent cases
#   E[suite runs]      = E[max_i T_i] = Σ_{t ≥ 0} (1 − Π_i P(T_i ≤ t)),
#   E[case executions] = K · E[suite runs]     (before: every run runs every case),
#                      = Σ_i E[T_i]            (after: case i runs until it decides).
# The "before" column is computed from d9129a1's design with this gate's calibrated rule at
# alpha 0.05 (the rule a case got there; the calibrated search gained candidates since, issue
# 31, so d9129a1's own lattice may differ in a trial or so): it is not a build of d9129a1.
# Then RUNS real `gate run`s of each suite (a generated awk suite that honours
# $GATE_SUITE_CASES) confirm the "after" column: their mean suite runs and case executions,
# from the JSON report's suites[].
#
# Usage: scripts/bench-suite.sh [path/to/gate] [RUNS]   (default: builds the release binary; RUNS 10)
set -euo pipefail
cd "$(dirname "$0")/.."

gate="${1:-}"
runs="${2:-10}"
if [ -z "$gate" ]; then
  cargo build --release --locked --quiet
  gate="${CARGO_TARGET_DIR:-target}/release/gate"
fi
[ -x "$gate" ] || { echo "bench-suite: no gate binary at $gate" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench-suite: needs python3" >&2; exit 2; }
gate="$(cd "$(dirname "$gate")" && pwd)/$(basename "$gate")"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The rule at alpha 0.05 and at Šidák's share over 200 and over 50 cases, as gate designs
# them (a family's rule is `gate plan`'s calibrated rule at the share, its truncation the
# default one there: src/plan/family.rs).
share() { python3 -c "import math,sys; print(repr(-math.expm1(math.log1p(-0.05)/int(sys.argv[1]))))" "$1"; }
for k in 1 50 200; do
  a=$(if [ "$k" = 1 ]; then echo 0.05; else share "$k"; fi)
  "$gate" plan --healthy 0.9 --regressed 0.7 --alpha "$a" --beta 0.1 --rule calibrated \
    --format json > "$work/rule-$k.json"
done

# Real runs of the generated suite: DET deterministic cases, OTHERS at 90% (2 random bytes a
# case from /dev/urandom: the rate is ⌈0.9·65536⌉/65536, at or just above 90%).
cat > "$work/gen.awk" <<'AWK'
BEGIN {
  nb = split(bits, u); n = 0
  if (f != "") while ((getline line < f) > 0) { want[line] = 1; n++ }
  printf "<testsuites><testsuite name=\"s\">"
  for (i = 1; i <= det + others; i++) {
    name = sprintf("c%03d", i)
    if (n > 0 && !(("t::" name) in want)) continue
    if (i > det + 0 && u[i - det] + 0 >= rate * 65536)
      printf "<testcase classname=\"t\" name=\"%s\"><failure message=\"x\"/></testcase>", name
    else printf "<testcase classname=\"t\" name=\"%s\"/>", name
  }
  printf "</testsuite></testsuites>\n"
}
AWK
plan() { # DET OTHERS
  # The $(…) and $GATE_… are the plan's, expanded by the suite's shell at run time.
  # shellcheck disable=SC2016
  printf 'version: 1\nsampling:\n  design: {healthy: 0.9, regressed: 0.7, rule: sequential}\ntasks:\n  - id: s\n    suite:\n      run: >-\n        awk -v bits="$(od -An -v -N%d -tu2 /dev/urandom)" -v det=%d -v rate=0.9 -v others=%d\n        -v f="$GATE_SUITE_CASES" -f gen.awk > "$GATE_JUNIT"\n      assume_retries_off: true\n' \
    $((2 * $2)) "$1" "$2" > "$work/$1-$2.yaml"
}
sample() { # DET OTHERS -> "mean runs, mean case executions, seconds per gate run"
  plan "$1" "$2"
  local start end
  start=$(date +%s.%N)
  for i in $(seq "$runs"); do
    (cd "$work" && "$gate" run "$1-$2.yaml" --ledger "out-$1-$2/$i.jsonl" --json "out-$1-$2/$i.json" \
      --no-step-summary >/dev/null 2>&1) || [ $? -le 1 ]
  done
  end=$(date +%s.%N)
  python3 - "$work/out-$1-$2" "$runs" "$start" "$end" <<'PY'
import json, pathlib, sys
d, n, t0, t1 = pathlib.Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
s = [json.loads(p.read_text())["suites"][0] for p in sorted(d.glob("*.json"))]
assert len(s) == n, f"{len(s)} reports of {n} runs"
print(sum(x["runs"] for x in s) / n, sum(x["case_runs"] for x in s) / n, (t1 - t0) / n)
PY
}
a_real=$(sample 195 5)
b_real=$(sample 0 50)

python3 - "$work" "$runs" "$a_real" "$b_real" <<'PY'
import json, math, sys

work, runs = sys.argv[1], int(sys.argv[2])
real = {"a": [float(x) for x in sys.argv[3].split()], "b": [float(x) for x in sys.argv[4].split()]}

def rule(k):
    return json.load(open(f"{work}/rule-{k}.json"))

def stopping(r, p):
    """Exact P(T = t) for t = 1..max_trials: the trial at which the rule decides at rate p."""
    lat = r["lattice"]
    mass = {0: 1.0}  # failures -> P(still undecided with that many failures)
    out = []
    for row in lat:
        nxt = {}
        for f, m in mass.items():
            nxt[f] = nxt.get(f, 0.0) + m * p
            nxt[f + 1] = nxt.get(f + 1, 0.0) + m * (1 - p)
        last = row["trials"] == len(lat)
        pm, fm = row["pass_max_failures"], row["fail_min_failures"]
        stop = 0.0
        mass = {}
        for f, m in nxt.items():
            if last or (pm is not None and f <= pm) or (fm is not None and f >= fm):
                stop += m
            else:
                mass[f] = m
        out.append(stop)
    return out

def cdf(pmf):
    c, s = [], 0.0
    for x in pmf:
        s += x
        c.append(min(s, 1.0))
    return c

def expected(cases):
    """cases: list of (pmf, count). E[max T_i] and Σ E[T_i]."""
    horizon = max(len(p) for p, _ in cases)
    cdfs = [(cdf(p), n) for p, n in cases]
    runs = 0.0
    for t in range(horizon):  # P(max > t) for t = 0..horizon-1
        # P(T_i <= t): 0 before the first trial, 1 once the rule's last trial is past.
        at = lambda c: 0.0 if t == 0 else (c[t - 1] if t <= len(c) else 1.0)
        prod = 1.0
        for c, n in cdfs:
            prod *= at(c) ** n
        runs += 1.0 - prod
    asn = sum(n * sum((t + 1) * x for t, x in enumerate(p)) for p, n in cases)
    return runs, asn

rows = []
for key, det, healthy, k in (("a", 195, 5, 200), ("b", 0, 50, 50)):
    before, after = rule(1), rule(k)
    for r in (before, after):  # the DP reproduces gate's own ASN
        e = sum((t + 1) * x for t, x in enumerate(stopping(r, 0.9)))
        assert abs(e - r["sequential"]["asn_healthy"]) < 1e-9, (e, r["sequential"]["asn_healthy"])
    b_runs, _ = expected([(stopping(before, 1.0), det), (stopping(before, 0.9), healthy)])
    b_cases = k * b_runs
    a_runs, a_cases = expected([(stopping(after, 1.0), det), (stopping(after, 0.9), healthy)])
    rows.append((key, det, healthy, k, before, after, b_runs, b_cases, a_runs, a_cases))

print(f"gate suite benchmark: 90% vs 70%, alpha 0.05, beta 0.1 (calibrated rule); exact expectations, then the mean of {runs} real gate runs")
for key, det, healthy, k, before, after, b_runs, b_cases, a_runs, a_cases in rows:
    sa, ra = before["sequential"], after["sequential"]
    rr, rc, secs = real[key]
    print(f"({key}) {k} cases: {det} deterministic, {healthy} at 90%")
    print(f"    case rule before: alpha 0.05, earliest PASS {sa['earliest_pass']}, E[T | 90%] {sa['asn_healthy']:.1f}, at most {sa['max_trials']} trials")
    print(f"    case rule after:  alpha {ra['realised_alpha']:.3g} (share {-math.expm1(math.log1p(-0.05) / k):.3g}), earliest PASS {ra['earliest_pass']}, E[T | 90%] {ra['asn_healthy']:.1f}, at most {ra['max_trials']} trials")
    print(f"    {'':28} {'before (d9129a1)':>17} {'after (exact)':>14} {'after (' + str(runs) + ' runs)':>14}  after/before")
    print(f"    {'expected suite runs':28} {b_runs:17.1f} {a_runs:14.1f} {rr:14.1f}  {a_runs / b_runs:.2f}x")
    print(f"    {'expected case executions':28} {b_cases:17.0f} {a_cases:14.0f} {rc:14.0f}  {a_cases / b_cases:.2f}x (before/after {b_cases / a_cases:.1f}x)")
    print(f"    {'family risk (healthy suite red)':28} {1 - (1 - sa['realised_alpha']) ** healthy:17.4f} {1 - (1 - ra['realised_alpha']) ** healthy:14.4f}  (only the {healthy} cases at 90% can fail)")
    print(f"    wall time of one real gate run: {secs:.2f} s")
PY
