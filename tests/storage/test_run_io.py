"""One serial blocking-IO executor: ``RunIO`` jobs run on the Store actor's IO thread.

Issue 10 scope 4: ``Runtime.offload`` (pack-store IO, Mind index builds) sends its work to
the Store, so it shares one thread, in mailbox order, with the memory stores. A job that
asks its own Store would wait on itself; it is refused at once with ``StoreReentry``.
"""

from __future__ import annotations

import asyncio
import errno
import json
import threading
from pathlib import Path

import pytest

from persona_mind.actors import ActorSystem
from persona_mind.actors.store import StoreClient, StoreReentry, spawn_store
from persona_mind.clock import MonotonicClock
from persona_mind.persona import PackNotFound
from persona_mind.storage import FileStore, Layout, StoreTarget
from persona_mind.testing import ManualClock
from persona_mind.testing._simhost import SimHost
from tests.storage.conftest import Fact


def _target(tmp_path: Path) -> StoreTarget[Fact]:
    return StoreTarget(path=Layout(tmp_path).stm("demo"), entry_type=Fact, lock="memory")


def _add(fact_id: str):  # type: ignore[no-untyped-def]
    def mutation(entries: tuple[Fact, ...]) -> tuple[Fact, ...]:
        return (*entries, Fact(id=fact_id))

    return mutation


@pytest.mark.asyncio
async def test_a_job_runs_on_the_store_io_thread_in_mailbox_order(tmp_path: Path) -> None:
    """The job's thread is the one the engine's own steps run on, never the loop's, and a
    job queued after a mutation sees that mutation on disk (one serial executor)."""
    async with ActorSystem(clock=MonotonicClock()) as system:
        client = spawn_store(system, Layout(tmp_path))
        target = _target(tmp_path)

        def engine_thread(_engine: FileStore) -> int:
            return threading.get_ident()

        def job() -> tuple[int, bool]:
            return threading.get_ident(), target.path.exists()

        mutated, (job_thread, seen) = await asyncio.gather(
            client.mutate(target, _add("a")), client.run_io(job)
        )
        assert mutated.sequence == 1
        assert seen  # queued behind the mutation, so it ran after it
        assert job_thread == await client.with_engine(engine_thread)
        assert job_thread != threading.get_ident()


@pytest.mark.asyncio
async def test_a_job_that_asks_its_own_store_is_refused_not_deadlocked(tmp_path: Path) -> None:
    """A job on the IO thread that reaches the Store through the loop would queue behind
    itself; the ask fails at once with StoreReentry, and the Store keeps serving."""
    async with ActorSystem(clock=MonotonicClock()) as system:
        client = spawn_store(system, Layout(tmp_path))
        target = _target(tmp_path)
        loop = asyncio.get_running_loop()

        def reentrant() -> object:
            # without the guard this waits on a Store that is busy running this very job
            return asyncio.run_coroutine_threadsafe(client.read(target), loop).result(timeout=60)

        with pytest.raises(StoreReentry, match="deadlock"):
            await client.run_io(reentrant)
        assert await client.read(target) is None  # still serving, from the loop
        assert client.ref.statistics().restarts == 0


@pytest.mark.asyncio
async def test_a_job_that_offloads_again_is_refused(tmp_path: Path) -> None:
    """Offloading from inside an offloaded job is the same self-wait, refused the same way."""
    async with ActorSystem(clock=MonotonicClock()) as system:
        client = spawn_store(system, Layout(tmp_path))
        loop = asyncio.get_running_loop()

        def nested() -> object:
            inner = client.run_io(lambda: 1)
            return asyncio.run_coroutine_threadsafe(inner, loop).result(timeout=60)

        with pytest.raises(StoreReentry):
            await client.run_io(nested)
        assert await client.run_io(lambda: 2) == 2


@pytest.mark.asyncio
async def test_a_failing_job_raises_its_own_error_and_the_store_lives(tmp_path: Path) -> None:
    """An OSError or a domain refusal from a job reaches the caller as itself; neither is a
    Store crash."""
    async with ActorSystem(clock=MonotonicClock()) as system:
        client: StoreClient = spawn_store(system, Layout(tmp_path))

        def disk_full() -> None:
            raise OSError(errno.ENOSPC, "No space left on device")

        def refused() -> None:
            raise PackNotFound("no installed pack is called 'x'")

        with pytest.raises(OSError, match="No space") as info:
            await client.run_io(disk_full)
        assert info.value.errno == errno.ENOSPC
        with pytest.raises(PackNotFound):
            await client.run_io(refused)
        assert client.ref.statistics().restarts == 0
        assert await client.run_io(lambda: "ok") == "ok"


@pytest.mark.asyncio
async def test_runtime_offload_is_the_store_and_persona_writes_run_there(tmp_path: Path) -> None:
    """Through the real Runtime: ``offload`` runs on the Store's IO thread (no persona-io
    thread of its own), and a pack install made by a command lands on disk stamped with the
    runtime's injected ManualClock (no clock read in persona/)."""
    clock = ManualClock(wall=1_800_000_000.0)  # 2027-01-15T08:00:00Z
    workspace = tmp_path / "ws"
    workspace.mkdir()
    async with SimHost(agent_dir=tmp_path / "agent", cwd=workspace, clock=clock) as host:
        await host.start()
        runtime = host.runtime
        store = runtime.store
        assert isinstance(store, StoreClient)
        offloaded = await runtime.offload(threading.get_ident)
        assert offloaded == await store.with_engine(lambda _engine: threading.get_ident())
        assert not any(t.name == "persona-io" for t in threading.enumerate())
        result = await host.command("/persona pack install software-team")
        assert result.level != "error", result.text
    state = json.loads((tmp_path / "agent" / "persona" / "store.json").read_text())
    record = state["packs"]["official/software-team"]
    assert record["updatedAt"] == "2027-01-15T08:00:00Z"
