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

:class:`StoreClient` is the :class:`~persona_mind.storage.StorePort` domain code uses. A
mutation function that raises (a deliberate abort) comes back to the caller as that same
exception, never as a Store crash: the Store refuses with :class:`MutationAborted` and the
client re-raises its cause. An engine error (``StorageError``) is a refusal as it is.

Restart contract (docs/actors.md): the Store keeps nothing in memory that the disk does
not hold; a restart rebuilds the engine and the IO thread at the next IO. The ask being
handled and the queued ones fail with ``ActorStopped``; a write that was on the IO thread
completes or not atomically (old-or-new on disk), so the caller re-reads before retrying.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, assert_never, cast

from persona_mind.actors import Actor, ActorRef, ActorSystem, IOThread, RestartPolicy
from persona_mind.errors import PersonaMindError, StorageError
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
    from persona_mind.storage import FileStore, FileSystem, Layout, Mutation, Snapshot, Stored
    from persona_mind.storage._engine_watch import FreshReads
    from persona_mind.storage.port import StoreTarget

__all__ = (
    "DEFAULT_STORE_ASK_TIMEOUT",
    "IOJobFailed",
    "MutationAborted",
    "StoreActor",
    "StoreClient",
    "StoreReentry",
    "spawn_store",
)

E = TypeVar("E")
R = TypeVar("R")

DEFAULT_STORE_ASK_TIMEOUT = 90.0
"""Longer than the 30 s lock wait plus the write itself, so a slow lock is a LockTimeout."""


class MutationAborted(StorageError):
    """A mutation function raised: nothing was written; ``__cause__`` is its exception."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(f"the mutation aborted ({type(cause).__name__}: {cause}); nothing written")
        self.__cause__ = cause


class IOJobFailed(StorageError):
    """A ``RunIO`` job raised: the Store is unaffected; ``__cause__`` is the job's exception
    (the client re-raises that cause, so ``offload`` callers see the job's own error)."""

    def __init__(self, purpose: str, cause: BaseException) -> None:
        super().__init__(f"the {purpose} raised {type(cause).__name__}: {cause}")
        self.__cause__ = cause


class StoreReentry(StorageError):
    """A job on the Store's IO thread asked the same Store, which would wait on itself.

    The Store runs one job at a time; the ask would queue behind the job that is waiting
    for it. Do the file work inside the job itself, or return and ask afterwards.
    """

    def __init__(self, actor: str, message_type: str) -> None:
        super().__init__(
            f"{message_type} was asked of {actor!r} from a job running on {actor!r}'s own IO "
            "thread, which would deadlock; do that work inside the job (it already runs on "
            "the IO thread) or after it returns"
        )


_ON_IO_THREAD: ContextVar[ActorRef[Any] | None] = ContextVar("store_io_thread", default=None)
"""The Store whose IO thread runs the current code (carried into coroutines the job submits
to the loop, since ``run_coroutine_threadsafe`` copies the submitting thread's context)."""


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
    ) -> None:
        self._layout = layout
        self._fs = fs
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
            if self._fs is None:  # the kernel's events describe only the real file system
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


class StoreClient:
    """The :class:`~persona_mind.storage.StorePort` backed by a :class:`StoreActor`.

    An explicit ``generation=`` stamps the request's envelope with it (work admitted
    earlier); otherwise the kernel stamps the caller's own admitted generation.
    """

    def __init__(self, ref: ActorRef[StoreMsg], *, timeout: float = DEFAULT_STORE_ASK_TIMEOUT):
        self._ref = ref
        self.timeout = timeout

    @property
    def ref(self) -> ActorRef[StoreMsg]:
        """The Store actor; refuses (:class:`StoreReentry`) when read from one of its jobs.

        Every request goes through here, so a job on the Store's IO thread that reaches
        its own Store (through ``run_coroutine_threadsafe`` or any thread-to-loop call,
        which carry the job's context) fails at once instead of deadlocking.
        """
        if _ON_IO_THREAD.get() is self._ref:
            raise StoreReentry(self._ref.name, "a request")
        return self._ref

    async def run_io(self, work: Callable[[], R], purpose: str = "io job") -> R:
        """Run blocking ``work`` on the Store's IO thread (see ``RunIO``); its result, or the
        exception it raised."""
        try:
            result = await self.ref.ask(RunIO(work=work, purpose=purpose), timeout=self.timeout)
        except IOJobFailed as failed:
            raise _cause(failed) from None
        return cast("R", result)

    def submit_io(self, work: Callable[[], R], purpose: str = "io job") -> asyncio.Future[R]:
        """Queue blocking ``work`` as a ``RunIO`` job and return its outcome's future at once.

        The job is the Store's from then on: it runs, and the future settles, whether or not
        the caller still waits (a Mind index build cut off by a turn's 750 ms deadline is
        kept for the next turn; an old index is taken apart on the IO thread with nobody
        waiting). The future carries the job's own exception, as :meth:`run_io` raises it."""
        reply = self.ref.request(RunIO(work=work, purpose=purpose), timeout=self.timeout)
        out: asyncio.Future[R] = asyncio.get_running_loop().create_future()

        def settle(done: asyncio.Future[object]) -> None:
            if out.done():
                if not done.cancelled():
                    done.exception()  # retrieved: the submitter cancelled its future
            elif done.cancelled():
                out.cancel()
            elif (error := done.exception()) is not None:
                out.set_exception(_cause(error) if isinstance(error, IOJobFailed) else error)
            else:
                out.set_result(cast("R", done.result()))

        reply.add_done_callback(settle)
        return out

    async def read(self, target: StoreTarget[E]) -> Snapshot[E] | None:
        return await self.ref.ask(Read(target=target), timeout=self.timeout)

    async def read_many(
        self, targets: Sequence[StoreTarget[Any]]
    ) -> tuple[Snapshot[Any] | None, ...]:
        """Several snapshots in one hop to the IO thread (see ``storage.port.read_all``)."""
        return await self.ref.ask(ReadMany(targets=tuple(targets)), timeout=self.timeout)

    async def read_stored(self, target: StoreTarget[E]) -> Stored[E] | None:
        """The snapshot with the raw-byte fingerprint to pass as ``expect_fingerprint``."""
        return await self.ref.ask(ReadStored(target=target), timeout=self.timeout)

    async def mutate(
        self,
        target: StoreTarget[E],
        mutation: Mutation[E],
        *,
        generation: int | None = None,
        expect_fingerprint: str | None = None,
    ) -> Snapshot[E]:
        return (
            await self.mutate_stored(
                target, mutation, generation=generation, expect_fingerprint=expect_fingerprint
            )
        ).snapshot

    async def mutate_stored(
        self,
        target: StoreTarget[E],
        mutation: Mutation[E],
        *,
        generation: int | None = None,
        expect_fingerprint: str | None = None,
        purpose: str = "mutation",
    ) -> Stored[E]:
        """:meth:`mutate`, also returning the fingerprint of the bytes now on disk."""
        message = Mutate(
            target=target,
            mutation=mutation,
            expect_fingerprint=expect_fingerprint,
            purpose=purpose,
        )
        try:
            return await self.ref.ask(message, timeout=self.timeout, generation=generation)
        except MutationAborted as aborted:
            raise _cause(aborted) from None

    async def transact(
        self,
        steps: Sequence[tuple[StoreTarget[Any], Mutation[Any]]],
        *,
        generation: int | None = None,
        purpose: str = "memory transaction",
    ) -> list[Stored[Any]]:
        """Several memory-store mutations as one decision (see ``FileStore.transact``)."""
        message = Transact(steps=tuple(steps), purpose=purpose)
        try:
            return await self.ref.ask(message, timeout=self.timeout, generation=generation)
        except MutationAborted as aborted:
            raise _cause(aborted) from None

    async def with_engine(self, step: Callable[[FileStore], R], purpose: str = "step") -> R:
        """Run ``step`` on the Store's IO thread with its engine (see ``WithEngine``)."""
        try:
            result = await self.ref.ask(
                WithEngine(step=step, purpose=purpose), timeout=self.timeout
            )
        except MutationAborted as aborted:
            raise _cause(aborted) from None
        return cast("R", result)

    async def repair(self, target: StoreTarget[Any]) -> object:
        """Sweep temps and quarantine ``target`` if corrupt; the problem found, or None."""
        return await self.ref.ask(Repair(target=target), timeout=self.timeout)


def _cause(aborted: MutationAborted | IOJobFailed) -> BaseException:
    cause = aborted.__cause__
    return cause if cause is not None else aborted


def spawn_store(
    system: ActorSystem,
    layout: Layout | Path | None,
    *,
    name: str = "store",
    fs: FileSystem | None = None,
    lock_timeout: float = 30.0,
    restart: RestartPolicy | None = None,
) -> StoreClient:
    """Spawn the Store actor and return its StorePort client.

    ``layout`` may be the agent directory (a ``Path``): its Layout is built at first IO.
    """
    ref: ActorRef[StoreMsg] = system.spawn(
        lambda: StoreActor(layout, fs=fs, lock_timeout=lock_timeout),
        name=name,
        restart=restart or RestartPolicy(max_restarts=3, within=5.0),
    )
    return StoreClient(ref)
