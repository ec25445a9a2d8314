"""bench/cli.py runs and prints the shared benchmark JSON shape (its figures are not judged)."""

from __future__ import annotations

import json
from pathlib import Path

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


def test_cli_bench_against_older_code_reports_each_row_against_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A smoke run of ``--against`` (the older code seeded on an agent dir of its own): here
    the "older" code is this tree, so the run shows the rows' shape, not a comparison."""
    src = str(Path(bench_cli.__file__).resolve().parents[1] / "src")
    assert bench_cli.main(["--json", "--samples", "1", "--facts", "5", "--against", src]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["results"]}
    for label in bench_cli.ROWS.values():
        row = rows[f"{label} (5 facts) vs the older code"]
        assert row["ratio"] == pytest.approx(row["value"] / row["floor"])
        assert row["target"] == "<= 1.2x"
