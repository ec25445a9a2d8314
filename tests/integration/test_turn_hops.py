"""A turn's injection reads every store it needs in one request to the Store actor.

Four tiers and the backlog used to be five hops to the Store's IO thread per turn; the
trace of one ``BeforeAgentStart`` now shows a single ``ReadMany`` (issue 10, the
``before_agent_start`` round trip through the real runtime). Offloaded blocking work (the
persona prompt, index builds) reaches the same actor as ``RunIO`` jobs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration._turn_trace import turn_deliveries


@pytest.mark.asyncio
async def test_one_store_request_per_injection(tmp_path: Path, workspace: Path) -> None:
    store_types = await turn_deliveries(tmp_path, workspace, "store")
    # the memory reads are one request; the rest are RunIO jobs (the persona prompt and the
    # tier index builds), which run on the same serial IO thread
    assert [t for t in store_types if t != "RunIO"] == ["ReadMany"]
    # the tier index is built off the loop as a RunIO job: at the remember (its update check
    # builds it, mind/_service.py updates_of) and reused by the turn, or at the turn
    assert "RunIO" in await turn_deliveries(tmp_path / "again", workspace, "store", whole=True)
