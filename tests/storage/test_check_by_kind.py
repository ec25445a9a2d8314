"""Issue 24 H1/H2 and the duplicate-id item: ``store check`` checks every file by its own
kind, the way its reader decodes it, and ``--repair`` restores the newest copy that *fully*
decodes and never calls a store that still fails to read repaired.

Each test here fails on the main of the issue: ``store check`` decoded every ``*.json`` as
a store of raw entries (H1: a bad entry passed; the repair then "restored" the corrupt
quarantined copy), decoded ``persona/store.json`` as a memory store (H2: every agent dir
with a pack was corrupt, and the repair wiped the default team and the draft records), and
passed duplicate ids.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from persona_mind.cli import main as cli_main
from persona_mind.mind import Fact, MindScope, find_project
from persona_mind.storage import FileStore, Layout, StoreTarget, backup_path

PERSONA = "official/pack/reviewer"


@pytest.fixture
def agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "agent"
    path.mkdir()
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(path))
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "proj"
    (path / ".git").mkdir(parents=True)
    return path


def _memory(agent: Path, project: Path, *argv: str) -> int:
    return cli_main(["memory", "--agent-dir", str(agent), "--cwd", str(project), *argv])


def _stm(agent: Path, project: Path) -> Path:
    return MindScope(agent, PERSONA, find_project(project)).fact_target("stm").path


def _remember(agent: Path, project: Path, *texts: str) -> Path:
    for text in texts:
        assert _memory(agent, project, "remember", "--kind", "gotcha", text) == 0
    return _stm(agent, project)


def _bad_utf8(doc: bytes) -> bytes:
    return doc.replace(b"second fact", b"second \xed\xa0\x80fact", 1)  # a lone surrogate


def _wrong_type(doc: bytes) -> bytes:
    data = json.loads(doc)
    data["entries"][-1]["recordedAt"] = "yesterday"
    return json.dumps(data, separators=(",", ":")).encode()


def _unknown_field(doc: bytes) -> bytes:
    data = json.loads(doc)
    data["entries"][-1]["colour"] = "red"
    return json.dumps(data, separators=(",", ":")).encode()


def _bad_enum(doc: bytes) -> bytes:
    return doc.replace(b'"kind":"gotcha"', b'"kind":"gotchas"', 1)


ENTRY_DAMAGE: dict[str, Callable[[bytes], bytes]] = {
    "invalid-utf8-in-entry": _bad_utf8,
    "wrong-type": _wrong_type,
    "unknown-field": _unknown_field,
    "bad-kind": _bad_enum,
}


@pytest.mark.parametrize("damage", sorted(ENTRY_DAMAGE))
def test_h1_check_fails_where_the_reader_fails_and_repair_restores_the_backup(
    agent: Path, project: Path, capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    stm = _remember(agent, project, "first fact", "second fact")
    kept = backup_path(stm).read_bytes()  # sequence 1: the first fact only
    stm.write_bytes(ENTRY_DAMAGE[damage](stm.read_bytes()))
    capsys.readouterr()

    assert _memory(agent, project, "list") != 0  # the reader refuses it …
    assert cli_main(["store", "check", str(agent)]) == 1  # … and so does the check
    assert cli_main(["store", "check", str(stm)]) == 1
    out = capsys.readouterr().out
    assert "corrupt:" in out

    assert _memory(agent, project, "remember", "a third fact") != 0  # quarantines it
    capsys.readouterr()
    assert cli_main(["store", "check", "--repair", str(agent)]) == 1  # sequence 2 is lost
    out = capsys.readouterr().out
    assert f"restored: {stm} from {stm.name}.bak (sequence 1)" in out, out
    assert "NOT RECOVERED" in out
    assert "sequence 2" in out
    assert backup_path(stm).read_bytes() == kept
    assert _memory(agent, project, "list") == 0  # the store reads again
    assert "first fact" in capsys.readouterr().out
    assert cli_main(["store", "check", str(agent)]) == 0


def test_h1_repair_never_reports_success_while_the_store_still_fails_to_read(
    agent: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With the backup damaged the same way, nothing fully decodes: the repair names the
    loss and exits 1, and what it leaves reads (empty on the next write), never corrupt."""
    stm = _remember(agent, project, "first fact", "second fact", "another")
    stm.write_bytes(_wrong_type(stm.read_bytes()))
    bak = backup_path(stm)
    bak.write_bytes(_wrong_type(bak.read_bytes()))
    assert cli_main(["store", "check", "--repair", str(stm)]) == 1
    out = capsys.readouterr().out
    assert "NOT RECOVERED" in out
    assert "ok —" not in out
    assert cli_main(["store", "check", str(agent)]) == 0  # nothing left that fails to read


def _install_team(agent: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert cli_main(["pack", "install", "software-team"]) == 0
    assert cli_main(["persona", "default", "set", "official/software-team"]) == 0
    assert cli_main(["pack", "edit", "official/software-team"]) == 0
    capsys.readouterr()
    index = agent / "persona" / "store.json"
    state = json.loads(index.read_text())
    assert state["default"] == "official/software-team"
    assert state["drafts"]
    return index


def test_h2_the_pack_store_index_is_checked_by_its_own_schema_and_never_wiped(
    agent: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = _install_team(agent, capsys)
    _remember(agent, project, "first fact")
    before = index.read_bytes()
    assert cli_main(["store", "check", str(agent)]) == 0
    out = capsys.readouterr().out
    assert "left alone:" in out
    assert "persona/official" in out
    assert "persona/drafts" in out
    assert cli_main(["store", "check", "--repair", str(agent)]) == 0
    assert index.read_bytes() == before  # the default team and the drafts are kept
    assert cli_main(["store", "check", str(index)]) == 0
    assert "pack-store index" in capsys.readouterr().out


def test_h2_a_damaged_index_is_reported_with_what_to_do_and_left_in_place(
    agent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = _install_team(agent, capsys)
    state = json.loads(index.read_text())
    state["default"] = "../../elsewhere"
    index.write_text(json.dumps(state))
    damaged = index.read_bytes()
    assert cli_main(["store", "check", str(agent)]) == 1
    out = capsys.readouterr().out
    assert "invalid:" in out
    assert "pack-store index" in out
    assert "elsewhere" in out
    assert cli_main(["store", "check", "--repair", str(agent)]) == 1
    out = capsys.readouterr().out
    assert "NOT FIXED:" in out
    assert index.read_bytes() == damaged  # never quarantined, never rewritten
    assert not list(index.parent.glob("store.json.quarantine-*"))


def test_pis_own_files_and_the_older_layout_are_left_alone_and_named(
    agent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (agent / "settings.json").write_text('{"theme": "dark"}')
    (agent / "models.json").write_text("[1, 2]")
    (agent / "pi-persona-mind" / "memory").mkdir(parents=True)
    (agent / "pi-persona-mind" / "memory" / "x.json").write_text("{not ours")
    assert cli_main(["store", "check", str(agent)]) == 0
    out = capsys.readouterr().out
    assert f"left alone: {agent / 'settings.json'} (not persona-mind's" in out
    assert f"left alone: {agent / 'pi-persona-mind'} (the older" in out


def test_a_store_of_an_unknown_kind_is_checked_untyped_and_says_so(
    agent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    odd = agent / "persona-mind" / "notes" / "odd.json"
    FileStore().mutate(StoreTarget(path=odd, entry_type=dict), lambda e: ({"a": 1},))
    assert cli_main(["store", "check", str(agent)]) == 0
    assert f"untyped: {odd}" in capsys.readouterr().out
    odd.write_bytes(odd.read_bytes().replace(b'"a"', b'"\xff"'))
    assert cli_main(["store", "check", str(agent)]) == 1  # its UTF-8 is still checked


def test_duplicate_ids_fail_the_check_and_forget_refuses_them(
    agent: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stm = _remember(agent, project, "first fact", "second fact")
    data = json.loads(stm.read_text())
    twin = dict(data["entries"][0], text="a different text under the same id")
    data["entries"].append(twin)
    stm.write_text(json.dumps(data, separators=(",", ":")))
    ident = twin["id"]
    capsys.readouterr()
    assert cli_main(["store", "check", str(agent)]) == 1
    out = capsys.readouterr().out
    assert "duplicate-ids" in out
    assert ident in out
    assert cli_main(["store", "check", "--repair", str(agent)]) == 1
    assert "NOT FIXED: duplicate-ids" in capsys.readouterr().out
    assert _memory(agent, project, "forget", ident) == 1
    err = capsys.readouterr().err
    assert "2 facts" in err
    assert "store check" in err
    rows = FileStore(Layout(agent)).read(StoreTarget(path=stm, entry_type=Fact))
    assert rows is not None
    assert [f.id for f in rows.entries].count(ident) == 2
