"""A stand-in for an agent eval suite, for the example workflow .github/workflows/gate-ingest.yml.

Each matrix job runs this suite once, with retries off, and uploads its JUnit file; one job
then judges all runs with `gate ingest`. A real suite calls the agent here; this one decides
from the run number (`RUN`, set by the workflow), so the verdict is known in advance:
`test_refund` fails in run 3 of every 5, `test_lookup` never fails.
"""

import os

RUN = int(os.environ.get("RUN", "1"))


def test_lookup():
    assert True


def test_refund():
    assert RUN % 5 != 3, f"refund answered wrongly in run {RUN}"
