"""``persona-mind store`` subcommands."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from persona_mind.cli._storage import add_parser
from persona_mind.storage import FileStore, StoreTarget
from tests.storage.conftest import Fact


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers())
    args = parser.parse_args(argv)
    code: int = args.func(args)
    return code


def test_check_ok_corrupt_and_repair(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.json"
    FileStore().mutate(StoreTarget(path=good, entry_type=Fact), lambda e: (Fact(id="a"),))
    assert _run(["store", "check", str(good)]) == 0
    assert "sequence 1, 1 entries" in capsys.readouterr().out
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\x00\x00")
    assert _run(["store", "check", str(bad)]) == 1
    assert "nul-bytes" in capsys.readouterr().out
    assert bad.exists()  # check alone never writes
    assert _run(["store", "check", "--repair", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "moved to" in out
    assert "NOT RECOVERED" in out  # no valid copy was left: named, exit 1
    assert not bad.exists()
    assert _run(["store", "check", str(tmp_path / "missing.json")]) == 1


def test_history_list_empty_and_holder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "s.json"
    FileStore().mutate(StoreTarget(path=store, entry_type=Fact), lambda e: (Fact(id="a"),))
    assert _run(["store", "history", "list", str(store)]) == 0
    assert _run(["store", "holder", str(store)]) == 0
    assert "(mutation)" in capsys.readouterr().out


def test_check_tree_reports_then_repairs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "persona-mind"
    good = root / "memory" / "stm" / "a.json"
    FileStore().mutate(StoreTarget(path=good, entry_type=Fact), lambda e: (Fact(id="a"),))
    bad = root / "backlog" / "b.json"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"[")
    orphan = good.with_name(".a.json.0123456789ab.tmp")
    orphan.write_bytes(b"partial")
    report = FileStore().scan(root)
    assert report.ok == [good]
    assert [c.path for c in report.corrupt] == [bad]
    assert report.temps == [orphan]
    assert orphan.exists()  # scanning never writes
    assert _run(["store", "check", str(root)]) == 1
    assert "1 ok, 1 corrupt, 0 anomalies, 1 orphan temps" in capsys.readouterr().out
    assert _run(["store", "check", "--repair", str(root)]) == 1
    assert not orphan.exists()
    assert not bad.exists()
    assert _run(["store", "check", str(root)]) == 0
