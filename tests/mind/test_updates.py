"""Update awareness (issue 23 item 2): which stored fact a new one updates, the newer one
shown first with the older marked, and the contradiction named at ``remember``."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from persona_mind.cli import main
from persona_mind.mind import (
    Fact,
    FactIndex,
    InjectionInput,
    MemoryService,
    NotesLedger,
    OwnerKey,
    plan_injection,
)
from persona_mind.mind._tools import MindTools
from persona_mind.mind.facts._updates import is_update, terms_of, updated_by


def _fact(fid: str, text: str, at: float, kind: str = "note") -> Fact:
    return Fact(id=fid, kind=kind, text=text, recordedAt=at, lastSeenAt=at)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("older", "newer", "expected"),
    [
        ("The API server listens on port 8080.", "The API server listens on port 9090.", True),
        (
            "Deploys go out on Fridays after the freeze.",
            "Deploys go out on Tuesdays after the freeze.",
            True,
        ),
        ("The build uses Python 3.11 and uv.", "The build uses Python 3.12 and uv.", True),
        # the same subject, a second fact about it: not an update
        (
            "The API server listens on port 8080.",
            "The API server is written in Go with chi routing.",
            False,
        ),
        # an exact re-record, or a pure extension: nothing changed
        ("The API server listens on port 8080.", "The API server listens on port 8080.", False),
        (
            "Tests run with pytest.",
            "Tests run with pytest, in parallel, under coverage, on CI.",
            False,
        ),
        # unrelated
        ("The API server listens on port 8080.", "Release notes live in CHANGELOG.md.", False),
    ],
)
def test_is_update(older: str, newer: str, expected: bool) -> None:
    assert is_update(terms_of(newer), terms_of(older)) is expected


def test_updated_by_compares_one_kind_and_active_rows_only() -> None:
    new = _fact("m_new", "The API server listens on port 9090.", 3.0)
    rows = [
        _fact("m_old", "The API server listens on port 8080.", 1.0),
        _fact("m_inv", "The API server listens on port 8081.", 1.0, kind="invariant"),
        new,
    ]
    assert [f.id for f in updated_by(new, rows)] == ["m_old"]


def test_the_block_shows_the_newer_fact_first_and_marks_the_older() -> None:
    """The older fact matches the prompt's value, so by score alone it ranks first."""
    old = _fact("m_" + "a" * 16, "The staging API listens on port 8080 behind nginx.", 1.0)
    new = _fact("m_" + "b" * 16, "The staging API listens on port 9090 behind nginx.", 2.0)
    other = _fact("m_" + "c" * 16, "Staging deploys need the VPN.", 1.5)
    plan = plan_injection(
        InjectionInput(
            prompt="is the staging API still on port 8080?",
            now=10.0,
            indexes={"project": FactIndex.build([old, new, other])},
        )
    )
    ids = [item.id for item in plan.items]
    assert ids.index(new.id) < ids.index(old.id)
    old_line = next(line for line in plan.text.splitlines() if "8080" in line)
    new_line = next(line for line in plan.text.splitlines() if "9090" in line)
    assert "(earlier)" in old_line
    assert "(earlier)" not in new_line


def test_an_updated_index_compares_its_window_afresh() -> None:
    """The update pairs of a window are memoised per index (issue 24 item 6): the same index
    plans the same block again, and the index a write makes holds no stale pair."""
    old = _fact("m_" + "a" * 16, "The staging API listens on port 8080 behind nginx.", 1.0)
    new = _fact("m_" + "b" * 16, "The staging API listens on port 9090 behind nginx.", 2.0)
    other = _fact("m_" + "c" * 16, "Staging deploys need the VPN.", 1.5)

    def block(index: FactIndex) -> str:
        data = InjectionInput(prompt="staging API port 8080", now=10.0, indexes={"project": index})
        return plan_injection(data).text

    index = FactIndex.build([old, new, other])
    first = block(index)
    assert "(earlier)" in first
    assert block(index) == first
    # the newer fact rewritten into a second fact about the API: no longer an update
    changed = msgspec.structs.replace(new, text="The staging API is written in Go with chi.")
    later = index.updated([old, changed, other])
    assert later is not None
    assert "(earlier)" not in block(later)
    # and back: the index after that write pairs them again
    again = later.updated([old, new, other])
    assert again is not None
    assert "(earlier)" in block(again)


def test_no_mark_without_an_update() -> None:
    a = _fact("m_" + "a" * 16, "The staging API listens on port 8080.", 1.0)
    b = _fact("m_" + "b" * 16, "The staging database is Postgres 16.", 2.0)
    plan = plan_injection(
        InjectionInput(prompt="staging", now=10.0, indexes={"project": FactIndex.build([a, b])})
    )
    assert len(plan.items) == 2
    assert "(earlier)" not in plan.text


def test_remember_names_the_fact_it_may_update(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "work" / "app"
    (root / ".git").mkdir(parents=True)
    base = ["memory", "--agent-dir", str(tmp_path / "agent"), "--cwd", str(root)]
    assert (
        main(
            [
                *base,
                "remember",
                "The API server listens on port 8080",
                "--tier",
                "project",
                "--json",
            ]
        )
        == 0
    )
    first = json.loads(capsys.readouterr().out)
    assert first["mayUpdate"] == []  # the first fact updates nothing
    old = first["fact"]
    assert (
        main([*base, "remember", "The API server listens on port 9090", "--tier", "project"]) == 0
    )
    text = capsys.readouterr().out
    assert f"This may update {old['id']}" in text
    assert f"persona-mind memory supersede {old['id']}" in text
    assert main([*base, "remember", "Release notes live in CHANGELOG.md", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["mayUpdate"] == []
    # nothing was superseded by itself: both facts are live
    assert main([*base, "list", "--json"]) == 0
    texts = {f["text"] for f in json.loads(capsys.readouterr().out)["facts"]}
    assert {"The API server listens on port 8080", "The API server listens on port 9090"} <= texts


@pytest.mark.asyncio
async def test_the_memory_tool_card_offers_supersede(svc: MemoryService) -> None:
    """Pi's and MCP's memory tool: the card names the likely contradicted fact and the
    supersede call, and supersedes nothing by itself."""
    t = MindTools(svc, ledger=NotesLedger(OwnerKey("pi", "s1", "/tmp/s1.jsonl")))
    args = {"action": "remember", "kind": "convention", "tier": "project"}
    first = await t.call("memory", {**args, "text": "Deploys go out on Fridays after the freeze"})
    old_id = first.details["id"]
    second = await t.call("memory", {**args, "text": "Deploys go out on Tuesdays after the freeze"})
    assert second.details["mayUpdate"] == [old_id]
    text = second.text
    assert f"This may update {old_id}" in text
    assert f'"action": "supersede", "id": "{old_id}"' in text
    assert len(await svc.list_facts("project")) == 2
