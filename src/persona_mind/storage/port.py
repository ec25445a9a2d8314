"""The storage port: how domain code (Mind, Persona) reads and mutates durable snapshots.

Domain code never touches files. It names a :class:`StoreTarget` (which file, which entry
type, which lock domain) and hands the Store a *pure* mutation of the entries; the Store
actor runs it inside the locked compare-and-swap step off the event loop and acknowledges
only after the directory fsync. A mutation that raises aborts the write: nothing partial
is ever stored.

The values the port speaks (:class:`Snapshot`, :class:`StoreTarget`, :data:`Mutation`,
:data:`LockDomain`) are defined in ``persona_mind.messages.snapshot`` (the Store actor's
protocol carries them) and re-exported here unchanged.

Implementations: the Store actor's client (``persona_mind.actors.store.StoreClient``), which
every runtime, facade and face uses, and the in-memory fake for unit tests
(``persona_mind.testing.MemoryStore``).  Both derive from
``persona_mind.actors.store.StoreBase``, which writes the port's method bodies once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

from persona_mind.messages.snapshot import LockDomain, Mutation, Snapshot, StoreTarget
from persona_mind.storage._errors import LockTimeout

__all__ = (
    "LockDomain",
    "LockTimeout",
    "Mutation",
    "Snapshot",
    "StorePort",
    "StoreTarget",
    "SupportsReadMany",
    "read_all",
)

E = TypeVar("E")


class StorePort(Protocol):
    """Reads never write; mutations are atomic, durable and generation-checked."""

    async def read(self, target: StoreTarget[E]) -> Snapshot[E] | None:
        """The current snapshot, or ``None`` if the file does not exist.

        Raises a ``StorageError`` subclass (never returns empty) for a corrupt file,
        which is quarantined with a diagnostic.
        """
        ...

    async def mutate(
        self,
        target: StoreTarget[E],
        mutation: Mutation[E],
        *,
        generation: int | None = None,
        expect_fingerprint: str | None = None,
    ) -> Snapshot[E]:
        """Apply ``mutation`` under the target's lock and return the written snapshot.

        ``generation`` is the owner generation the work was admitted under; the Store
        refuses it (``StaleGeneration``) inside the mutation step when it is stale.
        ``expect_fingerprint`` makes the write a compare-and-swap against the raw-byte
        SHA-256 of the file as the caller last read it.
        """
        ...


@runtime_checkable
class SupportsReadMany(Protocol):
    """A store that reads several snapshots in one request (one hop to its IO thread)."""

    async def read_many(
        self, targets: Sequence[StoreTarget[Any]]
    ) -> tuple[Snapshot[Any] | None, ...]: ...


async def read_all(
    store: StorePort, targets: Sequence[StoreTarget[Any]]
) -> tuple[Snapshot[Any] | None, ...]:
    """Every target's snapshot, in order: one request where the store supports it.

    A turn's injection reads four tiers and the backlog; through the Store actor that is one
    hop to its IO thread instead of five (``docs/storage.md``, "Reading several stores").
    """
    # what ``isinstance(store, SupportsReadMany)`` checks, without a runtime Protocol check's
    # cost (~20 us, every turn: issue 10)
    read_many = getattr(store, "read_many", None)
    if callable(read_many):
        many: tuple[Snapshot[Any] | None, ...] = await read_many(targets)
        return many
    return tuple([await store.read(target) for target in targets])
