#!/usr/bin/env bash
# Runs every example workflow of this repository on a real Actions runner — nektos/act on the
# host, no Docker, through ../shared/tools/act-workflow — and checks that each scenario ends the
# way its plan says it must: which jobs ran, which succeeded, every verdict and exit code the
# action published, its step summary, and that no job printed an annotation it should not.
#
#   scripts/act-workflows.sh [SCENARIO...]      (default: every scenario; `--list` lists them)
#
# The jobs use the gate this script is given instead of building one each (CI has 2 cores):
# GATE_BIN=path/to/gate, or else `cargo build --locked` (the debug build the test suite has
# already made). It is put first on the jobs' PATH, where `install: auto` finds it, and
# ci.yml's self-test (`install: build` on GitHub) takes it through `env.GATE_INSTALL`, which
# only this script sets (act --env GATE_INSTALL=path). The action's
# `build` and release-download paths are therefore not exercised here: see
# docs/github-action.md ("What act does not show").
#
# Each scenario's act log is kept in $ACT_LOGS (default: a fresh temporary folder) and its
# last lines are printed when a check fails. A scenario's act run is stopped after
# $ACT_TIMEOUT seconds (default 480) and run once more (below, at run_act). Exit status: 0 when every scenario held, 1 when
# one did not, 2 on a usage error.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

act_workflow="$root/../shared/tools/act-workflow"
[ -x "$act_workflow" ] || { echo "act-workflows: $act_workflow not found (it comes with ../shared)" >&2; exit 2; }
git rev-parse --git-dir >/dev/null 2>&1 || { echo "act-workflows: run it from a git checkout" >&2; exit 2; }

# --- the gate the jobs use ---------------------------------------------------------------

if [ -z "${GATE_BIN:-}" ]; then
  cargo build --locked --quiet --bin gate
  GATE_BIN="$root/target/debug/gate"
fi
[ -x "$GATE_BIN" ] || { echo "act-workflows: GATE_BIN=$GATE_BIN is not an executable" >&2; exit 2; }
bindir="$(mktemp -d)"
ACT_LOGS="${ACT_LOGS:-$(mktemp -d)}"
trap 'rm -rf "$bindir"' EXIT
cp "$GATE_BIN" "$bindir/gate"
export PATH="$bindir:$PATH"

# act runs the committed tree (it copies the checkout): say so when the work tree differs.
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "act-workflows: note: uncommitted changes to tracked files are in the jobs' copy too" >&2
fi

# --- reading an act log --------------------------------------------------------------------
# act prefixes every line with `[WORKFLOW/JOB NAME]` (padded); outputs appear as
# `⚙  ::set-output:: NAME=VALUE`, annotations as `🚧  ::warning …` / `❗  ::error …`, the
# step summary as `⚙  Summary - …`, and each job ends with `🏁  Job succeeded` or `Job failed`.

log=""
failures=0

fail() {
  printf 'act-workflows: %s: FAILED: %s\n' "$scenario" "$*" >&2
  failures=$((failures + 1))
}

# Lines of the job whose display name starts with $1 (matrix jobs get a `-N` suffix).
job_lines() { grep -F "/$1" "$log" || true; }

# The last value the job set for output $2 (the action's outputs are set once per step).
job_output() {
  job_lines "$1" | sed -n "s/.*::set-output:: $2=//p" | tail -n1
}

jobs_named() { grep -oE "^\[[^]]*/$1[^]]*\] 🏁  Job (succeeded|failed)" "$log" | sort -u; }

expect_jobs() { # NAME-PREFIX COUNT succeeded|failed
  local n
  n=$(jobs_named "$1" | grep -c "Job $3" || true)
  [ "$n" = "$2" ] || fail "expected $2 '$1' job(s) to end '$3', saw $n"
}

expect_no_job() { # NAME-PREFIX
  if [ -n "$(jobs_named "$1")" ]; then fail "job '$1' ran; the scenario says it must not"; fi
}

expect_output() { # JOB OUTPUT VALUE
  local got
  got=$(job_output "$1" "$2")
  [ "$got" = "$3" ] || fail "job '$1': output $2 is '${got}', expected '$3'"
}

expect_annotations() { # JOB KIND(warning|error) COUNT
  local n
  n=$(job_lines "$1" | grep -cE "::$2( |::)" || true)
  [ "$n" = "$3" ] || fail "job '$1': $n ::$2 annotation(s), expected $3"
}

expect_summary() { # JOB TEXT
  job_lines "$1" | grep -F "Summary - " | grep -qF "$2" || fail "job '$1': step summary lacks '$2'"
}

# A scenario's act run takes seconds to a minute here. One that has not ended after
# $ACT_TIMEOUT seconds (default 480) is stopped with its whole process group (GNU timeout
# signals the group: act, its jobs, and what they started), its log's last lines are printed,
# and it is run once more from the start: a CI run of round 4 hung in act's ingest scenario
# until the 90-minute limit, with nothing printed to say where. A second hang, or any other
# failure, is a failure; neither the timeout nor the retry ever turns a failed check into a
# pass, since every check reads only the log of the run that ended.
ACT_TIMEOUT="${ACT_TIMEOUT:-480}"

run_act() { # WORKFLOW [act args…]
  log="$ACT_LOGS/$scenario.log"
  local rc started attempt
  for attempt in 1 2; do
    rc=0
    started=$SECONDS
    # Ports of its own: act's defaults may be held by another act on the same machine.
    ACT_ARTIFACTS="$(mktemp -d)" timeout -k 30 "$ACT_TIMEOUT" "$act_workflow" "$@" --env GATE_INSTALL=path \
      --artifact-server-port "$((40000 + RANDOM % 10000))" \
      --cache-server-port "$((50000 + RANDOM % 10000))" >"$log" 2>&1 || rc=$?
    printf 'act-workflows: %s: act exited %s after %ss (log: %s)\n' "$scenario" "$rc" "$((SECONDS - started))" "$log" >&2
    # 124: timeout's own status when it stopped act; 137: act did not stop on TERM (KILL).
    if [ "$rc" != 124 ] && [ "$rc" != 137 ]; then break; fi
    printf 'act-workflows: %s: act did not end within %ss (attempt %s of 2); the last lines of its log:\n' \
      "$scenario" "$ACT_TIMEOUT" "$attempt" >&2
    tail -n 40 "$log" >&2
    cp "$log" "$ACT_LOGS/$scenario.timed-out-$attempt.log"
  done
  act_rc=$rc
}

# --- the scenarios -------------------------------------------------------------------------
# One function each. A scenario states what its workflow's plan implies, from the plan files
# themselves (deterministic agents), not from a previous run.

# ci.yml's self-test: the demo plan FAILs by design (one regressed task), and a plan whose
# task always fails FAILs; the job's own check steps assert the outputs and `gate verify`.
scenario_self_test() {
  run_act .github/workflows/ci.yml -j self-test
  [ "$act_rc" = 0 ] || fail "act exited $act_rc"
  expect_jobs "action self-test" 1 succeeded
  expect_summary "action self-test" "FAIL"
}

# gate-shards.yml: three shards of the demo's healthy single plan, merged: PASS. A shard's
# partial view is not a verdict, so no shard annotates.
scenario_shards() {
  run_act .github/workflows/gate-shards.yml
  [ "$act_rc" = 0 ] || fail "act exited $act_rc"
  expect_jobs "gate shard" 3 succeeded
  expect_annotations "gate shard" warning 0
  expect_annotations "gate shard" error 0
  expect_jobs "gate verdict" 1 succeeded
  expect_output "gate verdict" verdict PASS
  expect_output "gate verdict" exit-code 0
  expect_summary "gate verdict" "PASS"
}

# gate-ingest.yml: five suite runs; test_refund fails in run 3 only (allowed: c = 1) and
# test_lookup never fails: PASS.
scenario_ingest() {
  run_act .github/workflows/gate-ingest.yml
  [ "$act_rc" = 0 ] || fail "act exited $act_rc"
  expect_jobs "suite run" 5 succeeded
  expect_jobs "gate verdict" 1 succeeded
  expect_output "gate verdict" verdict PASS
  expect_output "gate verdict" exit-code 0
  expect_annotations "gate verdict" error 0
}

# gate-compare.yml: head against base, on a pull_request event whose base is this very
# commit (act makes base/ from the local clone): the simulated agent of plans/compare-pr.yaml
# on both sides, identical, whose pairs (fixed by GATE_TRIAL and GATE_SIDE) end in PASS.
scenario_compare() {
  local event
  event="$(mktemp)"
  printf '{"pull_request": {"number": 1, "base": {"sha": "%s"}, "head": {"sha": "%s"}}}\n' \
    "$(git rev-parse HEAD)" "$(git rev-parse HEAD)" >"$event"
  run_act .github/workflows/gate-compare.yml -e "$event"
  rm -f "$event"
  [ "$act_rc" = 0 ] || fail "act exited $act_rc"
  expect_jobs "gate head against base" 1 succeeded
  expect_output "gate head against base" verdict PASS
  expect_output "gate head against base" exit-code 0
  expect_summary "gate head against base" "PASS"
  expect_annotations "gate head against base" error 0
}

# gate-stages.yml: the staged plan of plans/examples/staged.yaml, as matrices of 3 shards
# per stage, for two tasks (`checkout` and the scenario's agent). What the workflow must show
# is computed here, not assumed: an unsharded local `gate run --jobs 15` of the same tasks
# (their outcomes are fixed by GATE_TRIAL) gives each task's verdict and graded trials, hence
# the stage (15 trials each) it decides in; the staged run decides at the first stage with a
# FAIL, else when the last task decides, and the verdict is the tasks' combined one.
stages_scenario() { # healthy|regressed
  local agent="agent-$1" dir verdict stages first n
  dir="$(mktemp -d)"
  "$GATE_BIN" run plans/examples/staged.yaml --task checkout --task "$agent" --jobs 15 --quiet \
    --no-step-summary --ledger "$dir/ledger.jsonl" --json "$dir/report.json" >/dev/null 2>&1 || true
  read -r verdict stages first < <(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
at = [((t["trials"]["graded"] + 14) // 15, t["verdict"], t["id"]) for t in r["tasks"]]
fails = [s for s, v, _ in at if v == "FAIL"]
stages = min(fails) if fails else max(s for s, _, _ in at)
print(r["verdict"], stages, " ".join("%s:%s" % (i, s) for s, _, i in at))' "$dir/report.json" 2>/dev/null || echo "none 0 none")
  rm -rf "$dir"
  printf 'act-workflows: %s: unsharded run says %s after %s stage(s) (task:stage %s)\n' \
    "$scenario" "$verdict" "$stages" "$first" >&2
  ACT_EVENT=workflow_dispatch run_act .github/workflows/gate-stages.yml --input scenario="$1"
  for n in 1 2 3; do
    if [ "$n" -le "$stages" ]; then
      expect_jobs "stage $n shard" 3 succeeded
      expect_jobs "decide after stage $n" 1 succeeded
      if [ "$n" -lt "$stages" ]; then
        expect_output "decide after stage $n" decision CONTINUE
      else
        expect_output "decide after stage $n" decision "$verdict"
      fi
    else
      expect_no_job "stage $n shard"
      expect_no_job "decide after stage $n"
    fi
  done
  # `checkout` decides in stage 1: a later stage runs nothing of it, and says so.
  if [ "$stages" -ge 2 ]; then
    job_lines "stage 2 shard" | grep -qF "checkout: PASS in stage 1; runs nothing in stage 2" \
      || fail "the stage-2 jobs do not say that checkout runs nothing in stage 2"
  fi
  expect_annotations "stage " warning 0
  expect_annotations "decide after" warning 0
  job_lines "gate verdict" | grep -qF "gate: $verdict after $stages stage(s)" \
    || fail "job 'gate verdict' does not say '$verdict after $stages stage(s)'"
  if [ "$verdict" = PASS ]; then
    [ "$act_rc" = 0 ] || fail "act exited $act_rc for a PASS"
    expect_jobs "gate verdict" 1 succeeded
  else
    [ "$act_rc" != 0 ] || fail "act exited 0 for a $verdict"
    expect_jobs "gate verdict" 1 failed
  fi
}

# Checkout and the healthy agent: CONTINUE after stage 1 (checkout PASSes), stage 2 runs the
# agent only, PASS after stage 2, no stage 3.
scenario_stages_healthy() { stages_scenario healthy; }

# Checkout and the regressed agent: FAIL after stage 1; no stage-2 job runs; the verdict job
# fails.
scenario_stages_regressed() { stages_scenario regressed; }

all_scenarios() { declare -F | sed -n 's/^declare -f scenario_//p' | tr _ -; }

if [ "${1:-}" = "--list" ]; then all_scenarios; exit 0; fi
# shellcheck disable=SC2046 # scenario names are single words
if [ $# -eq 0 ]; then set -- $(all_scenarios); fi
for scenario in "$@"; do
  fn="scenario_${scenario//-/_}"
  declare -F "$fn" >/dev/null || { echo "act-workflows: no scenario '$scenario' (try --list)" >&2; exit 2; }
done

started=$SECONDS
for scenario in "$@"; do
  before=$failures
  "scenario_${scenario//-/_}"
  if [ "$failures" = "$before" ]; then
    printf 'act-workflows: %s: ok\n' "$scenario"
  else
    tail -n 40 "$log" >&2
  fi
done
printf 'act-workflows: %d scenario(s) in %ss, %d check(s) failed\n' "$#" "$((SECONDS - started))" "$failures"
[ "$failures" = 0 ]
