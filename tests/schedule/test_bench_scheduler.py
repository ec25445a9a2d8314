"""bench/scheduler.py runs and prints the shared benchmark JSON shape (figures not judged)."""

from __future__ import annotations

import json

import pytest
from bench import scheduler as bench_scheduler


def test_scheduler_bench_reports_a_ratio_against_the_switched_off_floor(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bench_scheduler.main(["--quick", "--json", "--turns", "60"])
    doc = json.loads(capsys.readouterr().out)
    (row,) = doc["results"]
    assert set(row) == {"name", "value", "unit", "floor", "ratio", "target", "ok"}
    assert row["name"] == "session_60_turns"
    assert row["ratio"] == pytest.approx(row["value"] / row["floor"], rel=0.01)
    assert row["target"] == "<= 1.2x"
