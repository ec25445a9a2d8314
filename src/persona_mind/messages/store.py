"""The Store actor's protocol: reads, mutations, repair and generation updates.

These messages stay inside one process (they carry a ``StoreTarget`` and a mutation
function), so their payload fields are typed ``Any``; the adapter
:class:`persona_mind.actors.store.StoreClient` gives callers the typed ``StorePort`` API.
"""

from __future__ import annotations

from typing import Any

from persona_mind.messages._base import Msg
from persona_mind.messages.owner import OwnerChanged

__all__ = (
    "Mutate",
    "Read",
    "ReadStored",
    "Repair",
    "SetGeneration",
    "StoreMsg",
    "Transact",
)


class Read(Msg, frozen=True, kw_only=True):
    """Read a snapshot (never writes); answers ``Snapshot | None``."""

    target: Any


class ReadStored(Msg, frozen=True, kw_only=True):
    """Read a snapshot with its raw-byte fingerprint; answers ``Stored | None``."""

    target: Any


class Mutate(Msg, frozen=True, kw_only=True):
    """Apply a pure mutation durably; answers ``Stored`` once the directory fsync returned.

    ``generation`` is the owner generation the work was admitted under; it is checked
    inside the locked mutation step.
    """

    target: Any
    mutation: Any
    generation: int | None = None
    expect_fingerprint: str | None = None
    purpose: str = "mutation"


class Transact(Msg, frozen=True, kw_only=True):
    """Several memory-store mutations under the memory transaction lock, in order; answers
    ``list[Stored]``. ``steps`` is a tuple of ``(StoreTarget, mutation)`` pairs."""

    steps: Any
    generation: int | None = None
    purpose: str = "memory transaction"


class Repair(Msg, frozen=True, kw_only=True):
    """Sweep orphan temps and quarantine a corrupt file; answers ``CorruptStore | None``."""

    target: Any


class SetGeneration(Msg, frozen=True, kw_only=True):
    """The owner's current lifecycle generation (work admitted under an older one is refused)."""

    generation: int


StoreMsg = Read | ReadStored | Mutate | Transact | Repair | SetGeneration | OwnerChanged
