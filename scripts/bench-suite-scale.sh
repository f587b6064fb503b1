#!/usr/bin/env bash
# Benchmark of a suite task at scale (issue 30, "Bounded at scale"; not a test, since machines
# are noisy): a generated suite of N trivial passing cases, run with the default calibrated
# 90%-vs-70% rule at alpha 0.05 (Šidák's share per case), every report written. For 10,000
# and 100,000 cases it prints wall time, CPU time (user + system, steadier than wall on a
# shared machine), peak RSS and the size of the ledger and of each report, then the ratios
# 100k / 10k: linear growth gives about 10; then the peak RSS of `gate report` (every report
# written again) and `gate verify` of each ledger; last, whether the larger size's peak RSS
# meets issue 30's memory target (5 kB a case: 500 MB at 100,000 cases) for `gate run`,
# `gate report` and `gate verify`.
# Usage: scripts/bench-suite-scale.sh [SMALL] [LARGE]   (defaults 10000 100000)
# Needs GNU time (/usr/bin/time, Debian's `time` package) for the peak RSS.
set -euo pipefail
cd "$(dirname "$0")/.."
small=${1:-10000}
large=${2:-100000}
cargo build --release --quiet
gate=${CARGO_TARGET_DIR:-$PWD/target}/release/gate
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# N passing cases; the run's own result path is the `timestamp`, so no two runs are identical.
cat > "$work/gen.awk" <<'AWK'
BEGIN {
  printf "<testsuites><testsuite name=\"s\" timestamp=\"%s\">", stamp
  for (i = 1; i <= n; i++) printf "<testcase classname=\"t\" name=\"c%06d\"/>", i
  printf "</testsuite></testsuites>\n"
}
AWK

# One measured run of N cases: prints "N wall_s cpu_s rss_kb ledger json md junit terminal lines
# report_rss_kb verify_rss_kb".
measure() {
  local n=$1 dir="$work/n$1"
  mkdir -p "$dir"
  printf 'version: 1\nsampling:\n  design: {healthy: 0.9, regressed: 0.7, rule: sequential}\ntasks:\n  - id: s\n    suite:\n      run: awk -v n=%s -v stamp="$GATE_JUNIT" -f %s > "$GATE_JUNIT"\n      assume_retries_off: true\n' \
    "$n" "$work/gen.awk" > "$dir/plan.yaml"
  ( cd "$dir" && /usr/bin/time -f '%e %U %S %M' -o time.txt "$gate" run plan.yaml --ledger l.jsonl \
      --json r.json --summary r.md --junit r.xml --no-step-summary > term.txt 2> err.txt ) || {
    echo "gate run of $n cases failed:" >&2; cat "$dir/err.txt" "$dir/term.txt" >&2; exit 1; }
  read -r wall user sys rss < <(tail -1 "$dir/time.txt")
  # The same ledger's report (every report written again) and verification: their peak RSS.
  ( cd "$dir" && /usr/bin/time -f '%M' -o report-time.txt "$gate" report l.jsonl --json r2.json \
      --summary r2.md --junit r2.xml --no-step-summary > term2.txt 2> err2.txt ) || {
    echo "gate report of $n cases failed:" >&2; cat "$dir/err2.txt" >&2; exit 1; }
  ( cd "$dir" && /usr/bin/time -f '%M' -o verify-time.txt "$gate" verify l.jsonl > verify.txt 2>&1 ) || {
    echo "gate verify of $n cases failed:" >&2; cat "$dir/verify.txt" >&2; exit 1; }
  size() { stat -c %s "$dir/$1"; }
  echo "$n $wall $(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }') $rss $(size l.jsonl) $(size r.json) $(size r.md) $(size r.xml) $(size term.txt) $(wc -l < "$dir/term.txt") $(tail -1 "$dir/report-time.txt") $(tail -1 "$dir/verify-time.txt")"
  rm -rf "$dir"
}

a=$(measure "$small")
b=$(measure "$large")
mb() { awk -v b="$1" 'BEGIN { if (b >= 1e6) printf "%.1f MB", b / 1e6; else printf "%.1f kB", b / 1e3 }'; }
echo "suite of N passing cases, default calibrated rule at alpha 0.05 (Šidák share per case), $(nproc) CPUs, release build"
printf '%-10s %9s %9s %10s %11s %10s %9s %10s %10s %7s\n' cases wall cpu "peak RSS" ledger JSON Markdown JUnit terminal lines
for row in "$a" "$b"; do
  read -r n wall cpu rss l j m x t lines _ _ <<< "$row"
  printf '%-10s %8.1fs %8.1fs %7.0f MB %11s %10s %9s %10s %10s %7s\n' "$n" "$wall" "$cpu" "$((rss / 1024))" \
    "$(mb "$l")" "$(mb "$j")" "$(mb "$m")" "$(mb "$x")" "$(mb "$t")" "$lines"
done
printf '%-10s %14s %14s %14s   (peak RSS; MB here is GNU time kB / 1024)\n' cases "gate run" "gate report" "gate verify"
for row in "$a" "$b"; do
  read -r n _ _ rss _ _ _ _ _ _ rr vr <<< "$row"
  printf '%-10s %11.0f MB %11.0f MB %11.0f MB\n' "$n" "$((rss / 1024))" "$((rr / 1024))" "$((vr / 1024))"
done
read -r n1 w1 c1 r1 l1 j1 _ x1 _ _ _ _ <<< "$a"
read -r n2 w2 c2 r2 l2 j2 _ x2 _ _ rr2 vr2 <<< "$b"
awk -v k="$((n2 / n1))" -v w1="$w1" -v w2="$w2" -v c1="$c1" -v c2="$c2" -v r1="$r1" -v r2="$r2" \
    -v l1="$l1" -v l2="$l2" -v j1="$j1" -v j2="$j2" -v x1="$x1" -v x2="$x2" 'BEGIN {
  printf "ratio %dx cases: wall %.1f, cpu %.1f, peak RSS %.1f, ledger %.1f, JSON %.1f, JUnit %.1f (linear: about %d)\n",
    k, w2 / w1, c2 / c1, r2 / r1, l2 / l1, j2 / j1, x2 / x1, k
}'
# Issue 30's memory target: 500 MB at 100,000 cases, i.e. 5 kB of peak RSS a case at the
# larger size (RSS hardly depends on the machine's load, unlike the times).
for cmd in "gate run:$r2" "gate report:$rr2" "gate verify:$vr2"; do
  awk -v what="${cmd%%:*}" -v n="$n2" -v r="${cmd##*:}" 'BEGIN {
    printf "memory:   %-11s peak RSS %.2f kB a case at %d cases (target <= 5 kB a case, 500 MB at 100,000: %s)\n",
      what, r * 1.024 / n, n, (r * 1024 <= 5000 * n) ? "target met" : "NOT MET"
  }'
done
