#!/bin/sh
# A simulated agent for the demo plan: no network, no API key, reproducible.
# Whether trial $GATE_TRIAL succeeds is derived from the trial number, so every run of the
# demo gives the same ledger counts. Usage: agent.sh FAILURE_PERCENT
#
# It reports what a real harness would in $GATE_RESULT: cost, tokens, and how many internal
# attempts (its own tool-call retries) it needed.
set -eu
fail_pct=${1:?usage: agent.sh FAILURE_PERCENT}
trial=${GATE_TRIAL:?run me from gate}

# A fixed scramble of the trial number into 0..99 (a multiplicative hash), so failures are
# spread out rather than bunched at the start.
bucket=$(( (trial * 37 + 11) % 100 ))
# Internal attempts: every fifth trial needed one internal retry before its answer.
attempts=1
[ $(( trial % 5 )) -eq 0 ] && attempts=2
tokens=$(( 900 + (trial * 53) % 400 ))

# Pretend to think for 20-80 ms.
sleep "0.0$(( 2 + trial % 7 ))"

if [ "$bucket" -lt "$fail_pct" ]; then
  echo "trial $trial: the summary missed the key figure"
  printf '{"pass": false, "tokens": %d, "cost": 0.0%02d, "attempts": %d}\n' "$tokens" $(( tokens / 100 )) "$attempts" > "$GATE_RESULT"
  exit 1
fi
echo "trial $trial: summary written"
printf '{"pass": true, "tokens": %d, "cost": 0.0%02d, "attempts": %d}\n' "$tokens" $(( tokens / 100 )) "$attempts" > "$GATE_RESULT"
