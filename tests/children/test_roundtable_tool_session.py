"""`/persona-roundtable` → the lead's one `persona_roundtable` call, on SimHost (issue 13 item 8).

The real runtime with the in-process scripted child model: the command asks the session's
lead by a user message and offers the tool; one valid call is accepted and runs Round 1,
Round 2 and the synthesis with live progress to the host (P-ROUNDTABLE-17); invalid calls
are explicit errors (P-ROUNDTABLE-10), later calls are refused (P-ROUNDTABLE-4), and a
synthesis with an empty section fails the run (P-ROUNDTABLE-9).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from persona_mind.features._children import MAX_INVALID_SELECTIONS
from persona_mind.features._roundtable_call import PRESENT_IN_FULL
from persona_mind.persona.children._roundtable import REQUEST_MARKER, SECTIONS
from persona_mind.testing import ManualClock
from persona_mind.testing._scripted import ScriptedModel
from persona_mind.testing._simhost import SimHost

QUERY = "should we split the service?"
SYNTHESIS = "\n".join(f"## {title}\n{title.lower()} text" for title, _ in SECTIONS)
PICKS = [
    {"name": "architect", "reason": "the design"},
    {"name": "test-engineer", "reason": "the proof"},
]


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def model(clock: ManualClock) -> ScriptedModel:
    return ScriptedModel(clock)


@pytest_asyncio.fixture
async def host(tmp_path: Path, clock: ManualClock, model: ScriptedModel) -> AsyncIterator[SimHost]:
    workspace = tmp_path / "workspace"
    (workspace / ".git").mkdir(parents=True)
    async with SimHost(
        agent_dir=tmp_path / "agent", cwd=workspace, clock=clock, child_backend=model
    ) as sim:
        await sim.start()
        for line in ("/persona pack install software-team", "/persona team select software-team"):
            result = await sim.command(line)
            assert result.level == "info", result.text
        yield sim


def panel(model: ScriptedModel, synthesis: str = SYNTHESIS) -> None:
    model.on(phase="round1", reply="R1-OPINION first view")
    model.on(phase="round2", reply="R2-OPINION final position")
    model.on(phase="synthesis", reply=synthesis)


async def ask(host: SimHost, query: str = QUERY) -> str:
    asked = await host.command(f"/persona-roundtable {query}")
    assert asked.level == "info", asked.text
    assert "tech-lead" in asked.text
    return await host.next_user_message()


def call(specialists: list[dict[str, str]] | None = None, query: str = QUERY) -> dict[str, Any]:
    return {"query": query, "specialists": PICKS if specialists is None else specialists}


def offered(host: SimHost) -> dict[str, Any]:
    return {t.name: t.parameters for t in host.tools}


@pytest.mark.asyncio
async def test_the_command_asks_the_lead_and_offers_the_selection_tool(host: SimHost) -> None:
    """P-ROUNDTABLE-2/-4: the lead is asked in the session; the tool's schema is the
    selection, its names exactly the team's specialists."""
    assert "persona_roundtable" not in offered(host)  # nothing asked yet
    request = await ask(host)
    assert request.startswith(REQUEST_MARKER)
    assert QUERY in request
    waiting = await host.command("/persona-roundtable status")
    assert waiting.text.startswith("Waiting for the team lead (tech-lead)")
    schema = offered(host)["persona_roundtable"]
    names = schema["properties"]["specialists"]["items"]["properties"]["name"]["enum"]
    assert sorted(names) == ["architect", "code-reviewer", "security-reviewer", "test-engineer"]


@pytest.mark.asyncio
async def test_one_valid_call_runs_the_rounds_with_live_progress(
    host: SimHost, model: ScriptedModel
) -> None:
    """P-ROUNDTABLE-7/8/14/16/17/18: no child selects; progress reaches the host for this
    call, phase by phase, with the roster's reasons and never an opinion."""
    panel(model)
    await ask(host)
    result = await host.call_tool("persona_roundtable", call())
    assert not result.is_error, result.text
    assert "\n\n" + SYNTHESIS + "\n\nDissent: " in result.text
    assert result.details["roster"] == [["architect", "the design"], ["test-engineer", "the proof"]]
    # issue 25 item 9: the user's box (details.display) has the synthesis, not the
    # instruction the lead reads in the text
    assert PRESENT_IN_FULL in result.text
    assert PRESENT_IN_FULL not in result.details["display"]
    assert "\n\n" + SYNTHESIS + "\n\nDissent: " in result.details["display"]
    kinds = [c.kind for c in model.calls]
    assert sorted(kinds) == ["round1", "round1", "round2", "round2", "synthesis"]
    assert {c.persona.name for c in model.calls if c.kind == "synthesis"} == {"tech-lead"}
    updates = host.tool_updates
    assert updates
    (call_id,) = {call_id for call_id, _, _ in updates}  # all for this one call
    assert call_id.startswith("call-")
    phases = [details["roundtable"]["phase"] for _, _, details in updates]
    firsts = [p for i, p in enumerate(phases) if i == 0 or phases[i - 1] != p]
    # the last snapshot (phase "done", final totals) may or may not beat the result
    assert firsts[:3] == ["independent", "revision", "synthesis"]
    assert firsts[3:] in ([], ["done"])
    texts = "\n".join(text for _, text, _ in updates)
    assert f"Round-table: {QUERY}" in texts
    assert "architect [running" in texts
    assert "the proof" in texts  # the reasons
    assert "Next: moderator synthesis" in texts
    assert "R1-OPINION" not in texts
    assert "R2-OPINION" not in texts


@pytest.mark.asyncio
async def test_exactly_one_call_is_accepted(host: SimHost, model: ScriptedModel) -> None:
    """P-ROUNDTABLE-4: a second call — the same turn or later — is refused, runs nothing."""
    panel(model)
    await ask(host)
    first = await host.call_tool("persona_roundtable", call())
    assert not first.is_error, first.text
    second = await host.call_tool("persona_roundtable", call())
    assert second.is_error
    assert "already accepted" in second.text
    assert [c.kind for c in model.calls].count("synthesis") == 1


@pytest.mark.asyncio
async def test_an_invalid_selection_is_an_explicit_error_and_may_be_corrected(
    host: SimHost, model: ScriptedModel
) -> None:
    """P-ROUNDTABLE-5/-10: names outside the team, missing reasons: error results; no
    child starts, nothing is guessed; the lead's corrected call is then accepted."""
    panel(model)
    await ask(host)
    bad = await host.call_tool("persona_roundtable", call([{"name": "tech-lead", "reason": "x"}]))
    assert bad.is_error
    assert "not a specialist" in bad.text
    assert f"({MAX_INVALID_SELECTIONS - 1} left)" in bad.text
    no_reason = await host.call_tool("persona_roundtable", call([{"name": "architect"}]))
    assert no_reason.is_error
    assert "schema" in no_reason.text
    assert model.calls == []
    good = await host.call_tool("persona_roundtable", call())
    assert not good.is_error, good.text


@pytest.mark.asyncio
async def test_too_many_invalid_selections_drop_the_request(
    host: SimHost, model: ScriptedModel
) -> None:
    await ask(host)
    for _ in range(MAX_INVALID_SELECTIONS):
        result = await host.call_tool("persona_roundtable", call([{"name": "zz", "reason": "x"}]))
        assert result.is_error
    assert "dropped" in result.text
    assert "persona_roundtable" not in offered(host)  # withdrawn: nothing waits for it
    assert model.calls == []


@pytest.mark.asyncio
async def test_the_tool_exists_only_while_a_request_is_open_in_this_session(
    host: SimHost,
) -> None:
    """Not offered before /persona-roundtable; a new session drops the waiting request (it
    was made in another conversation), so the new session's model is not offered it."""
    assert "persona_roundtable" not in offered(host)
    await ask(host)
    assert "persona_roundtable" in offered(host)
    await host.start("new")
    assert "persona_roundtable" not in offered(host)


@pytest.mark.asyncio
async def test_a_synthesis_with_an_empty_section_fails_the_run(
    host: SimHost, model: ScriptedModel
) -> None:
    """P-ROUNDTABLE-9: the phase fails with a clear error; nothing is presented."""
    empty = SYNTHESIS.replace("tradeoffs text", "")
    panel(model, empty)
    await ask(host)
    result = await host.call_tool("persona_roundtable", call())
    assert result.is_error
    assert "empty sections: Tradeoffs" in result.text
    assert "do not write a synthesis of your own" in result.text
    status = await host.command("/persona-roundtable status")
    assert "failed" in status.text


@pytest.mark.asyncio
async def test_the_cli_path_still_selects_by_child(tmp_path: Path) -> None:
    """Item 8 scope 4: ``run_roundtable`` without a selection keeps the child lead's JSON."""
    from persona_mind.actors import ActorSystem  # noqa: PLC0415
    from persona_mind.actors.child_runner import ChildRunner  # noqa: PLC0415
    from persona_mind.children import run_roundtable  # noqa: PLC0415
    from tests.children._helpers import team  # noqa: PLC0415

    clock = ManualClock()
    model = ScriptedModel(clock)
    model.on(phase="select", reply='{"specialists": [{"name": "critic", "reason": "risks"}]}')
    panel(model)
    async with ActorSystem(clock=clock) as system:
        runner = system.spawn(lambda: ChildRunner(model), name="runner")
        result = await run_roundtable(system, runner, team(), "Q?", "m", run_id="cli")
    assert result.roster == (("critic", "risks"),)
    assert model.calls[0].kind == "select"
    assert result.children == 4


@pytest.mark.asyncio
async def test_aborting_the_tool_call_stops_the_round_table_and_its_children(
    host: SimHost, model: ScriptedModel
) -> None:
    """Pi aborts a tool (Esc) by cancelling its request: the run is cancelled, every child
    of the phase is stopped, nothing is synthesized, and the desk admits a new run."""
    model.on(phase="round1", hang=True)
    await ask(host)
    running = asyncio.ensure_future(host.call_tool("persona_roundtable", call()))
    await model.wait_calls(len(PICKS))  # both Round 1 children started
    assert len(model.calls) == len(PICKS)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    for _ in range(500):
        status = await host.command("/persona-roundtable status")
        if "(finished)" in status.text:
            break
    assert "(finished)" in status.text
    assert "cancelled" in status.text
    assert sorted(model.cancelled) == sorted(c.request_id for c in model.calls)
    assert [c.kind for c in model.calls] == ["round1", "round1"]
