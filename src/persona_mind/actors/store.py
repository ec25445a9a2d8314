"""The Store actor: every durable file of its process, in mailbox order, off the event loop.

Why an actor around :class:`~persona_mind.storage.FileStore`: in-process mutations are
ordered by the mailbox (no in-process locks), blocking IO (lock waits, fsync, rename) runs on
one :class:`~persona_mind.actors.ThreadBridge` thread, and the owner generation the Store
knows is actor state — updated by ``SetGeneration`` or the Owner's ``OwnerChanged``
broadcast — read by the engine *inside* the locked mutation step.

:class:`StoreClient` is the :class:`~persona_mind.storage.StorePort` domain code uses.
A mutation function that raises (a deliberate abort) is handed back to the caller without
crashing the Store; an engine error (``StorageError``) is a refusal, as the kernel defines.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from persona_mind.actors import Actor, ActorRef, ActorSystem, RestartPolicy, ThreadBridge
from persona_mind.errors import PersonaMindError
from persona_mind.messages.owner import OwnerChanged
from persona_mind.messages.store import (
    Mutate,
    Read,
    ReadStored,
    Repair,
    SetGeneration,
    StoreMsg,
    Transact,
)

if TYPE_CHECKING:
    from persona_mind.storage import FileStore, FileSystem, Layout, Mutation, Snapshot, Stored
    from persona_mind.storage.port import StoreTarget

__all__ = ("DEFAULT_STORE_ASK_TIMEOUT", "StoreActor", "StoreClient", "spawn_store")

E = TypeVar("E")

DEFAULT_STORE_ASK_TIMEOUT = 90.0
"""Longer than the 30 s lock wait plus the write itself, so a slow lock is a LockTimeout."""


@dataclass(frozen=True, slots=True)
class _Raised:
    """A mutation function's own exception, carried back to the caller."""

    error: BaseException


class StoreActor(Actor[StoreMsg]):
    """Owns a FileStore and a ThreadBridge; see the module doc.

    Both are built when the first IO message arrives, not at spawn: a runtime starts (and a
    Pi session gets its tools) without importing the storage engine (portalocker and its
    metadata lookup) or starting an IO thread; generation messages need neither. ``layout``
    may be a :class:`~persona_mind.storage.Layout` or the agent directory to build it from.
    """

    def __init__(
        self,
        layout: Layout | Path | None,
        *,
        fs: FileSystem | None = None,
        lock_timeout: float = 30.0,
        generation: int | None = None,
        known: list[int | None] | None = None,
    ) -> None:
        # the known generation outlives a restart when spawn_store shares ``known``
        self._known: list[int | None] = known if known is not None else [generation]
        self._layout = layout
        self._fs = fs
        self._lock_timeout = lock_timeout
        self._engine: FileStore | None = None
        self.bridge: ThreadBridge | None = None

    @property
    def engine(self) -> FileStore:
        """The storage engine, built on first use (see the class doc)."""
        if self._engine is None:
            from persona_mind.storage import FileStore, Layout  # noqa: PLC0415 - at first IO

            layout = Layout(self._layout) if isinstance(self._layout, Path) else self._layout
            engine = FileStore(
                layout,
                fs=self._fs,
                lock_timeout=self._lock_timeout,
                current_generation=lambda: self._known[0],
            )
            engine.wall = self.clock.wall
            self._engine = engine
        return self._engine

    def _io(self) -> ThreadBridge:
        if self.bridge is None:
            self.bridge = ThreadBridge(f"{self.name}-io")
        return self.bridge

    async def on_stop(self) -> None:
        if self.bridge is not None:
            bridge, self.bridge = self.bridge, None
            await bridge.aclose()

    @property
    def current(self) -> int | None:
        """The newest owner generation this Store has learned."""
        return self._known[0]

    def _learn(self, generation: int | None) -> None:
        if generation is not None and (self.current is None or generation > self.current):
            self._known[0] = generation

    async def receive(self, message: StoreMsg) -> object:
        match message:
            case SetGeneration(generation=generation):
                self._learn(generation)
                return self.current
            case OwnerChanged(state=state):
                self._learn(state.generation)
                return self.current
        engine, bridge = self.engine, self._io()  # built here, on the loop, never on the thread
        match message:
            case Read(target=target):
                return await bridge.call(engine.read, target)
            case ReadStored(target=target):
                return await bridge.call(engine.read_stored, target)
            case Repair(target=target):
                return await bridge.call(engine.repair, target)
            case Mutate():
                self._learn(message.generation)  # a newer admitted generation is news
                return await bridge.call(self._mutate, message)
            case Transact():
                self._learn(message.generation)
                return await bridge.call(self._transact, message)
        raise AssertionError(f"unhandled {message!r}")  # pragma: no cover - union exhausted

    def _mutate(self, message: Mutate) -> object:
        try:
            return self.engine.mutate_stored(
                message.target,
                message.mutation,
                generation=message.generation,
                expect_fingerprint=message.expect_fingerprint,
                purpose=message.purpose,
            )
        except PersonaMindError:
            raise
        except Exception as exc:  # the caller's mutation aborted: not a Store crash
            return _Raised(exc)

    def _transact(self, message: Transact) -> object:
        try:
            return self.engine.transact(
                message.steps, generation=message.generation, purpose=message.purpose
            )
        except PersonaMindError:
            raise
        except Exception as exc:  # a step's mutation aborted: not a Store crash
            return _Raised(exc)


class StoreClient:
    """The :class:`~persona_mind.storage.StorePort` backed by a :class:`StoreActor`."""

    def __init__(self, ref: ActorRef[StoreMsg], *, timeout: float = DEFAULT_STORE_ASK_TIMEOUT):
        self.ref = ref
        self.timeout = timeout

    async def read(self, target: StoreTarget[E]) -> Snapshot[E] | None:
        result: Snapshot[E] | None = await self.ref.ask(Read(target=target), timeout=self.timeout)
        return result

    async def read_stored(self, target: StoreTarget[E]) -> Stored[E] | None:
        """The snapshot with the raw-byte fingerprint to pass as ``expect_fingerprint``."""
        result: Stored[E] | None = await self.ref.ask(
            ReadStored(target=target), timeout=self.timeout
        )
        return result

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
        result: Any = await self.ref.ask(
            Mutate(
                target=target,
                mutation=mutation,
                generation=generation,
                expect_fingerprint=expect_fingerprint,
                purpose=purpose,
            ),
            timeout=self.timeout,
        )
        if isinstance(result, _Raised):
            raise result.error
        stored: Stored[E] = result
        return stored

    async def transact(
        self,
        steps: Sequence[tuple[StoreTarget[Any], Mutation[Any]]],
        *,
        generation: int | None = None,
        purpose: str = "memory transaction",
    ) -> list[Stored[Any]]:
        """Several memory-store mutations as one decision (see ``FileStore.transact``)."""
        result: Any = await self.ref.ask(
            Transact(steps=tuple(steps), generation=generation, purpose=purpose),
            timeout=self.timeout,
        )
        if isinstance(result, _Raised):
            raise result.error
        stored: list[Stored[Any]] = result
        return stored

    async def repair(self, target: StoreTarget[Any]) -> object:
        """Sweep temps and quarantine ``target`` if corrupt; the problem found, or None."""
        return await self.ref.ask(Repair(target=target), timeout=self.timeout)

    def set_generation(self, generation: int) -> None:
        """Tell the Store the owner's current generation (ordered after queued work)."""
        self.ref.tell(SetGeneration(generation=generation))


def spawn_store(
    system: ActorSystem,
    layout: Layout | Path | None,
    *,
    name: str = "store",
    fs: FileSystem | None = None,
    lock_timeout: float = 30.0,
    generation: int | None = None,
    restart: RestartPolicy | None = None,
) -> StoreClient:
    """Spawn the Store actor and return its StorePort client.

    ``layout`` may be the agent directory (a ``Path``): its Layout is built at first IO.
    """
    known: list[int | None] = [generation]
    ref: ActorRef[StoreMsg] = system.spawn(
        lambda: StoreActor(layout, fs=fs, lock_timeout=lock_timeout, known=known),
        name=name,
        restart=restart or RestartPolicy(max_restarts=3, within=5.0),
    )
    return StoreClient(ref)
