"""A turn's injection reads every store it needs in one request to the Store actor.

Four tiers and the backlog used to be five hops to the Store's IO thread per turn; the
trace of one ``BeforeAgentStart`` now shows a single ``ReadMany`` (issue 10, the
``before_agent_start`` round trip through the real runtime). Offloaded blocking work (the
persona prompt, index builds) reaches the same actor as ``RunIO`` jobs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from persona_mind.messages.host import BeforeAgentStart
from persona_mind.testing import ManualClock
from persona_mind.testing._simhost import SimHost


@pytest.mark.asyncio
async def test_one_store_request_per_injection(tmp_path: Path, workspace: Path) -> None:
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
    store_types = [
        e["type"]
        for e in lines
        if e.get("corr") == corr and e["actor"] == "store" and e["ev"] == "deliver"
    ]
    # the memory reads are one request; the rest are RunIO jobs (the persona prompt and the
    # tier index builds), which run on the same serial IO thread since issue 10 scope 4
    assert [t for t in store_types if t != "RunIO"] == ["ReadMany"]
    assert "RunIO" in store_types
