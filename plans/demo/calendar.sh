#!/bin/sh
# A tiny mock calendar service for the demo's tool-using workflow. State lives in one file
# per trial, beside the trial's result file in the run's own folder (gate-out/runs/RUN/...),
# so parallel trials never share it and nothing is left in /tmp. Usage:
#   calendar.sh book TITLE     add a meeting
#   calendar.sh has TITLE      exit 0 iff the meeting is booked (and clear the trial's state)
set -eu
state="$(dirname "${GATE_RESULT:?run me from gate}")/calendar-${GATE_TRIAL:?}.txt"
touch "$state"
case "${1:-}" in
  book) printf '%s\n' "${2:?title}" >> "$state" ;;
  has)
    found=0
    grep -qxF "${2:?title}" "$state" || found=1
    rm -f "$state"
    exit "$found"
    ;;
  *) echo "usage: calendar.sh book|has TITLE" >&2; exit 64 ;;
esac
