"""Consolidation in a simulated session on the real runtime (issue 11).

The memory tool stages, ``/mind optimize apply`` commits, history and undo work, a review
runs a worker child through the runtime's ChildRunner and records its proposal card in the
session first, and a new session discards the plans of the old one (M-OPTIMIZE-MANUAL-39).
"""

from __future__ import annotations

import asyncio
import json

import pytest

from persona_mind.messages.host import DisplayMessage
from persona_mind.testing._scripted import ScriptedModel
from persona_mind.testing._simhost import SimHost
from tests.integration.conftest import bind_team

LONG = " before every push, and keep the integration suite green for each release"


async def _two_facts(host: SimHost) -> list[str]:
    await bind_team(host)
    await host.command("/persona use architect")
    ids = []
    for text in (f"lint with ruff{LONG}", f"run ruff to lint{LONG}"):
        saved = await host.call_tool(
            "memory", {"action": "remember", "kind": "convention", "text": text, "tier": "stm"}
        )
        assert not saved.is_error, saved.text
        ids.append(saved.details["id"])
    return ids


@pytest.mark.asyncio
async def test_stage_by_tool_apply_history_undo_by_command(host: SimHost) -> None:
    ids = await _two_facts(host)
    page = await host.call_tool("memory", {"action": "inspect", "tier": "stm"})
    assert sorted(page.details["ids"]) == sorted(ids)
    staged = await host.call_tool(
        "memory",
        {"action": "stage", "tier": "stm", "operations": [{"sources": ids, "text": "Lint: ruff"}]},
    )
    assert not staged.is_error, staged.text
    applied = await host.command(f"/mind optimize apply {staged.details['plan']}")
    assert applied.level == "info", applied.text
    history = await host.command("/mind optimize history stm")
    receipt = applied.text.split("receipt ")[1].split()[0]
    assert receipt in history.text
    undone = await host.command(f"/mind optimize undo {receipt}")
    assert undone.level == "info", undone.text
    listed = await host.command("/mind list stm")
    assert "Lint: ruff" not in listed.text
    assert "lint with ruff" in listed.text


@pytest.mark.asyncio
async def test_a_new_session_discards_staged_plans_M_OPTIMIZE_MANUAL_39(host: SimHost) -> None:
    ids = await _two_facts(host)
    staged = await host.call_tool(
        "memory",
        {"action": "stage", "tier": "stm", "operations": [{"sources": ids, "text": "Lint: ruff"}]},
    )
    assert not staged.is_error, staged.text
    await host.start("new")
    await host.command("/persona team select software-team")
    await host.command("/persona use architect")
    late = await host.command(f"/mind optimize apply {staged.details['plan']}")
    assert late.level == "error"
    assert "plan.unknown" in late.text


def _await_display(host: SimHost) -> asyncio.Event:
    """An event set when the runtime displays a card (the review's detached report)."""
    shown = asyncio.Event()
    plain = host.display

    async def display(message: DisplayMessage) -> None:
        await plain(message)
        shown.set()

    host.display = display  # type: ignore[method-assign]
    return shown


@pytest.mark.asyncio
async def test_review_answers_at_acceptance_and_the_report_follows_as_a_card(
    host: SimHost, model: ScriptedModel
) -> None:
    """M-OPTIMIZE-BATCH-8/9/10: accepted reply + toast first; the report card later."""
    ids = await _two_facts(host)
    answer = {"operations": [{"sources": ids, "text": f"Lint with ruff{LONG}."}]}
    model.on(phase="worker", reply=json.dumps(answer))
    shown = _await_display(host)
    result = await host.command("/mind optimize stm")
    assert result.level == "info", result.text
    assert "accepted: stm" in result.text
    assert "one bounded window per tier" in result.text
    assert "stm applied" not in result.text  # the command does not wait for the report
    assert any("accepted: stm" in text for _, text in host.notifications)  # the toast
    await asyncio.wait_for(shown.wait(), timeout=30)
    (card,) = [d for d in host.displayed if d.kind == "persona-mind-report"]
    assert "stm applied" in card.title
    assert f"Lint with ruff{LONG}." in card.body
    assert "undo with:" in card.body
    (call,) = [c for c in model.calls if c.kind == "worker"]
    assert call.model == host.model
    reports = [e.data for e in host.session.branch if e.custom_type == "persona-mind-report"]
    kinds = [d.get("kind") if isinstance(d, dict) else None for d in reports]
    assert kinds[-2] == "persona-mind-optimize-proposal"  # recorded before the report
    assert [i for i, _ in reports[-2]["before"]] == ids
    assert "stm applied" in reports[-1]["text"]


@pytest.mark.asyncio
async def test_a_review_refused_at_acceptance_starts_nothing(
    host: SimHost, model: ScriptedModel
) -> None:
    """M-OPTIMIZE-BATCH-29: ``shared`` is refused by the command itself, no worker, no toast."""
    await _two_facts(host)
    result = await host.command("/mind optimize shared")
    assert result.level == "error"
    assert "optimize inspect shared" in result.text
    assert not [c for c in model.calls if c.kind == "worker"]
    assert not any("accepted" in text for _, text in host.notifications)


@pytest.mark.asyncio
async def test_local_work_shows_one_mind_activity_row_without_text_M_ACTIVITY_1_4_6(
    host: SimHost,
) -> None:
    ids = await _two_facts(host)
    assert "persona-mind-activity" not in host.status
    await host.call_tool("memory", {"action": "inspect", "tier": "stm"})
    assert host.status["persona-mind-activity"] == "Mind activity: stm inspect done"
    staged = await host.call_tool(
        "memory",
        {"action": "stage", "tier": "stm", "operations": [{"sources": ids, "text": "Lint: ruff"}]},
    )
    assert host.status["persona-mind-activity"] == "Mind activity: stm stage staged"
    await host.command(f"/mind optimize apply {staged.details['plan']}")
    row = host.status["persona-mind-activity"]
    assert row == "Mind activity: stm apply done"
    assert "ruff" not in row


@pytest.mark.asyncio
async def test_the_demo_section_consolidates_and_undoes(host: SimHost) -> None:
    from persona_mind.cli._demo_optimize import optimize_section  # noqa: PLC0415

    await bind_team(host)
    await host.command("/persona use architect")
    said: list[str] = []
    await optimize_section(host, said.append)
    text = "\n".join(said)
    assert "Applied consolidation in stm" in text
    assert "Undid consolidation in stm" in text
    listed = await host.command("/mind list stm")
    assert "We deploy every Friday" in listed.text
    assert "Deploys happen every Friday" not in listed.text


@pytest.mark.asyncio
async def test_a_review_runs_in_the_background_and_a_new_session_cancels_it(
    host: SimHost, model: ScriptedModel
) -> None:
    """M-OPTIMIZE-BATCH-20/-28: other commands are answered meanwhile; /new leaves no report."""
    await _two_facts(host)
    before = (await host.command("/mind list stm")).text
    model.on(phase="worker", hang=True)
    accepted = await host.command("/mind optimize stm")
    assert "accepted" in accepted.text
    await model.wait_for(lambda m: any(c.kind == "worker" for c in m.calls))
    status = await host.command("/mind status")  # the Companion is not blocked
    assert "Mind status" in status.text
    old_session = host.session
    await host.start("new")
    await model.wait_for(lambda m: bool(m.cancelled))
    assert any(c.kind == "worker" for c in model.calls)
    assert model.cancelled
    await host.command("/persona team select software-team")
    await host.command("/persona use architect")
    assert (await host.command("/mind list stm")).text == before
    late = [
        e
        for e in (*old_session.branch, *host.session.branch)
        if e.custom_type == "persona-mind-report" and "optimize" in json.dumps(e.data)
    ]
    assert late == []  # no stale report, no proposal card
    assert not [d for d in host.displayed if d.kind == "persona-mind-report"]
