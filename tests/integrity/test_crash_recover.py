"""Writers (plain, index=True, write_schema=True, zpa.write) SIGKILLed at 20 seeded
points: every reader recovers every complete record of what they left, then a torn tail
at the exact end of the valid data, and recover() finds that end (crash_harness.py; a
longer run: docs/sanitizers-and-fuzzing.md)."""

from __future__ import annotations

from crash_harness import crash_and_recover, seeded_kills
from support.engines import engine

engine("pyarrow")


def test_every_reader_recovers_every_complete_record_of_killed_writers() -> None:
    kills = seeded_kills(20, seed=20260522)
    outcomes = crash_and_recover(kills)
    assert len(outcomes) == 20
    assert sum("torn at" in outcome for outcome in outcomes) >= 8, outcomes      # tears, not only clean ends
