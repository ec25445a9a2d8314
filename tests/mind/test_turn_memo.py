"""What a turn reuses from the last one never outlives a write (issue 24 item 6).

An injection reuses each tier's index when the store's snapshot is unchanged
(``IndexCache.cached``, a plain call before the coroutine path) and its tiers, targets and
store paths while the service's scope is the same (``StoreAccess._turn_targets``).  Both
must give way at once: a fact remembered between two turns is in the very next block, in
whichever tier it lands, and a service whose scope changed reads the new scope's stores.
"""

from __future__ import annotations

import pytest

from persona_mind.mind import MemoryService, MindScope, ProjectRef
from persona_mind.mind._model import Tier
from persona_mind.testing import ManualClock
from tests.mind._fakestore import FakeStore

PROMPT = "why does the parser retry fail on a cold cache"


@pytest.mark.asyncio
@pytest.mark.parametrize("tier", ["persona", "shared", "project", "stm"])
async def test_a_remember_between_two_turns_is_in_the_next_block(
    svc: MemoryService, tier: Tier
) -> None:
    await svc.remember("note", "The parser retries three times on a cold cache", tier=tier)
    first = await svc.injection(PROMPT)
    assert "three times" in first.text
    assert (await svc.injection(PROMPT)).text == first.text  # warm: the indexes reused
    await svc.remember("gotcha", "A cold cache makes the parser retry fail on schema7", tier=tier)
    second = await svc.injection(PROMPT)
    assert "schema7" in second.text, second.text
    assert "three times" in second.text


@pytest.mark.asyncio
async def test_a_forget_between_two_turns_leaves_the_next_block(svc: MemoryService) -> None:
    found, _ = await svc.remember(
        "note", "The parser retries three times on a cold cache", tier="project"
    )
    assert "three times" in (await svc.injection(PROMPT)).text
    await svc.forget(found.fact.id)
    assert "three times" not in (await svc.injection(PROMPT)).text


@pytest.mark.asyncio
async def test_a_new_scope_reads_its_own_stores(
    svc: MemoryService, store: FakeStore, clock: ManualClock, scope: MindScope
) -> None:
    await svc.remember("note", "The parser retries three times on a cold cache", tier="project")
    assert "three times" in (await svc.injection(PROMPT)).text
    other = MindScope(scope.agent_dir, scope.persona, ProjectRef(str(scope.agent_dir / "other")))
    svc.scope = other  # what the turn reads follows the scope, not the last turn's memo
    assert "three times" not in (await svc.injection(PROMPT)).text
    await svc.remember("note", "The other parser retries once on a cold cache", tier="project")
    assert "retries once" in (await svc.injection(PROMPT)).text


@pytest.mark.asyncio
async def test_a_superseded_fact_shows_its_new_words_in_the_next_block(svc: MemoryService) -> None:
    """The entry lines are memoised per index: a supersede between two turns (an index
    brought up to date incrementally) shows the new words, never the memoised line."""
    found, _ = await svc.remember(
        "note", "The parser retries three times on a cold cache", tier="project"
    )
    for _ in range(2):  # the line is memoised by the first turn and reused by the second
        assert "three times" in (await svc.injection(PROMPT)).text
    await svc.supersede(found.fact.id, "The parser retries five times on a cold cache")
    text = (await svc.injection(PROMPT)).text
    assert "five times" in text
    assert "three times" not in text


@pytest.mark.asyncio
async def test_a_re_recorded_fact_shows_its_new_origin_in_the_next_block(
    svc: MemoryService,
) -> None:
    """A re-record keeps the fact's id and may change its row (here the origin of words first
    recorded as ``unknown``): the next block shows the row as it is now, not the line
    memoised for that id."""
    words = "The parser retries three times on a cold cache"
    found, _ = await svc.remember("note", words, tier="project")
    for _ in range(2):
        assert "[from tool output" not in (await svc.injection(PROMPT)).text
    again, created = await svc.remember(
        "note", words, tier="project", origin="tool-output", confirmed=True
    )
    assert (again.fact.id, created) == (found.fact.id, False)
    text = (await svc.injection(PROMPT)).text
    assert "[from tool output, confirmed] The parser retries three times" in text
