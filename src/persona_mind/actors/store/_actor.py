"""The Store actor: every durable file of its process, in mailbox order, off the event loop.

Why an actor around :class:`~persona_mind.storage.FileStore`: in-process mutations are
ordered by the mailbox (no in-process locks), and blocking IO (lock waits, fsync, rename)
runs on one :class:`~persona_mind.actors.IOThread` thread — the process's one serial
executor for blocking IO. ``RunIO`` brings the rest of the process's blocking work onto
that thread (``Runtime.offload``): the pack store's writes and reads (Persona), Mind index
builds. A job running there must never wait on the Store (it would wait on itself): an ask
to this Store made from inside one of its jobs is refused at once with
:class:`StoreReentry` instead of hanging until its timeout. A read of files inotify vouches
unchanged since the Store last read them is answered from memory without that hop
(``storage/_engine_watch.py``, issue 10).

Generations are the kernel's: a ``Mutate`` stamped with a stale generation never reaches
``receive``, and the generation the message was admitted under is handed to the engine,
which re-checks it against the runtime's current one *inside* the locked mutation step
(a session change while the write waited for its lock still refuses it).

:class:`~persona_mind.actors.store.StoreClient` (``_client.py``) is the
:class:`~persona_mind.storage.StorePort` domain code uses.

Restart contract (docs/actors.md): the Store keeps nothing in memory that the disk does
not hold; a restart rebuilds the engine and the IO thread at the next IO. The ask being
handled and the queued ones fail with ``ActorStopped``; a write that was on the IO thread
completes or not atomically (old-or-new on disk), so the caller re-reads before retrying.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, assert_never, cast

from persona_mind.actors import Actor, ActorRef, ActorSystem, IOThread, RestartPolicy
from persona_mind.actors.store._client import (
    _ON_IO_THREAD,
    IOJobFailed,
    MutationAborted,
    StoreClient,
)
from persona_mind.errors import PersonaMindError
from persona_mind.messages.store import (
    Mutate,
    Read,
    ReadMany,
    ReadStored,
    Repair,
    RunIO,
    StoreMsg,
    Transact,
    WithEngine,
)

if TYPE_CHECKING:
    from persona_mind.storage import FileStore, FileSystem, Layout, Snapshot
    from persona_mind.storage._engine_watch import FreshReads
    from persona_mind.storage.port import StoreTarget

__all__ = ("StoreActor", "spawn_store")

R = TypeVar("R")


class StoreActor(Actor[StoreMsg]):
    """Owns a FileStore and a IOThread; see the module doc.

    Both are built when the first IO message arrives, not at spawn: a runtime starts (and a
    Pi session gets its tools) without importing the storage engine (portalocker and its
    metadata lookup) or starting an IO thread. ``layout`` may be a
    :class:`~persona_mind.storage.Layout` or the agent directory to build it from.
    """

    def __init__(
        self,
        layout: Layout | Path | None,
        *,
        fs: FileSystem | None = None,
        lock_timeout: float = 30.0,
        fresh_reads: bool = True,
    ) -> None:
        self._layout = layout
        self._fs = fs
        self._fresh_reads = fresh_reads
        self._lock_timeout = lock_timeout
        self._engine: FileStore | None = None
        self.bridge: IOThread | None = None
        self._fresh: FreshReads | None = None

    @property
    def engine(self) -> FileStore:
        """The storage engine, built on first use (see the class doc)."""
        if self._engine is None:
            from persona_mind.storage import FileStore, Layout  # noqa: PLC0415 - at first IO

            layout = Layout(self._layout) if isinstance(self._layout, Path) else self._layout
            system = self.system
            engine = FileStore(
                layout,
                fs=self._fs,
                lock_timeout=self._lock_timeout,
                current_generation=lambda: system.generation,
            )
            engine.wall = self.clock.wall
            self._engine = engine
            if self._fs is None and self._fresh_reads:  # the kernel's events: real files only
                from persona_mind.storage._engine_watch import FreshReads  # noqa: PLC0415

                self._fresh = FreshReads(layout.agent_dir if layout is not None else None)
        return self._engine

    def _io(self) -> IOThread:
        if self.bridge is None:
            self.bridge = IOThread(f"{self.name}-io")
        return self.bridge

    async def on_stop(self) -> None:
        if self.bridge is not None:
            bridge, self.bridge = self.bridge, None
            if self._fresh is not None:  # closing an inotify instance waits in the kernel
                fresh, self._fresh = self._fresh, None
                await bridge.call(fresh.close)
            await bridge.aclose()

    async def receive(self, message: StoreMsg) -> object:
        engine, bridge = self.engine, self._io()  # built here, on the loop, never on the thread
        on_thread = self._on_thread
        match message:
            case Read(target=target):
                return (await self._read(engine, bridge, (target,)))[0]
            case ReadMany(targets=targets):
                return await self._read(engine, bridge, targets)
            case ReadStored(target=target):
                return await bridge.call(on_thread, engine.read_stored, target)
            case Repair(target=target):
                return await bridge.call(on_thread, engine.repair, target)
            case Mutate():
                return await bridge.call(on_thread, self._mutate, message, self.admitted)
            case Transact():
                return await bridge.call(on_thread, self._transact, message, self.admitted)
            case WithEngine():
                return await bridge.call(on_thread, self._with_engine, message)
            case RunIO():
                return await bridge.call(on_thread, self._run_io, message)
            case _:
                assert_never(message)

    def _on_thread(self, fn: Callable[..., R], *args: object) -> R:
        """Run ``fn`` on the IO thread marked as this Store's (see :class:`StoreReentry`)."""
        token = _ON_IO_THREAD.set(self.ref)
        try:
            return fn(*args)
        finally:
            _ON_IO_THREAD.reset(token)

    def _run_io(self, message: RunIO) -> object:
        try:
            return message.work()
        except PersonaMindError:
            raise  # a domain refusal goes back to the asker as it is
        except Exception as exc:  # the job's own failure (an OSError, a bug): not a Store crash
            raise IOJobFailed(message.purpose, exc) from exc

    async def _read(
        self, engine: FileStore, bridge: IOThread, targets: Sequence[StoreTarget[Any]]
    ) -> tuple[Snapshot[Any] | None, ...]:
        """The snapshots, from memory while inotify vouches nothing changed (issue 10: a
        turn's injection then costs no hop to the IO thread), else read on the IO thread."""
        fresh = self._fresh
        if fresh is None:
            return await bridge.call(
                self._on_thread, lambda: tuple(engine.read(t) for t in targets)
            )
        from persona_mind.storage._engine_watch import MISS  # noqa: PLC0415 - loaded with it

        found = fresh.lookup(targets)
        todo = [t for t, snap in zip(targets, found, strict=True) if snap is MISS]
        if todo:
            ticket = fresh.ticket(todo)

            def work() -> tuple[Any, tuple[Snapshot[Any] | None, ...]]:
                watched = fresh.watch(todo)  # before the read: a write after it is an event
                return watched, tuple(engine.read(t) for t in todo)

            watched, snaps = await bridge.call(self._on_thread, work)
            fresh.admit(ticket, watched, todo, snaps)
            read = iter(snaps)
            found = [next(read) if snap is MISS else snap for snap in found]
        return cast("tuple[Snapshot[Any] | None, ...]", tuple(found))

    def _with_engine(self, message: WithEngine) -> object:
        try:
            return message.step(self.engine)
        except PersonaMindError:
            raise
        except Exception as exc:  # the step's own failure: not a Store crash
            raise MutationAborted(exc) from exc

    def _mutate(self, message: Mutate, generation: int) -> object:
        try:
            return self.engine.mutate_stored(
                message.target,
                message.mutation,
                generation=generation,
                expect_fingerprint=message.expect_fingerprint,
                purpose=message.purpose,
            )
        except PersonaMindError:
            raise
        except Exception as exc:  # the caller's mutation aborted: not a Store crash
            raise MutationAborted(exc) from exc

    def _transact(self, message: Transact, generation: int) -> object:
        try:
            return self.engine.transact(
                message.steps, generation=generation, purpose=message.purpose
            )
        except PersonaMindError:
            raise
        except Exception as exc:  # a step's mutation aborted: not a Store crash
            raise MutationAborted(exc) from exc


def spawn_store(
    system: ActorSystem,
    layout: Layout | Path | None,
    *,
    name: str = "store",
    fs: FileSystem | None = None,
    lock_timeout: float = 30.0,
    restart: RestartPolicy | None = None,
    fresh_reads: bool = True,
) -> StoreClient:
    """Spawn the Store actor and return its StorePort client.

    ``layout`` may be the agent directory (a ``Path``): its Layout is built at first IO.
    ``fresh_reads=False``: no inotify watch vouches for unchanged stores, every read takes
    the hop to the IO thread — for a process that reads each store once and exits (a CLI
    command), where the watch never serves a read and closing it waits a kernel grace
    period (10–15 ms).
    """
    ref: ActorRef[StoreMsg] = system.spawn(
        lambda: StoreActor(layout, fs=fs, lock_timeout=lock_timeout, fresh_reads=fresh_reads),
        name=name,
        restart=restart or RestartPolicy(max_restarts=3, within=5.0),
    )
    return StoreClient(ref)
