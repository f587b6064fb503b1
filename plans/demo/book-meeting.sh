#!/bin/sh
# A simulated tool-using agent: asked to book a meeting, it calls the calendar tool and
# reports success. On some trials (decided by the trial number) it skips the tool call and
# reports success anyway: the failure mode that only reading the state back can catch.
set -eu
here=$(dirname "$0")
trial=${GATE_TRIAL:?run me from gate}
sleep "0.0$(( 3 + trial % 5 ))"
if [ $(( (trial * 7) % 10 )) -ne 3 ]; then
  "$here/calendar.sh" book "standup-$trial"
fi
echo "Booked standup-$trial. All done!"
