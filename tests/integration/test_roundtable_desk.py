"""One round-table at a time, as the RoundtableDesk's mailbox order (issue 10).

The round-table starts with ``/persona-roundtable <q>`` (a request to the session's lead)
and runs at the lead's ``persona_roundtable`` call. The second ``/persona-roundtable`` while
one runs is refused by the desk's handler from
its own state, ``status`` is answered mid-run from the desk's mailbox, and the desk is
free again once the first run ended — no flag flipped by a deferred task.
"""

from __future__ import annotations

import asyncio

import pytest

from persona_mind.persona.children._roundtable import REQUEST_MARKER, SECTIONS
from persona_mind.testing import ManualClock
from persona_mind.testing._scripted import ScriptedModel
from persona_mind.testing._simhost import SimHost
from tests.integration.conftest import bind_team


async def ask_lead(host: SimHost, query: str) -> str:
    """``/persona-roundtable <query>``: the command asks the session's lead (a user message)."""
    asked = await host.command(f"/persona-roundtable {query}")
    assert asked.level == "info", asked.text
    request = await host.next_user_message()
    assert REQUEST_MARKER in request
    assert query in request
    return request


@pytest.mark.asyncio
async def test_a_second_roundtable_is_refused_while_one_runs(
    host: SimHost, model: ScriptedModel, clock: ManualClock
) -> None:
    await bind_team(host)
    model.on(phase="round1", reply="first view", delay=60.0)  # the first run waits here
    model.on(phase="round2", reply="final position")
    model.on(phase="synthesis", reply="\n".join(f"## {t}\n{t.lower()} text" for t, _ in SECTIONS))
    await ask_lead(host, "split the service?")
    picks = {
        "query": "split the service?",
        "specialists": [{"name": "architect", "reason": "the design"}],
    }
    first = asyncio.ensure_future(host.call_tool("persona_roundtable", picks))
    for _ in range(200):
        status = await host.command("/persona-roundtable status")
        if "(running)" in status.text:
            break
    assert "(running)" in status.text
    second = await host.command("/persona-roundtable another question?")
    assert second.level == "warning"
    assert "already running" in second.text
    assert len(host.user_messages) == 1  # the refused request never reached the lead
    desk = host.runtime.roundtables
    assert desk is not None
    clock.advance(60.0)
    result = await first
    assert not result.is_error, result.text
    assert "(finished)" in (await host.command("/persona-roundtable status")).text
    kinds = [c.kind for c in model.calls]
    assert kinds.count("round1") == 1  # the refused run never started
    assert "select" not in kinds  # the session's lead selected, not a child
