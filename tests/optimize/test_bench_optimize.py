"""bench/optimize.py runs and prints the shared benchmark JSON shape (figures not judged)."""

from __future__ import annotations

import json

import pytest
from bench import optimize as bench_optimize


def test_optimize_bench_reports_ratios_against_floors(capsys: pytest.CaptureFixture[str]) -> None:
    bench_optimize.main(["--quick", "--json", "--apply-facts", "100", "--inspect-facts", "1000"])
    doc = json.loads(capsys.readouterr().out)
    rows = {r["name"]: r for r in doc["results"]}
    assert set(rows) == {"apply_4ops", "apply_4ops_10x_store", "inspect_1k", "inspect_1k_cold"}
    for row in rows.values():
        assert set(row) == {"name", "value", "unit", "floor", "ratio", "target", "ok"}
        assert row["ratio"] == pytest.approx(row["value"] / row["floor"], rel=0.05)
    assert rows["apply_4ops"]["target"] == "<= 2.0x"
    assert rows["inspect_1k"]["target"] == "<= 3.0x"
    assert rows["inspect_1k_cold"]["ok"] is None
