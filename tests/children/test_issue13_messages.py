"""Issue 13, Persona item 13: the five user-facing messages that read wrong."""

from __future__ import annotations

import pytest

from persona_mind.actors import ActorSystem
from persona_mind.actors.roundtable import run_roundtable
from persona_mind.child_errors import RoundtableQueryEmpty
from persona_mind.children import ChildUsage, RequesterNotActive
from persona_mind.cli import build_parser
from persona_mind.persona import PersonaNotFound, Resolver, Workspace
from persona_mind.persona.children._consult import resolve_consultant
from persona_mind.persona.children._progress import RoundtableTracker, render_progress
from tests.children._helpers import team
from tests.persona._wiring import pack_store

TEAM = team()


def test_failed_child_before_spawn_never_reads_one_of_zero_finished() -> None:
    """A round-table whose first child fails before any event said "1/0 children finished"."""
    tracker = RoundtableTracker("Q?", "lead", 0.0)
    tracker.child_done("lead", ChildUsage(), ok=False)
    tracker.end("failed", 1.0, error="spawn failed")
    text = render_progress(tracker.snapshot(1.0))
    assert "1/1 children finished" in text
    assert "1/0" not in text


def test_consult_without_active_persona_names_no_empty_persona() -> None:
    """P-CONSULT-3: with no active persona the refusal says so, never "persona ''"."""
    with pytest.raises(RequesterNotActive) as caught:
        resolve_consultant(TEAM, requester="", active=None, consultant="critic")
    text = str(caught.value)
    assert "''" not in text
    assert "no persona is active" in text
    assert "/persona use" in text


@pytest.mark.asyncio
@pytest.mark.parametrize("query", ["", "   ", "\n\t"])
async def test_empty_roundtable_query_is_refused_before_any_child(query: str) -> None:
    """An empty round-table query is a typed refusal; nothing is spawned."""
    async with ActorSystem() as system:
        before = {s.name for s in system.statistics()}
        with pytest.raises(RoundtableQueryEmpty, match="query is empty"):
            await run_roundtable(system, None, TEAM, query, "m")  # type: ignore[arg-type]
        assert {s.name for s in system.statistics()} == before


def test_resolve_outside_a_session_speaks_of_no_session(tmp_path: object) -> None:
    """`persona-mind persona resolve` runs outside a session: no "this session's" wording."""
    from pathlib import Path  # noqa: PLC0415

    from persona_mind.testing._packs import write_pack  # noqa: PLC0415

    base = Path(str(tmp_path))
    write_pack(base / "agent" / "persona" / "custom" / "demo")
    store = pack_store(base / "agent")
    pack = store.load(store.resolve("demo"))
    ws = Workspace(base)
    lead = pack.personas[0].name
    prompt = Resolver().resolve(pack, lead, ws).system_prompt
    assert "## Pack references" in prompt
    assert "this session" not in prompt
    with pytest.raises(PersonaNotFound) as caught:
        Resolver().resolve(pack, "nobody", ws)
    assert "this session" not in str(caught.value)
    assert lead in str(caught.value)


def test_pack_verb_help_reads_as_english() -> None:
    """`persona-mind pack --help` read "status a persona pack"."""
    import contextlib  # noqa: PLC0415
    import io  # noqa: PLC0415

    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        build_parser().parse_args(["pack", "--help"])
    text = out.getvalue()
    assert "status a persona pack" not in text
    assert "cancel a persona pack" not in text
    assert "show a pack's state" in text
