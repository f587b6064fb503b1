#!/usr/bin/env bash
# How fast and how lean `gate ingest` is on a large suite: wall time and peak RSS.
#
# Generates, in a temp dir, JUnit files shaped like the real writers' (see
# tests/fixtures/junit): pytest-repeat + pytest-rerunfailures in one file (100 tests × 100
# repeats = 10,000 trials, 11,000 test-case records with the reruns) and cargo-nextest, 20
# files of 500 test cases with flakyFailure/rerunFailure children. Then times
# `gate ingest` and `gate explain --junit` on each with /usr/bin/time -v.
#
# Target: 10,000 test-case records well under a second and under 50 MB peak RSS.
# Usage: scripts/bench-ingest.sh [path/to/gate]   (default: builds target/release/gate)
set -euo pipefail
cd "$(dirname "$0")/.."

gate="${1:-}"
if [ -z "$gate" ]; then
  cargo build --release --locked --quiet
  gate=target/release/gate
fi
[ -x "$gate" ] || { echo "bench-ingest: no gate binary at $gate" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench-ingest: needs /usr/bin/time (Debian package: time)" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 - "$work" <<'PY'
import sys, os
work = sys.argv[1]
body = "AssertionError: agent answered &lt;wrong&gt;\n" + "  at step %d\n" * 20
# pytest-repeat + pytest-rerunfailures: test i fails its first attempt in every 7th repeat
# (rerun as another record with the same name), and fails outright in every 50th.
with open(os.path.join(work, "pytest-10k.xml"), "w") as f:
    f.write('<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests">'
            '<testsuite name="pytest" errors="0" failures="0" skipped="0" tests="10000">')
    for t in range(100):
        for r in range(1, 101):
            name = f'test_case_{t}[{r}-100]'
            if (r + t) % 7 == 0:
                f.write(f'<testcase classname="tests.test_suite" name="{name}" time="0.010" />')
            if (r + t) % 50 == 0:
                f.write(f'<testcase classname="tests.test_suite" name="{name}" time="0.012">'
                        f'<failure message="AssertionError: agent answered &lt;wrong&gt;">'
                        + body % tuple(range(20)) + '</failure></testcase>')
            else:
                f.write(f'<testcase classname="tests.test_suite" name="{name}" time="0.011" />')
    f.write('</testsuite></testsuites>\n')
# cargo-nextest: 20 runs of 500 tests; every 9th a flaky pass, every 97th a failure with
# two reruns.
os.makedirs(os.path.join(work, "nextest"), exist_ok=True)
for run in range(1, 21):
    with open(os.path.join(work, "nextest", f"run-{run:02}.xml"), "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="nextest-run" tests="500">\n'
                '    <testsuite name="agentsuite" tests="500">\n')
        for t in range(500):
            k = run * 500 + t
            head = f'        <testcase name="tests::case_{t}" classname="agentsuite" time="0.004"'
            if k % 97 == 0:
                fail = '<failure message="panicked" type="test failure">' + body % tuple(range(20)) + '</failure>'
                rerun = '<rerunFailure message="panicked" type="test failure" time="0.004">' + body % tuple(range(20)) + '</rerunFailure>'
                f.write(head + '>' + fail + rerun + rerun + '</testcase>\n')
            elif k % 9 == 0:
                f.write(head + '><flakyFailure message="panicked" type="test failure" time="0.004">'
                        + body % tuple(range(20)) + '</flakyFailure></testcase>\n')
            else:
                f.write(head + '/>\n')
        f.write('    </testsuite>\n</testsuites>\n')
PY

measure() {
  local label="$1"
  shift
  # gate's own exit code (1 for a FAIL verdict) is not the benchmark's concern.
  /usr/bin/time -v "$@" >/dev/null 2>"$work/time.txt" || true
  grep -q 'Exit status: [0-3]$' "$work/time.txt" \
    || { echo "bench-ingest: $label did not finish normally:" >&2; cat "$work/time.txt" >&2; exit 1; }
  local wall user sys rss
  wall="$(grep 'Elapsed (wall clock)' "$work/time.txt" | awk '{print $NF}')"
  user="$(grep 'User time (seconds)' "$work/time.txt" | awk '{print $NF}')"
  sys="$(grep 'System time (seconds)' "$work/time.txt" | awk '{print $NF}')"
  rss="$(grep 'Maximum resident set size' "$work/time.txt" | awk '{print $NF}')"
  # CPU time as well as wall time: on a shared machine the wall time mostly measures the
  # other processes (and the ledger's fsyncs).
  printf '%-44s wall %8s   cpu %5.2f s   peak RSS %6.1f MB\n' "$label" "$wall" \
    "$(echo "$user + $sys" | bc -l)" "$(echo "$rss / 1024" | bc -l)"
}

records() { grep -o '<testcase ' "$@" | wc -l; }
echo "bench-ingest: $("$gate" --version)"
echo "pytest-10k.xml: $(records "$work/pytest-10k.xml") test-case records, $(du -h "$work/pytest-10k.xml" | cut -f1)"
echo "nextest/*.xml:  $(cat "$work"/nextest/*.xml | records) test-case records in 20 files, $(du -sh "$work/nextest" | cut -f1)"
measure "gate ingest pytest-10k.xml --single 100,10" \
  "$gate" ingest "$work/pytest-10k.xml" --single 100,10 --ledger "$work/l1.jsonl" --no-step-summary --json "$work/r1.json"
measure "gate ingest nextest/*.xml --single 20,2" \
  "$gate" ingest "$work"/nextest/*.xml --single 20,2 --ledger "$work/l2.jsonl" --no-step-summary --json "$work/r2.json"
measure "gate explain --junit pytest-10k.xml" "$gate" explain --junit "$work/pytest-10k.xml"
measure "gate explain --junit nextest/*.xml" "$gate" explain --junit "$work"/nextest/*.xml
measure "gate verify (the pytest ledger)" "$gate" verify "$work/l1.jsonl"
