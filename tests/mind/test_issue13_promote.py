"""Issue 13, Mind item 6: promote is one Store transaction (M-FACT-17, M-STORE-13).

Owner and liveness are checked inside the locked step on the rows the Store holds then,
never on an earlier read; the LTM copy is written before the STM row is removed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from persona_mind.actors import ActorSystem
from persona_mind.actors.store import spawn_store
from persona_mind.mind import (
    Fact,
    ForeignOwner,
    InvalidArgument,
    MemoryService,
    MindScope,
    find_project,
)
from persona_mind.storage import Layout
from persona_mind.storage.port import Snapshot, StoreTarget
from persona_mind.testing import ManualClock
from tests.mind._fakestore import FakeStore
from tests.mind.conftest import ARCHITECT, REVIEWER


class RacingStore(FakeStore):
    """Runs ``race`` once, right after the first read of ``path`` (another writer's turn)."""

    def __init__(self) -> None:
        super().__init__()
        self.race: tuple[Path, Callable[[tuple[Fact, ...]], tuple[Fact, ...]]] | None = None

    async def read(self, target: StoreTarget[Any]) -> Snapshot[Any] | None:
        snap = await super().read(target)
        if self.race is not None and self.race[0] == target.path:
            _, change = self.race
            self.race = None
            await self.mutate(target, change)
        return snap


def _forget(fact_id: str) -> Callable[[tuple[Fact, ...]], tuple[Fact, ...]]:
    return lambda rows: tuple(f for f in rows if f.id != fact_id)


def _reown(fact_id: str) -> Callable[[tuple[Fact, ...]], tuple[Fact, ...]]:
    import msgspec  # noqa: PLC0415

    return lambda rows: tuple(
        msgspec.structs.replace(f, persona=REVIEWER) if f.id == fact_id else f for f in rows
    )


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("change", "error"),
    [(_forget, InvalidArgument), (_reown, ForeignOwner)],
    ids=["forgotten", "owner-changed"],
)
async def test_promote_checks_owner_and_liveness_inside_the_locked_step_M_FACT_17(
    scope: MindScope,
    change: Callable[[str], Callable[[tuple[Fact, ...]], tuple[Fact, ...]]],
    error: type[Exception],
) -> None:
    """A row forgotten or re-owned after promote's first read is never copied to LTM."""
    store = RacingStore()
    svc = MemoryService(store, ManualClock(), scope)
    stm, _ = await svc.remember("gotcha", "the CI cache is flaky")
    stm_target = scope.fact_target("stm")
    store.race = (stm_target.path, change(stm.fact.id))
    with pytest.raises(error):
        await svc.promote(stm.fact.id)
    assert store.rows(scope.fact_target("project")) == ()  # nothing written to LTM


@pytest.mark.asyncio
async def test_promote_is_one_transaction_ltm_before_stm_M_STORE_13(
    store: FakeStore, svc: MemoryService, scope: MindScope
) -> None:
    stm, _ = await svc.remember("gotcha", "the CI cache is flaky")
    store.transactions.clear()
    writes_before = len(store.writes)
    await svc.promote(stm.fact.id)
    stm_path, ltm_path = scope.fact_target("stm").path, scope.fact_target("project").path
    assert store.transactions == [(stm_path, ltm_path, stm_path)]
    assert store.writes[writes_before:] == [ltm_path, stm_path]  # LTM first, then STM


@pytest.mark.asyncio
async def test_promote_over_the_real_store_actor(tmp_path: Path) -> None:
    """The Store actor's Transact runs the steps under the memory transaction lock."""
    repo = tmp_path / "code" / "app"
    (repo / ".git").mkdir(parents=True)
    agent = tmp_path / "agent"
    scope = MindScope(agent, ARCHITECT, find_project(repo, tmp_path / "home"))
    async with ActorSystem() as system:
        client = spawn_store(system, Layout(agent))
        svc = MemoryService(client, ManualClock(), scope)
        stm, _ = await svc.remember("gotcha", "docker must be running")
        other = MemoryService(client, ManualClock(), MindScope(agent, REVIEWER, scope.project))
        with pytest.raises(ForeignOwner):
            await other.promote(stm.fact.id)
        promoted = await svc.promote(stm.fact.id)
        assert promoted.fact.derivedFrom == (stm.fact.id,)
        assert [f.id for f in await svc.list_facts("stm")] == []
        assert [f.id for f in await svc.list_facts("project")] == [promoted.fact.id]
