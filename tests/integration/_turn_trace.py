"""One traced turn on a real runtime: which messages each actor received for it.

Shared by the tests that pin a turn's message flow (``test_turn_hops``, ``test_owner_view``).
"""

from __future__ import annotations

import json
from pathlib import Path

from persona_mind.messages.host import BeforeAgentStart
from persona_mind.testing import ManualClock
from persona_mind.testing._simhost import SimHost


async def turn_deliveries(
    tmp_path: Path, workspace: Path, actor: str, *, whole: bool = False
) -> list[str]:
    """Remember one fact, run one ``BeforeAgentStart`` that injects it, and return the
    types of the messages delivered to ``actor`` for that turn (``whole``: for the remember
    and the turn), in order."""
    trace = tmp_path / "trace.jsonl"
    async with SimHost(
        agent_dir=tmp_path / "agent", cwd=workspace, clock=ManualClock(), trace_path=trace
    ) as host:
        await host.start()
        saved = await host.call_tool(
            "memory", {"action": "remember", "kind": "convention", "text": "Deploy on Fridays."}
        )
        assert not saved.is_error, saved.text
        injected = await host.runtime.event(
            BeforeAgentStart(prompt="when do we deploy?", system_prompt="x")
        )
        assert injected is not None
        assert any("Fridays" in section for section in injected.sections)
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    (corr,) = {e["corr"] for e in lines if e.get("type") == "BeforeAgentStart"}
    return [
        e["type"]
        for e in lines
        if (whole or e.get("corr") == corr) and e["actor"] == actor and e["ev"] == "deliver"
    ]
