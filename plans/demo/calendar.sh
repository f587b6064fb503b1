#!/bin/sh
# A tiny mock calendar service for the demo's tool-using workflow. State lives in one file
# per trial, so parallel trials never share it. Usage:
#   calendar.sh book TITLE     add a meeting
#   calendar.sh has TITLE      exit 0 iff the meeting is booked
set -eu
state_dir="${TMPDIR:-/tmp}/gate-demo-${GATE_RUN_ID:?}/${GATE_TRIAL:?}"
mkdir -p "$state_dir"
state="$state_dir/calendar.txt"
touch "$state"
case "${1:-}" in
  book) printf '%s\n' "${2:?title}" >> "$state" ;;
  has) grep -qxF "${2:?title}" "$state" ;;
  *) echo "usage: calendar.sh book|has TITLE" >&2; exit 64 ;;
esac
