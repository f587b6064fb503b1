#!/bin/sh
# A simulated agent for the compare demo: no network, no API key, reproducible.
# It fails $AGENT_FAIL_PCT percent of its trials (default 10). Whether trial $GATE_TRIAL
# fails on side $GATE_SIDE (head or base) is a fixed scramble of the two, so every run of the
# demo gives the same pairs, and the two sides of a pair fail independently.
set -eu
fail_pct=${AGENT_FAIL_PCT:-10}
trial=${GATE_TRIAL:?run me from gate}
side=0
[ "${GATE_SIDE:-head}" = base ] && side=1

# A fixed scramble of (trial, side) into 0..99 (multiply, xor-shift, multiply: 32-bit).
h=$(( (trial * 2654435761 + side * 2246822519) & 4294967295 ))
h=$(( ((h ^ (h >> 15)) * 2246822519) & 4294967295 ))
h=$(( ((h ^ (h >> 13)) * 3266489917) & 4294967295 ))
bucket=$(( (h ^ (h >> 16)) % 100 ))

# Pretend to think for 10-40 ms.
sleep "0.0$(( 1 + trial % 4 ))"

if [ "$bucket" -lt "$fail_pct" ]; then
  echo "trial $trial ($GATE_SIDE): the summary missed the key figure"
  exit 1
fi
echo "trial $trial ($GATE_SIDE): summary written"
