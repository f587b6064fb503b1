#!/bin/sh
# Reads the calendar back: the trial passes only if the meeting really exists.
set -eu
exec "$(dirname "$0")/calendar.sh" has "standup-${GATE_TRIAL:?}"
