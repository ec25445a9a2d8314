"""The library as a mem0 user meets it (issue 25, items 2, 5 and 7; M-FACT-10, M-STM).

A blocking ``SyncMemory`` beside the async ``Memory``, flat values with ISO times, a pointer
from a promoted or superseded id to its successor, an empty recall refused, and every face's
save reply saying where the fact went and until when.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from persona_mind import Memory, SyncMemory
from persona_mind.errors import HostError
from persona_mind.mind import InvalidArgument, NotFound, where_saved
from persona_mind.testing import ManualClock

PERSONA = "official/software-team/architect"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "work" / "app"
    (root / ".git").mkdir(parents=True)
    return root


def test_sync_memory_remembers_recalls_and_closes_its_loop(tmp_path: Path, repo: Path) -> None:
    """Item 7: blocking calls over the real store; close() stops the private loop thread."""
    before = set(threading.enumerate())
    with SyncMemory(agent_dir=tmp_path / "agent", cwd=repo, clock=ManualClock()) as mem:
        found = mem.remember("we deploy on Fridays", kind="convention", tier="project")
        hits = mem.recall("deploy")
        assert [h.text for h in hits] == ["we deploy on Fridays"]  # flat
        assert hits[0].id == found.id == found.fact.id  # nested access still works
        assert found.tier == "project"
        assert found.expires_at is None
    assert set(threading.enumerate()) <= before  # the loop thread was joined
    with pytest.raises(HostError, match="closed"):
        mem.recall("deploy")


@pytest.mark.asyncio
async def test_flat_values_carry_iso_times(tmp_path: Path, repo: Path) -> None:
    """Item 7: recorded_at / expires_at are ISO 8601 UTC strings like the CLI prints."""
    clock = ManualClock()
    async with Memory(agent_dir=tmp_path / "agent", cwd=repo, clock=clock) as mem:
        found = await mem.remember("we deploy on Fridays", kind="convention")
    assert found.tier == "stm"
    assert found.recorded_at.endswith("Z")
    assert "T" in found.recorded_at
    assert found.expires_at is not None
    assert found.expires_at > found.recorded_at


@pytest.mark.asyncio
async def test_promoted_and_superseded_ids_point_at_their_successor(
    tmp_path: Path, repo: Path
) -> None:
    """Item 7: reading the old id says where the fact went, never a bare `not found`."""
    async with Memory(
        agent_dir=tmp_path / "agent", cwd=repo, persona=PERSONA, clock=ManualClock()
    ) as mem:
        stm = await mem.remember("the build needs Docker", kind="gotcha")
        promoted = await mem.promote(stm.id)
        with pytest.raises(NotFound, match=f"promoted to {promoted.id}") as err:
            await mem.read(stm.id)
        assert err.value.rule == "fact.promoted"
        newer = await mem.supersede(promoted.id, "the build needs Docker 25")
        old = await mem.read(promoted.id)
    assert old.superseded_by == newer.id
    assert old.status == "superseded"


@pytest.mark.asyncio
async def test_empty_recall_is_a_typed_refusal(tmp_path: Path, repo: Path) -> None:
    """Item 5: `recall("")` refuses with what to do instead of hits scored 0.0."""
    async with Memory(agent_dir=tmp_path / "agent", cwd=repo, clock=ManualClock()) as mem:
        await mem.remember("the build needs Docker", kind="gotcha")
        for query in ("", "   "):
            with pytest.raises(InvalidArgument, match="recall needs a query") as err:
                await mem.recall(query)
            assert err.value.rule == "query.required"


@pytest.mark.asyncio
async def test_the_shared_wording_says_tier_and_expiry(tmp_path: Path, repo: Path) -> None:
    """Item 2: one sentence for every face: where the fact went and until when."""
    async with Memory(agent_dir=tmp_path / "agent", cwd=repo, clock=ManualClock()) as mem:
        stm = await mem.remember("we deploy on Fridays", kind="convention")
        ltm = await mem.remember("tabs in Makefiles", kind="convention", tier="project")
    said = where_saved(stm.tier, stm.fact, "HINT")
    assert said == (
        f"in short-term memory (STM) of this project; expires {stm.expires_at} unless "
        "promoted (HINT)"
    )
    assert where_saved(ltm.tier, ltm.fact, "HINT") == (
        "in this project's long-term memory; kept until forgotten or superseded"
    )
