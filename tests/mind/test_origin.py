"""Issue 27 item 1 (M-TRUST-*): every writer stamps where a record's words came from, old
stores read as ``unknown``, lineage keeps the origin, and every face shows it.

Each test fails on the main of the issue: no writer set ``origin``, so every row read as
``unknown`` and nothing displayed it.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from persona_mind import Memory
from persona_mind.cli import main as cli_main
from persona_mind.messages.host import Input, ToolCall
from persona_mind.messages.memory import Origin
from persona_mind.mind import (
    Fact,
    InjectionInput,
    LegacyImport,
    MemoryService,
    MindScope,
    find_project,
    plan_injection,
)
from persona_mind.mind.facts._rules import row_key
from persona_mind.mind.inject._lines import origin_tag
from persona_mind.mind.optimize._stage import apply_rows, build_replacements, parse_operations
from persona_mind.mind.recall._retrieval import FactIndex
from persona_mind.testing import ManualClock
from tests.mind._fakestore import FakeStore
from tests.mind.conftest import ARCHITECT
from tests.mind.test_migrate import legacy, run, write
from tests.mind.test_session import session, start_event

# -- each writer ---------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_deterministic_capture_records_origin_user(
    store: FakeStore, clock: ManualClock, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    s = session(store, clock, tmp_path)
    s.start(start_event(repo), persona=ARCHITECT, generation=1)
    out = await s.on_input(Input(text="Remember that the staging DB runs on port 5433."))
    assert out.captured is not None
    assert out.captured.fact.origin == "user"
    assert not out.captured.fact.confirmed


@pytest.mark.asyncio
async def test_the_models_tool_call_records_origin_model_and_an_mcp_call_mcp(
    store: FakeStore, clock: ManualClock, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    s = session(store, clock, tmp_path)
    s.start(start_event(repo), persona=ARCHITECT, generation=1)
    args = {"action": "remember", "kind": "gotcha", "text": "the cache dir is per user"}
    res = await s.on_tool(ToolCall(call_id="c1", name="memory", arguments=args))
    assert not res.is_error, res.text
    assert res.details["origin"] == "model"
    args2 = {**args, "text": "the cache dir is shared"}
    res2 = await s.on_tool(ToolCall(call_id="c2", name="memory", arguments=args2), origin="mcp")
    assert res2.details["origin"] == "mcp"
    sup = await s.on_tool(
        ToolCall(
            call_id="c3",
            name="memory",
            arguments={"action": "supersede", "id": res2.details["id"], "text": "cache: shared"},
        )
    )
    assert not sup.is_error, sup.text
    assert s.service is not None
    assert (await s.service.read(sup.details["id"])).fact.origin == "model"


def _cli(agent: Path, repo: Path, *argv: str) -> int:
    return cli_main(["memory", "--agent-dir", str(agent), "--cwd", str(repo), *argv])


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    return root


def _json(capsys: pytest.CaptureFixture[str]) -> Any:
    return json.loads(capsys.readouterr().out)


def test_cli_library_and_import_writers_and_their_display(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, repo: Path
) -> None:
    agent = tmp_path / "agent"
    assert _cli(agent, repo, "remember", "--kind", "gotcha", "--json", "from the cli") == 0
    cli_id = _json(capsys)["fact"]["id"]

    async def library() -> dict[str, str]:
        async with Memory(agent_dir=agent, cwd=repo, clock=ManualClock()) as memory:
            lib = await memory.remember("from the library", kind="gotcha")
            assert lib.fact.origin == "library"
            line = json.dumps({"v": 1, "kind": "note", "text": "from an import"})
            outcome = await memory.import_lines([line])
            assert outcome.imported == 1
            return {f.fact.text: f.fact.origin for f in await memory.list()}

    listed = asyncio.run(library())
    assert listed == {
        "from the cli": "cli",
        "from the library": "library",
        "from an import": "import",
    }
    # display: list and read, text and --json
    assert _cli(agent, repo, "list", "--json") == 0
    facts = {f["text"]: (f["origin"], f["confirmed"]) for f in _json(capsys)["facts"]}
    assert facts["from the cli"] == ("cli", False)
    assert _cli(agent, repo, "list") == 0
    text = capsys.readouterr().out
    assert f"{cli_id}] from the cli  (from the CLI)" in text
    assert _cli(agent, repo, "read", cli_id) == 0
    assert "origin: the CLI" in capsys.readouterr().out
    assert _cli(agent, repo, "read", "--json", cli_id) == 0
    assert _json(capsys)["fact"]["origin"] == "cli"
    # a CLI supersede is the CLI's words
    assert _cli(agent, repo, "supersede", "--json", cli_id, "from the cli, reworded") == 0
    assert _json(capsys)["fact"]["origin"] == "cli"


@pytest.mark.asyncio
async def test_legacy_migration_records_origin_import(svc: MemoryService, store: FakeStore) -> None:
    write(legacy(svc) / "memory/ltm/_shared.json", [{"kind": "note", "text": "old shared"}])
    await run(LegacyImport(svc))
    rows = store.rows(svc.scope.fact_target("shared"))
    assert [(f.text, f.origin) for f in rows] == [("old shared", "import")]


# -- old stores ----------------------------------------------------------------------------


def test_a_store_written_without_origin_reads_unknown_and_passes_store_check(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, repo: Path
) -> None:
    agent = tmp_path / "agent"
    assert _cli(agent, repo, "remember", "--kind", "gotcha", "an old fact") == 0
    assert _cli(agent, repo, "remember", "--kind", "gotcha", "a new fact") == 0
    capsys.readouterr()
    path = MindScope(agent, None, find_project(repo)).fact_target("stm").path
    doc = json.loads(path.read_bytes())
    old = doc["entries"][0]
    del old["origin"]  # the row as a build before origins wrote it
    assert "confirmed" not in old  # a default is not written (omit_defaults)
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert cli_main(["store", "check", str(agent)]) == 0
    capsys.readouterr()
    assert _cli(agent, repo, "list", "--json") == 0
    origins = {f["text"]: f["origin"] for f in _json(capsys)["facts"]}
    assert origins == {"an old fact": "unknown", "a new fact": "cli"}


# -- lineage -------------------------------------------------------------------------------


async def _confirmed(svc: MemoryService, text: str, origin: Origin) -> str:
    found, _ = await svc.remember("gotcha", text, origin=origin, confirmed=True)
    return found.fact.id


@pytest.mark.asyncio
async def test_promote_and_supersede_keep_origin_and_confirmed(svc: MemoryService) -> None:
    fid = await _confirmed(svc, "the build cache lives in .cache", "tool-output")
    promoted = await svc.promote(fid, to="project")
    assert (promoted.fact.origin, promoted.fact.confirmed) == ("tool-output", True)
    # a supersede without an origin (a lineage step) keeps both ...
    old, new = await svc.supersede(promoted.fact.id, "the build cache lives in .cache/build")
    assert (new.fact.origin, new.fact.confirmed) == ("tool-output", True)
    assert (old.fact.origin, old.fact.confirmed) == ("tool-output", True)  # retired row
    # ... a writer's supersede is that writer's words; the retired row keeps its own
    old2, newer = await svc.supersede(new.fact.id, "cache: .cache/build", origin="model")
    assert (newer.fact.origin, newer.fact.confirmed) == ("model", False)
    assert (old2.fact.origin, old2.fact.confirmed) == ("tool-output", True)
    assert newer.fact.derivedFrom[0] == new.fact.id


@pytest.mark.asyncio
async def test_an_exact_rerecord_keeps_the_first_origin(svc: MemoryService) -> None:
    await svc.remember("gotcha", "ports are fixed", origin="user")
    again, created = await svc.remember("gotcha", "ports are fixed", origin="model")
    assert not created
    assert again.fact.origin == "user"


NOW = 1_000_000.0


def _row(i: int, origin: Origin, *, confirmed: bool = False) -> Fact:
    return Fact(
        id=f"m_{i}",
        kind="convention",
        text=f"fact number {i}",
        persona=ARCHITECT,
        recordedAt=NOW - 100,
        lastSeenAt=NOW - 100,
        origin=origin,
        confirmed=confirmed,
    )


@pytest.mark.parametrize(
    ("origins", "writer", "expect"),
    [
        ((("peer", True), ("peer", True)), "consolidation", ("peer", True)),
        ((("user", False), ("user", False)), "review", ("user", False)),
        ((("peer", True), ("peer", False)), "consolidation", ("peer", False)),
        ((("user", False), ("model", False)), "consolidation", ("consolidation", False)),
        ((("user", False), ("tool-output", True)), "review", ("review", False)),
    ],
)
def test_consolidation_keeps_an_agreed_origin_else_records_the_writer(
    origins: tuple[tuple[Origin, bool], ...], writer: Origin, expect: tuple[str, bool]
) -> None:
    rows = tuple(_row(i, o, confirmed=c) for i, (o, c) in enumerate(origins))
    ops = parse_operations([{"sources": [r.id for r in rows], "text": "the merged fact"}])
    (rep,) = build_replacements(
        rows, ops, tier="project", persona=ARCHITECT, now=NOW, writer=writer
    )
    assert (rep.new.origin, rep.new.confirmed) == expect
    assert set(rep.new.derivedFrom) >= {r.id for r in rows}
    applied = apply_rows(rows, [rep], now=NOW)
    kept = {f.id: f.origin for f in applied if f.status == "superseded"}
    assert kept == {r.id: r.origin for r in rows}  # sources keep theirs


# -- injection -----------------------------------------------------------------------------


def test_only_untrusted_origins_get_a_label_on_the_injected_line() -> None:
    assert origin_tag(_row(1, "tool-output", confirmed=True)) == "[from tool output, confirmed] "
    assert origin_tag(_row(1, "peer", confirmed=True)) == "[from peer answer, confirmed] "
    assert origin_tag(_row(1, "report")) == "[from relayed report] "
    for trusted in ("user", "model", "cli", "mcp", "library", "import", "unknown"):
        assert origin_tag(_row(1, trusted)) == ""


def test_the_injected_block_labels_a_confirmed_tool_output_fact() -> None:
    tool = Fact(
        id=row_key("persona", "x", None),
        kind="note",
        text="deploys go through the staging gate",
        recordedAt=NOW - 10,
        lastSeenAt=NOW - 10,
        origin="tool-output",
        confirmed=True,
    )
    mine = Fact(
        id=row_key("persona", "y", None),
        kind="note",
        text="deploys happen on fridays",
        recordedAt=NOW - 10,
        lastSeenAt=NOW - 10,
        origin="user",
    )
    plan = plan_injection(
        InjectionInput(
            prompt="how do deploys work",
            now=NOW,
            indexes={"persona": FactIndex.build((tool, mine))},
        )
    )
    lines = plan.text.splitlines()
    assert any(
        ln.endswith("[from tool output, confirmed] deploys go through the staging gate")
        for ln in lines
    ), plan.text
    assert any(ln.endswith(" deploys happen on fridays") and "[from" not in ln for ln in lines), (
        plan.text
    )
