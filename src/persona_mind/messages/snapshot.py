"""The storage port's values: which file, what it decodes to, and a whole snapshot of it.

They live here, in ``messages/``, because the Store actor's protocol carries them (a read
names a :class:`StoreTarget`, a mutation a :data:`Mutation` of its entries; a read answers a
:class:`Snapshot`) and messages import only values. ``persona_mind.storage.port`` re-exports
them unchanged. The on-disk form of a store file is :class:`Snapshot`'s fields (seed 000):
renaming one is a store migration.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, Literal, TypeVar

import msgspec

__all__ = ("LockDomain", "Mutation", "Snapshot", "StoreTarget")

E = TypeVar("E")

LockDomain = Literal["memory", "history", "store", "backlog", "packs"]
"""Lock domains; the order memory → history → store is enforced, backlog/packs are independent."""


class Snapshot(msgspec.Struct, Generic[E], frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A whole store file: schema version, a sequence bumped per write, and the entries."""

    version: int
    sequence: int
    updatedAt: str  # noqa: N815 - the on-disk field name is camelCase (seed 000)
    entries: tuple[E, ...]


@dataclass(frozen=True, slots=True)
class StoreTarget(Generic[E]):
    """One durable snapshot file and how to decode it."""

    path: Path
    entry_type: type[E]
    lock: LockDomain = "store"
    version: int = 1


Mutation = Callable[[tuple[E, ...]], tuple[E, ...]]
"""A pure function from the current entries to the new ones; raise to abort the write."""
