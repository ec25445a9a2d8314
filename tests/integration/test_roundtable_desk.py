"""One round-table at a time, as the RoundtableDesk's mailbox order (issue 10).

The second ``/persona-roundtable`` while one runs is refused by the desk's handler from
its own state, ``status`` is answered mid-run from the desk's mailbox, and the desk is
free again once the first run ended — no flag flipped by a deferred task.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from persona_mind.runners._roundtable_logic import SECTIONS
from persona_mind.testing import ManualClock
from persona_mind.testing._scripted import ScriptedModel
from persona_mind.testing._simhost import SimHost
from tests.integration.conftest import bind_team


@pytest.mark.asyncio
async def test_a_second_roundtable_is_refused_while_one_runs(
    host: SimHost, model: ScriptedModel, clock: ManualClock
) -> None:
    await bind_team(host)
    picks = {"specialists": [{"name": "architect", "reason": "the design"}]}
    model.on(phase="select", reply=json.dumps(picks))
    model.on(phase="round1", reply="first view", delay=60.0)  # the first run waits here
    model.on(phase="round2", reply="final position")
    model.on(
        phase="synthesis", reply="\n".join(f"## {t}\n{t.lower()} text" for t, _ in SECTIONS)
    )
    first = asyncio.ensure_future(host.command("/persona-roundtable split the service?"))
    for _ in range(200):
        status = await host.command("/persona-roundtable status")
        if "(running)" in status.text:
            break
    assert "(running)" in status.text
    second = await host.command("/persona-roundtable another question?")
    assert second.level == "warning"
    assert "already running" in second.text
    desk = host.runtime.roundtables
    assert desk is not None
    clock.advance(60.0)
    result = await first
    assert result.level == "info", result.text
    assert "(finished)" in (await host.command("/persona-roundtable status")).text
    assert [c.kind for c in model.calls].count("select") == 1  # the refused run never started
