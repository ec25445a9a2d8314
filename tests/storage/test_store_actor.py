"""The Store actor and its StorePort client (M-STORE, M-OPTIMIZE-HISTORY-18)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from persona_mind.actors import ActorSystem
from persona_mind.actors.store import StoreClient, spawn_store
from persona_mind.clock import MonotonicClock
from persona_mind.errors import StaleGeneration
from persona_mind.storage import (
    CasConflict,
    CorruptStore,
    Layout,
    StorePort,
    StoreTarget,
    lock_path,
)
from persona_mind.testing import wait_all_tasks_blocked
from tests.storage.conftest import Fact


def _target(tmp_path: Path) -> StoreTarget[Fact]:
    return StoreTarget(path=Layout(tmp_path).stm("demo"), entry_type=Fact, lock="memory")


def _add(fact_id: str):  # type: ignore[no-untyped-def]
    def mutation(entries: tuple[Fact, ...]) -> tuple[Fact, ...]:
        return (*entries, Fact(id=fact_id))

    return mutation


@pytest.mark.asyncio
async def test_store_client_is_a_store_port(tmp_path: Path) -> None:
    async with ActorSystem(clock=MonotonicClock()) as system:
        client = spawn_store(system, Layout(tmp_path))
        port: StorePort = client
        target = _target(tmp_path)
        assert await port.read(target) is None
        snap = await port.mutate(target, _add("a"))
        assert snap.sequence == 1
        assert await port.read(target) == snap


@pytest.mark.asyncio
async def test_mailbox_orders_concurrent_mutations(tmp_path: Path) -> None:
    async with ActorSystem(clock=MonotonicClock()) as system:
        client = spawn_store(system, Layout(tmp_path))
        target = _target(tmp_path)
        results = await asyncio.gather(*(client.mutate(target, _add(str(i))) for i in range(40)))
        assert sorted(r.sequence for r in results) == list(range(1, 41))
        final = await client.read(target)
        assert final is not None
        assert {f.id for f in final.entries} == {str(i) for i in range(40)}


@pytest.mark.asyncio
async def test_m_optimize_history_18_stale_generation_refused_in_step(tmp_path: Path) -> None:
    async with ActorSystem(clock=MonotonicClock()) as system:
        client = spawn_store(system, Layout(tmp_path))
        system.advance_generation(5)  # the Owner's counter, which the Store reads
        target = _target(tmp_path)
        await client.mutate(target, _add("a"), generation=5)
        with pytest.raises(StaleGeneration):
            await client.mutate(target, _add("b"), generation=4)
        system.advance_generation()  # 6
        with pytest.raises(StaleGeneration):
            await client.mutate(target, _add("c"), generation=5)
        await client.mutate(target, _add("d"), generation=6)
        system.advance_generation()  # 7
        with pytest.raises(StaleGeneration):
            await client.mutate(target, _add("e"), generation=6)
        snap = await client.read(target)
        assert snap is not None
        assert [f.id for f in snap.entries] == ["a", "d"]


@pytest.mark.asyncio
async def test_aborting_mutation_reaches_caller_and_store_survives(tmp_path: Path) -> None:
    async with ActorSystem(clock=MonotonicClock()) as system:
        client = spawn_store(system, Layout(tmp_path))
        target = _target(tmp_path)
        await client.mutate(target, _add("a"))

        def abort(entries: tuple[Fact, ...]) -> tuple[Fact, ...]:
            raise ValueError("ambiguous: refuse")

        with pytest.raises(ValueError, match="ambiguous"):
            await client.mutate(target, abort)
        assert client.ref.statistics().restarts == 0
        stored = await client.read_stored(target)
        assert stored is not None
        with pytest.raises(CasConflict):
            await client.mutate(target, _add("b"), expect_fingerprint="0" * 64)
        await client.mutate(target, _add("b"), expect_fingerprint=stored.fingerprint)


@pytest.mark.asyncio
async def test_corrupt_store_is_refused_not_crashed(tmp_path: Path) -> None:
    async with ActorSystem(clock=MonotonicClock()) as system:
        client: StoreClient = spawn_store(system, Layout(tmp_path))
        target = _target(tmp_path)
        target.path.parent.mkdir(parents=True)
        target.path.write_bytes(b"{")
        with pytest.raises(CorruptStore):
            await client.read(target)
        problem = await client.repair(target)
        assert isinstance(problem, CorruptStore)
        assert problem.quarantined is not None
        assert await client.read(target) is None
        assert client.ref.statistics().restarts == 0


@pytest.mark.asyncio
async def test_lock_wait_runs_off_the_event_loop(tmp_path: Path) -> None:
    """While the Store waits on a lock held by another process, the loop keeps running."""
    from tests.storage.test_locks import holder  # noqa: PLC0415 - shared subprocess helper

    target = StoreTarget(path=tmp_path / "s.json", entry_type=Fact)
    with holder(lock_path(target.path)) as proc:
        async with ActorSystem(clock=MonotonicClock()) as system:
            client = spawn_store(system, Layout(tmp_path))
            pending = asyncio.create_task(client.mutate(target, _add("a")))
            # the loop is free: every task reaches a blocking point while the lock wait goes on
            # (were the wait on the loop, this would not return until the lock was released)
            await wait_all_tasks_blocked()
            assert not pending.done()  # still waiting for the other process's lock
            assert proc.stdin is not None
            proc.stdin.write("go\n")
            proc.stdin.flush()
            snap = await asyncio.wait_for(pending, timeout=30)
            assert snap.sequence == 1


@pytest.mark.asyncio
async def test_m_store_13_transaction_under_the_memory_lock(tmp_path: Path) -> None:
    layout = Layout(tmp_path)
    ltm = StoreTarget(path=layout.project("demo"), entry_type=Fact, lock="memory")
    stm = StoreTarget(path=layout.stm("demo"), entry_type=Fact, lock="memory")
    async with ActorSystem(clock=MonotonicClock()) as system:
        client = spawn_store(system, layout)
        system.advance_generation()  # 1
        await client.mutate(stm, _add("fact"))

        def drop(entries: tuple[Fact, ...]) -> tuple[Fact, ...]:
            return tuple(e for e in entries if e.id != "fact")

        # promotion: LTM first, then remove from STM (interruption duplicates, never loses)
        results = await client.transact([(ltm, _add("fact")), (stm, drop)], generation=1)
        assert [r.snapshot.entries for r in results] == [(Fact(id="fact"),), ()]
        with pytest.raises(StaleGeneration):
            await client.transact([(ltm, _add("late"))], generation=0)

        def abort(entries: tuple[Fact, ...]) -> tuple[Fact, ...]:
            raise ValueError("stop")

        with pytest.raises(ValueError, match="stop"):
            await client.transact([(ltm, _add("x")), (stm, abort)], generation=1)
        ltm_now = await client.read(ltm)
        assert ltm_now is not None
        assert [f.id for f in ltm_now.entries] == ["fact", "x"]  # the first step stays
