"""Issue 13, Mind item 7: the Mind session in the running product (SimHost, real actors).

Rebinding on every owner change (M-SCOPE-3/21), the settings contribution (M-SCOPE-11),
the companion checks (M-COMPANION-4/7), STM attribution (M-FACT-3), one disclosure toast
per turn and the hint inside the budget (M-UI-4), and the lifetime note budget after a
resume (M-SESSION-NOTES-4).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from persona_mind.messages.owner import SetWorkspace
from persona_mind.testing import ManualClock
from persona_mind.testing._simhost import SimHost


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "workspace"
    (ws / ".git").mkdir(parents=True)
    return ws


@pytest_asyncio.fixture
async def host(tmp_path: Path, workspace: Path) -> AsyncIterator[SimHost]:
    async with SimHost(agent_dir=tmp_path / "agent", cwd=workspace, clock=ManualClock()) as sim:
        await sim.start()
        yield sim


async def _persona(host: SimHost, name: str = "architect") -> None:
    for command in (
        "/persona pack install software-team",
        "/persona team select software-team",
        f"/persona use {name}",
    ):
        result = await host.command(command)
        assert result.level == "info", result.text


async def _remember(host: SimHost, text: str, **extra: str) -> str:
    result = await host.call_tool(
        "memory", {"action": "remember", "kind": "note", "text": text, **extra}
    )
    assert not result.is_error, result.text
    return result.text


@pytest.mark.asyncio
async def test_workspace_change_rebinds_mind_M_SCOPE_3_21(host: SimHost, tmp_path: Path) -> None:
    """A workspace change bumps the generation: writes go on, to the new project."""
    await _persona(host)
    await _remember(host, "the first repo uses make")
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    await host.runtime.owner_ref.ask(SetWorkspace(cwd=str(other)))
    await _remember(host, "the second repo uses just")
    listed = await host.call_tool("memory", {"action": "recall", "query": "repo uses"})
    assert "the second repo uses just" in listed.text
    assert "the first repo uses make" not in listed.text  # another project's STM


@pytest.mark.asyncio
async def test_generation_only_change_rebinds_mind_M_SCOPE_21(host: SimHost) -> None:
    """An owner state that differs only by generation still rebinds Mind's service."""
    import msgspec  # noqa: PLC0415

    from persona_mind.messages.owner import OwnerChanged  # noqa: PLC0415
    from tests._features import details  # noqa: PLC0415

    await _persona(host)
    owner = await host.runtime.owner()
    mind = await details(host.runtime, "mind")
    assert mind["active"]
    assert mind["generation"] == owner.generation
    newer = msgspec.structs.replace(owner, generation=owner.generation + 1)
    host.runtime.companion.tell(OwnerChanged(state=newer))  # in mailbox order, before the ask
    mind = await details(host.runtime, "mind")
    assert mind["active"]
    assert mind["generation"] == newer.generation


@pytest.mark.asyncio
async def test_injected_stm_lines_say_whose_observation_M_FACT_3(host: SimHost) -> None:
    await _persona(host)
    await _remember(host, "the staging database is read-only")
    turn = await host.turn("what about the staging database?")
    lines = turn.system_prompt.splitlines()
    line = next(x for x in lines if "staging database" in x)
    heading = next(x for x in reversed(lines[: lines.index(line)]) if x.startswith("## "))
    # the heading names the tier and the observer; the tag is the id the tools take
    assert heading == "## STM observed by official/software-team/architect (expires)"
    assert line.startswith("m_")


@pytest.mark.asyncio
async def test_lifetime_budget_counts_every_branch_after_resume_M_SESSION_NOTES_4(
    tmp_path: Path, workspace: Path
) -> None:
    """4 note events, 3 on the branch resumed in a new process: the budget counts 4."""
    import dataclasses  # noqa: PLC0415
    import json  # noqa: PLC0415

    from persona_mind.mind.notes._ledger import NOTE_ENTRY_TYPE  # noqa: PLC0415
    from tests._features import details  # noqa: PLC0415

    agent = tmp_path / "agent"
    async with SimHost(agent_dir=agent, cwd=workspace, clock=ManualClock()) as first:
        await first.start()
        await _persona(first)
        for i in range(4):
            await _remember(first, f"session note {i}", tier="session")
        session = first.session
    notes = [e for e in session.branch if e.custom_type == NOTE_ENTRY_TYPE]
    assert len(notes) == 4
    path = Path(session.session_file)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [{"type": "session", "id": session.session_id}]
    lines += [
        {"type": "custom", "customType": e.custom_type, "data": e.data, "id": f"e{i}"}
        for i, e in enumerate(session.branch)
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    cut = session.branch.index(notes[-1])  # the 4th note lives on a branch left behind
    async with SimHost(agent_dir=agent, cwd=workspace, clock=ManualClock()) as second:
        second.session = dataclasses.replace(session, branch=session.branch[:cut])
        second.sessions = {session.session_id: second.session}
        await second.start("resume")
        result = await second.command("/persona use architect")
        assert result.level == "info", result.text
        mind = await details(second.runtime, "mind")
        assert mind["notes_closed"] is None
        assert mind["notes"] == 3  # the active branch's notes
        assert mind["lifetime_events"] == 4  # every event of the session


@pytest.mark.asyncio
async def test_damaged_session_file_closes_notes_M_SESSION_NOTES_14(
    host: SimHost,
) -> None:
    """A note line that is not JSON (not the torn last line) fails closed, never counts 0."""
    from persona_mind.mind.notes._ledger import NOTE_ENTRY_TYPE  # noqa: PLC0415

    path = Path(host.session.session_file)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'{{"type": "custom", "customType": "{NOTE_ENTRY_TYPE}", oops\n{{}}\n')
    await host.start("resume")
    await _persona(host)
    saved = await host.call_tool(
        "memory", {"action": "remember", "kind": "note", "text": "x", "tier": "session"}
    )
    assert saved.is_error
    assert "notes.session_file" in saved.text


@pytest.mark.asyncio
async def test_mind_settings_are_collected_by_persona_status_M_SCOPE_11(host: SimHost) -> None:
    await _persona(host)
    await host.command("/mind capture off")
    status = await host.command("/persona status")
    assert "Companion settings:" in status.text
    assert "mind.capture='off'" in status.text
    assert "mind.nudge=True" in status.text


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("change", "reason"),
    [("version", "incompatible"), ("enabled", "disabled")],
)
async def test_companion_checks_can_fail_in_the_running_product_M_COMPANION_4_7(
    tmp_path: Path, workspace: Path, change: str, reason: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An old Persona contract, or a Persona half that could not open the session, refuses Mind."""
    from persona_mind.features import PersonaFeature  # noqa: PLC0415
    from tests._features import details  # noqa: PLC0415

    if change == "version":
        monkeypatch.setattr(PersonaFeature, "companion_version", (1, 17, 4))
    else:
        # the Persona half cannot open the session (e.g. its store stays locked)
        from persona_mind.errors import PersonaError  # noqa: PLC0415
        from persona_mind.persona import PersonaService  # noqa: PLC0415

        async def fail(*_a: object, **_k: object) -> None:
            raise PersonaError("the pack store stayed locked by another process")

        monkeypatch.setattr(PersonaService, "open", fail)
    async with SimHost(agent_dir=tmp_path / "agent", cwd=workspace, clock=ManualClock()) as sim:
        await sim.start()
        if change == "enabled":
            assert (await details(sim.runtime, "persona"))["disabled"] is not None
        assert "memory" not in [t.name for t in sim.tools]
        status = await sim.command("/mind status")
        assert reason in status.text
