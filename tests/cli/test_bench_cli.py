"""bench/cli.py runs and prints the shared benchmark JSON shape (its figures are not judged)."""

from __future__ import annotations

import json

import pytest
from bench import cli as bench_cli


def test_cli_bench_reports_each_command_against_the_floor_and_its_baseline(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert bench_cli.main(["--json", "--samples", "1", "--facts", "20"]) == 0
    doc = json.loads(capsys.readouterr().out)
    rows = {r["name"]: r for r in doc["results"]}
    floor = rows["python -c 'import persona_mind' (floor)"]["value"]
    for key, label in bench_cli.ROWS.items():
        row = rows[f"{label} (20 facts)"]
        assert set(row) == {"name", "value", "unit", "floor", "ratio", "target", "ok"}
        assert row["unit"] == "ms"
        assert row["floor"] == floor
        assert row["ratio"] == pytest.approx(row["value"] / floor)
        limit = bench_cli.TARGET * bench_cli.BASELINE[key]
        assert row["target"].startswith(f"<= {limit:.2f}x")
        assert row["ok"] == (row["ratio"] <= limit)
