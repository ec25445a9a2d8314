"""bench/recall.py runs on the bundled synthetic set and skips cleanly without a dataset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench import recall


def test_recall_harness_on_synthetic_set(capsys: pytest.CaptureFixture[str]) -> None:
    assert recall.main(["--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    rows = {r["name"]: r for r in doc["results"]}
    for budget in (1000, 2400, 4000):
        for mode in ("seed caps", "budget only"):
            rec = rows[f"recall@{budget} ({mode})"]
            assert 0.0 <= rec["value"] <= 1.0
            assert rows[f"tokens@{budget} ({mode})"]["value"] <= budget
    # lexical ranking beats recency on the synthetic set at the seed's budget
    assert rows["recall@2400 (budget only)"]["value"] > rows["recall@2400 (budget only)"]["floor"]


def test_recall_harness_skips_missing_dataset(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert recall.main([str(tmp_path / "absent.json"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["results"] == []
    assert "not found" in doc["skipped"]


def test_malformed_dataset_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"sessions": [], "questions": []}')
    with pytest.raises(ValueError, match="no questions"):
        recall.load(bad)
