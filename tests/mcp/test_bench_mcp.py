"""bench/mcp.py runs and prints the shared benchmark JSON shape (its figures are not judged)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("mcp", reason="the MCP server is the optional [mcp] extra (in [test])")

from bench import mcp as bench_mcp


def test_mcp_bench_reports_a_ratio_against_the_library_floor(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert bench_mcp.main(["--quick", "--json", "--facts", "30"]) == 0
    doc = json.loads(capsys.readouterr().out)
    rows = {r["name"]: r for r in doc["results"]}
    trip = rows["mcp recall round trip (30 facts)"]
    assert set(trip) == {"name", "value", "unit", "floor", "ratio", "target", "ok"}
    assert trip["unit"] == "ms"
    assert trip["floor"] == rows["library recall (30 facts)"]["value"]
    assert trip["ratio"] == pytest.approx(trip["value"] / trip["floor"])
    assert trip["target"] == "<= 3x"
    assert trip["ok"] == (trip["ratio"] <= 3.0)
