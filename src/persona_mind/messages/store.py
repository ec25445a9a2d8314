"""The Store actor's protocol: reads, mutations and repair of durable files, and blocking
IO jobs (``RunIO``) run on the Store's one IO thread.

These messages stay inside one process (they carry a ``StoreTarget`` and a pure mutation
function), so they are never encoded; the generation a mutation was admitted under is the
one the kernel stamps on its envelope (no message carries it). The adapter
:class:`persona_mind.actors.store.StoreClient` gives callers the typed ``StorePort`` API.

The values they carry are ``messages.snapshot``'s. Three answers are the storage engine's
own (a ``storage.Stored``: a snapshot with the fingerprint of its bytes, which only the
engine computes; the engine itself, handed to a ``WithEngine`` step): they are typed
``object`` here and ``StoreClient`` names them, so this vocabulary names no storage module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from persona_mind.messages._base import Ask

if TYPE_CHECKING:
    from persona_mind.errors import StorageError  # noqa: F401 - named in Ask["…"]
    from persona_mind.messages.snapshot import (  # noqa: F401 - named in Ask["…"]
        Mutation,
        Snapshot,
        StoreTarget,
    )

__all__ = (
    "Mutate",
    "Read",
    "ReadMany",
    "ReadStored",
    "Repair",
    "RunIO",
    "StoreMsg",
    "Transact",
    "WithEngine",
)


class Read(Ask["Snapshot[Any] | None"], frozen=True, kw_only=True):
    """Read a snapshot (never writes); ``None`` when the file does not exist."""

    target: StoreTarget[Any]


class ReadMany(Ask["tuple[Snapshot[Any] | None, ...]"], frozen=True, kw_only=True):
    """Read several snapshots in one step on the IO thread (a turn's tiers and backlog)."""

    targets: tuple[StoreTarget[Any], ...]


class ReadStored(Ask[object], frozen=True, kw_only=True):
    """Read a snapshot with its raw-byte fingerprint: a ``storage.Stored``, or ``None``."""

    target: StoreTarget[Any]


class Mutate(Ask[object], frozen=True, kw_only=True):
    """Apply a pure mutation durably; answered (a ``storage.Stored``) once the directory
    fsync returned.

    The generation it was admitted under is re-checked inside the locked mutation step.
    """

    target: StoreTarget[Any]
    mutation: Mutation[Any]
    expect_fingerprint: str | None = None
    purpose: str = "mutation"


class Transact(Ask[object], frozen=True, kw_only=True):
    """Several memory-store mutations under the memory transaction lock, in order; answered
    with a ``list`` of ``storage.Stored``."""

    steps: tuple[tuple[StoreTarget[Any], Mutation[Any]], ...]
    purpose: str = "memory transaction"


class Repair(Ask["StorageError | None"], frozen=True, kw_only=True):
    """Sweep orphan temps and quarantine a corrupt file; the problem found (a
    ``CorruptStore``), or ``None``."""

    target: StoreTarget[Any]


class WithEngine(Ask[object], frozen=True, kw_only=True):
    """Run a multi-file step against the engine on the Store's IO thread, in mailbox order.

    For work one ``Mutate`` cannot express (consolidation: a receipt made durable before
    the store is replaced and settled after it, with the locks held across both files).
    The step takes the engine's own locks and checks the generation it is handed inside
    them; it must not block on anything but file IO.
    """

    step: Callable[[Any], object]
    """Called with the Store's engine (a ``storage.FileStore``) on its IO thread."""
    purpose: str = "engine step"


class RunIO(Ask[object], frozen=True, kw_only=True):
    """Run one blocking job on the Store's IO thread, in mailbox order (``Runtime.offload``).

    The process's one serial blocking-IO executor: the pack store's writes (Persona), Mind
    index builds and the memory stores all run on that thread, one job at a time. The job
    is synchronous and must not wait on any actor: a job that asks the Store would wait on
    itself, so the Store refuses that ask at once (``StoreReentry``) instead of hanging.
    """

    work: Callable[[], object]
    purpose: str = "io job"


StoreMsg = Read | ReadMany | ReadStored | Mutate | Transact | Repair | WithEngine | RunIO
