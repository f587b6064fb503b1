#!/usr/bin/env bash
# Generate the eval-tool fixtures of `gate ingest` with the real tools, offline, into
# tests/fixtures/evals/. Nothing there is written by hand: rerun this script to regenerate.
#
# Every eval is three tasks whose outcome is a known function of an invocation counter (one
# file per task in $GATE_FIXTURE_COUNTERS, incremented on every execution of the scripted
# agent, retries included), as in scripts/gen-junit-fixtures.sh:
#
#   lookup   always passes
#   refund   fails when k % 3 == 1   (k = the task's invocation count, from 1)
#   cancel   fails when k % 4 != 0
#
# and every invocation is appended to `<fixture>.invocations.jsonl`, so tests/cli/evals.rs
# recomputes each count from the rule and that log, never from the tool's own output.
# With GATE_FIXTURE_ERROR_ON=1 a `refund` invocation with k % 3 == 1 errors (an exception,
# an HTTP 500) instead of answering wrong.
#
# Scenarios (each starts with fresh counters):
#   go/count-40.json             `go test -count=40 -json`
#   go/gotestsum-count-40.xml    gotestsum's JUnit of the same (failures first: not run order)
#   go/gotestsum-count-40.json   gotestsum's --jsonfile of it
#   go/gotestsum-rerun.{xml,json}  gotestsum `--rerun-fails=2`, `-count=5`
#   promptfoo/results.{json,jsonl,junit.xml}  `promptfoo eval --repeat 20 --no-cache`, a
#                                file:// provider
#   promptfoo/errors.json        the same with errors (`--repeat 6`)
#   promptfoo/cached-rerun.json  an exec: provider run twice without --no-cache: the second
#                                run's rows are all cache replays
#   vitest/retry-2.xml           Vitest's JUnit with `--retry 2` (retries invisible)
#   deepeval/test_run.json, deepeval/junit.xml  `deepeval test run --repeat 20` with a
#                                custom metric (no LLM)
#   inspect/max-reducer.eval     `inspect eval --epochs 20 --epochs-reducer max`
#   inspect/retry-on-error.eval  errors with `--retry-on-error 3`, 6 epochs
#   inspect/aborted.eval         errors with default settings, 6 epochs: the eval aborts,
#                                and `inspect eval` exits 0 (recorded in aborted.exit-code)
#   inspect/two-scorers.json     a JSON log with two scorers, one of which writes NaN
#
# Inspect runs on `--model none` with a solver that never calls a model (its mockllm
# downloads a tokenizer at run time). Needs python3 (venv + pip), node + npm, golang-go and
# gotestsum (Debian packages). GATE_FIXTURE_WORK keeps the work directory.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
out="$repo/tests/fixtures/evals"

readonly INSPECT_VERSION=0.3.285
readonly DEEPEVAL_VERSION=4.3.1
readonly PROMPTFOO_VERSION=0.121.20
readonly VITEST_VERSION=4.1.12

work="${GATE_FIXTURE_WORK:-$(mktemp -d)}"
mkdir -p "$work"
note() { printf 'gen-eval-fixtures: %s\n' "$*" >&2; }
# A fresh counter directory for one scenario.
counters() {
  rm -rf "$work/counters/$1"
  mkdir -p "$work/counters/$1"
  printf '%s' "$work/counters/$1"
}
# Keep a scenario's invocation log beside its fixture.
keep_log() { cp "$1/invocations.jsonl" "$2.invocations.jsonl"; }

export HOME="$work/home" # the tools' caches and config stay in the work directory
mkdir -p "$HOME"
rm -rf "$out"
mkdir -p "$out"/{go,promptfoo,deepeval,inspect}

# ---------------------------------------------------------------- Go
note "go: $(go version)"
mkdir -p "$work/go"
cat >"$work/go/go.mod" <<'EOF'
module example.com/agent

go 1.19
EOF
cat >"$work/go/agent_test.go" <<'EOF'
package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// bump counts this execution of test name (reruns included), logs it, and returns the
// count, from 1.
func bump(t *testing.T, name string) int {
	dir := os.Getenv("GATE_FIXTURE_COUNTERS")
	path := filepath.Join(dir, name)
	k := 1
	if b, err := os.ReadFile(path); err == nil {
		n, _ := strconv.Atoi(string(b))
		k = n + 1
	}
	if err := os.WriteFile(path, []byte(strconv.Itoa(k)), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "invocations.jsonl"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line, _ := json.Marshal(map[string]any{"task": name, "k": k})
	f.Write(append(line, '\n'))
	return k
}

func TestLookup(t *testing.T) { bump(t, "lookup") }

func TestRefund(t *testing.T) {
	if k := bump(t, "refund"); k%3 == 1 {
		t.Fatalf("refund invocation %d", k)
	}
}

func TestCancel(t *testing.T) {
	if k := bump(t, "cancel"); k%4 != 0 {
		t.Fatalf("cancel invocation %d", k)
	}
}
EOF
export GOPROXY=off GOFLAGS=-mod=mod GOCACHE="$work/gocache" GOTOOLCHAIN=local
(
  cd "$work/go"
  GATE_FIXTURE_COUNTERS=$(counters go-count) go test -count=40 -json ./... >"$out/go/count-40.json" || true
  keep_log "$work/counters/go-count" "$out/go/count-40"
  GATE_FIXTURE_COUNTERS=$(counters gotestsum-count) gotestsum --format dots \
    --junitfile "$out/go/gotestsum-count-40.xml" --jsonfile "$out/go/gotestsum-count-40.json" \
    -- -count=40 ./... >/dev/null || true
  keep_log "$work/counters/gotestsum-count" "$out/go/gotestsum-count-40"
  GATE_FIXTURE_COUNTERS=$(counters gotestsum-rerun) gotestsum --format dots --rerun-fails=2 --packages ./... \
    --junitfile "$out/go/gotestsum-rerun.xml" --jsonfile "$out/go/gotestsum-rerun.json" \
    -- -count=5 >/dev/null || true
  keep_log "$work/counters/gotestsum-rerun" "$out/go/gotestsum-rerun"
)

# ---------------------------------------------------------------- promptfoo
note "promptfoo: installing promptfoo $PROMPTFOO_VERSION"
mkdir -p "$work/pf"
(cd "$work/pf" && [ -x node_modules/.bin/promptfoo ] ||
  npm install --silent --no-audit --no-fund "promptfoo@$PROMPTFOO_VERSION" >/dev/null)
cat >"$work/pf/agent.js" <<'EOF'
// The scripted agent: counts and logs each invocation of a task, answers by the rule.
const fs = require('fs');
const path = require('path');
const RULES = { lookup: (k) => true, refund: (k) => k % 3 !== 1, cancel: (k) => k % 4 === 0 };
function invoke(task) {
  const dir = process.env.GATE_FIXTURE_COUNTERS;
  const file = path.join(dir, task);
  const k = fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8')) + 1 : 1;
  fs.writeFileSync(file, String(k));
  fs.appendFileSync(path.join(dir, 'invocations.jsonl'), JSON.stringify({ task, k }) + '\n');
  const error = process.env.GATE_FIXTURE_ERROR_ON && task === 'refund' && k % 3 === 1;
  return { k, error, ok: RULES[task](k) };
}
module.exports = { invoke };
EOF
cat >"$work/pf/provider.js" <<'EOF'
// A promptfoo file:// provider around the scripted agent.
const { invoke } = require('./agent.js');
class Agent {
  id() { return 'scripted-agent'; }
  async callApi(prompt, context) {
    const { k, error, ok } = invoke(context.vars.task);
    if (error) {
      return { error: `refund invocation ${k}: upstream 500`,
               metadata: { http: { status: 500, statusText: 'Internal Server Error' } } };
    }
    return { output: ok ? 'done' : `wrong (invocation ${k})` };
  }
}
module.exports = Agent;
EOF
cat >"$work/pf/cli.js" <<'EOF'
// A promptfoo exec: provider (a built-in provider, so promptfoo caches its answers).
const { invoke } = require('./agent.js');
const { k, ok } = invoke(process.argv[2].replace(/^Do /, ''));
process.stdout.write(ok ? 'done' : `wrong (invocation ${k})`);
EOF
pf_config() {
  cat <<EOF
description: scripted agent
prompts:
  - "Do {{task}}"
providers:
  - $1
tests:
  - description: lookup
    vars: { task: lookup }
    assert: [{ type: equals, value: done }]
  - description: refund
    vars: { task: refund }
    assert: [{ type: equals, value: done }]
  - description: cancel
    vars: { task: cancel }
    assert: [{ type: equals, value: done }]
EOF
}
pf_config "file://provider.js" >"$work/pf/promptfooconfig.yaml"
pf_config '"exec: node cli.js"' >"$work/pf/exec.yaml"
export PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1 PROMPTFOO_DISABLE_SHARING=1
pf() { (cd "$work/pf" && node_modules/.bin/promptfoo eval --no-progress-bar --no-table -j 1 "$@" >/dev/null 2>&1) || true; }
GATE_FIXTURE_COUNTERS=$(counters pf-repeat) pf -c promptfooconfig.yaml --repeat 20 --no-cache \
  -o "$out/promptfoo/results.json" -o "$out/promptfoo/results.jsonl" -o "$out/promptfoo/results.junit.xml"
keep_log "$work/counters/pf-repeat" "$out/promptfoo/results"
GATE_FIXTURE_COUNTERS=$(counters pf-errors) GATE_FIXTURE_ERROR_ON=1 pf -c promptfooconfig.yaml --repeat 6 \
  --no-cache -o "$out/promptfoo/errors.json"
keep_log "$work/counters/pf-errors" "$out/promptfoo/errors"
rm -rf "$HOME/.promptfoo/cache"
GATE_FIXTURE_COUNTERS=$(counters pf-cached) pf -c exec.yaml --repeat 3 -o "$work/pf/first.json"
GATE_FIXTURE_COUNTERS="$work/counters/pf-cached" pf -c exec.yaml --repeat 3 -o "$out/promptfoo/cached-rerun.json"
keep_log "$work/counters/pf-cached" "$out/promptfoo/cached-rerun"

# ---------------------------------------------------------------- Vitest
note "vitest: installing vitest $VITEST_VERSION"
mkdir -p "$work/vt"
(cd "$work/vt" && [ -x node_modules/.bin/vitest ] ||
  npm install --silent --no-audit --no-fund "vitest@$VITEST_VERSION" >/dev/null)
cat >"$work/vt/agent.test.mjs" <<'EOF'
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';

// Count and log this invocation of task `name` (retries included); return the count, from 1.
function bump(name) {
  const dir = process.env.GATE_FIXTURE_COUNTERS;
  const file = path.join(dir, name);
  const k = fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8')) + 1 : 1;
  fs.writeFileSync(file, String(k));
  fs.appendFileSync(path.join(dir, 'invocations.jsonl'), JSON.stringify({ task: name, k }) + '\n');
  return k;
}

test('lookup', () => { bump('lookup'); });
test('refund', () => { const k = bump('refund'); expect(k % 3, `refund invocation ${k}`).not.toBe(1); });
test('cancel', () => { const k = bump('cancel'); expect(k % 4, `cancel invocation ${k}`).toBe(0); });
EOF
mkdir -p "$out/vitest"
(cd "$work/vt" && GATE_FIXTURE_COUNTERS=$(counters vitest) node_modules/.bin/vitest run agent.test.mjs --retry 2 \
  --reporter=junit --outputFile="$out/vitest/retry-2.xml" >/dev/null 2>&1) || true
keep_log "$work/counters/vitest" "$out/vitest/retry-2"

# ---------------------------------------------------------------- DeepEval
note "deepeval: installing deepeval $DEEPEVAL_VERSION"
[ -x "$work/dvenv/bin/deepeval" ] || {
  python3 -m venv "$work/dvenv"
  "$work/dvenv/bin/python" -m pip install --quiet --disable-pip-version-check "deepeval==$DEEPEVAL_VERSION"
}
mkdir -p "$work/de"
cat >"$work/de/test_agent.py" <<'PY'
import json
import os
import pathlib

import pytest
from deepeval import assert_test
from deepeval.metrics import BaseMetric
from deepeval.test_case import LLMTestCase

RULES = {"lookup": lambda k: True, "refund": lambda k: k % 3 != 1, "cancel": lambda k: k % 4 == 0}


def bump(name):
    """Count and log this invocation of task `name`; return the count, from 1."""
    d = pathlib.Path(os.environ["GATE_FIXTURE_COUNTERS"])
    path = d / name
    k = int(path.read_text()) + 1 if path.exists() else 1
    path.write_text(str(k))
    with open(d / "invocations.jsonl", "a") as f:
        f.write(json.dumps({"task": name, "k": k}) + "\n")
    return k


class Done(BaseMetric):
    """Scores 1 when the agent said `done`: no LLM involved."""

    def __init__(self, threshold=1.0):
        self.threshold = threshold

    def measure(self, test_case, *args, **kwargs):
        self.score = 1.0 if test_case.actual_output == "done" else 0.0
        self.success = self.score >= self.threshold
        self.reason = f"output {test_case.actual_output!r}"
        return self.score

    async def a_measure(self, test_case, *args, **kwargs):
        return self.measure(test_case)

    def is_successful(self):
        return self.success

    @property
    def __name__(self):
        return "Done"


@pytest.mark.parametrize("task", ["lookup", "refund", "cancel"])
def test_agent(task):
    k = bump(task)
    out = "done" if RULES[task](k) else f"wrong (invocation {k})"
    assert_test(LLMTestCase(input=task, actual_output=out), [Done()], run_async=False)
PY
(
  cd "$work/de"
  rm -rf results
  GATE_FIXTURE_COUNTERS=$(counters deepeval) DEEPEVAL_TELEMETRY_OPT_OUT=YES DEEPEVAL_RESULTS_FOLDER="$work/de/results" \
    "$work/dvenv/bin/deepeval" test run test_agent.py --repeat 20 -- --junitxml="$out/deepeval/junit.xml" \
    -p no:cacheprovider >/dev/null 2>&1 || true
  cp results/test_run_*.json "$out/deepeval/test_run.json"
  keep_log "$work/counters/deepeval" "$out/deepeval/test_run"
)

# ---------------------------------------------------------------- Inspect AI
note "inspect: installing inspect-ai $INSPECT_VERSION"
[ -x "$work/ivenv/bin/inspect" ] || {
  python3 -m venv "$work/ivenv"
  "$work/ivenv/bin/python" -m pip install --quiet --disable-pip-version-check "inspect-ai==$INSPECT_VERSION"
}
mkdir -p "$work/insp"
cat >"$work/insp/agent_task.py" <<'PY'
import json
import math
import os
import pathlib

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, mean, scorer
from inspect_ai.solver import Generate, TaskState, solver

RULES = {"lookup": lambda k: True, "refund": lambda k: k % 3 != 1, "cancel": lambda k: k % 4 == 0}


def bump(name, epoch):
    """Count and log this invocation of sample `name`; return the count, from 1."""
    d = pathlib.Path(os.environ["GATE_FIXTURE_COUNTERS"])
    path = d / name
    k = int(path.read_text()) + 1 if path.exists() else 1
    path.write_text(str(k))
    with open(d / "invocations.jsonl", "a") as f:
        f.write(json.dumps({"task": name, "epoch": epoch, "k": k}) + "\n")
    return k


@solver
def agent():
    """The scripted agent: answers by the rule, never calls a model."""

    async def solve(state: TaskState, generate: Generate):
        k = bump(state.sample_id, state.epoch)
        if os.environ.get("GATE_FIXTURE_ERROR_ON") and state.sample_id == "refund" and k % 3 == 1:
            raise RuntimeError(f"refund invocation {k}: transport")
        state.output = ModelOutput.from_content("none", "done" if RULES[state.sample_id](k) else "wrong")
        return state

    return solve


@scorer(metrics=[accuracy()])
def done():
    async def score(state: TaskState, target: Target):
        return Score(value=CORRECT if state.output.completion == "done" else INCORRECT)

    return score


@scorer(metrics=[mean()])
def quality():
    """A numeric scorer that has no value (NaN) when the agent was wrong."""

    async def score(state: TaskState, target: Target):
        return Score(value=1.0 if state.output.completion == "done" else math.nan)

    return score


@task
def agent_eval(two_scorers: bool = False):
    samples = [Sample(id=s, input=s, target="done") for s in ["lookup", "refund", "cancel"]]
    return Task(dataset=samples, solver=agent(), scorer=[done(), quality()] if two_scorers else done())
PY
insp() { (cd "$work/insp" && "$work/ivenv/bin/inspect" eval agent_task.py --model none --max-samples 1 \
  --no-log-realtime --display none "$@" >/dev/null 2>&1); }
one_log() { ls "$1"/*."$2"; }
rm -rf "$work/logs"
(
  export INSPECT_LOG_DIR
  INSPECT_LOG_DIR="$work/logs/max" GATE_FIXTURE_COUNTERS=$(counters inspect-max) \
    insp --epochs 20 --epochs-reducer max
  cp "$(one_log "$work/logs/max" eval)" "$out/inspect/max-reducer.eval"
  keep_log "$work/counters/inspect-max" "$out/inspect/max-reducer"
  INSPECT_LOG_DIR="$work/logs/retry" GATE_FIXTURE_COUNTERS=$(counters inspect-retry) GATE_FIXTURE_ERROR_ON=1 \
    insp --epochs 6 --retry-on-error 3
  cp "$(one_log "$work/logs/retry" eval)" "$out/inspect/retry-on-error.eval"
  keep_log "$work/counters/inspect-retry" "$out/inspect/retry-on-error"
  rc=0
  INSPECT_LOG_DIR="$work/logs/abort" GATE_FIXTURE_COUNTERS=$(counters inspect-abort) GATE_FIXTURE_ERROR_ON=1 \
    insp --epochs 6 || rc=$?
  echo "$rc" >"$out/inspect/aborted.exit-code"
  cp "$(one_log "$work/logs/abort" eval)" "$out/inspect/aborted.eval"
  keep_log "$work/counters/inspect-abort" "$out/inspect/aborted"
  INSPECT_LOG_DIR="$work/logs/two" GATE_FIXTURE_COUNTERS=$(counters inspect-two) \
    insp --epochs 5 -T two_scorers=true --log-format json
  cp "$(one_log "$work/logs/two" json)" "$out/inspect/two-scorers.json"
  keep_log "$work/counters/inspect-two" "$out/inspect/two-scorers"
)
note "wrote $(find "$out" -type f | wc -l) files into tests/fixtures/evals"
