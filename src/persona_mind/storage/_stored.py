"""``Stored``: a decoded snapshot with the fingerprint of its exact bytes; UTC stamps."""

from __future__ import annotations

import time
from typing import Generic, TypeVar

from persona_mind.storage._codec import Pieces, fingerprint, fingerprint_pieces
from persona_mind.storage.port import Snapshot

__all__ = ("Stored", "utc")

E = TypeVar("E")


class Stored(Generic[E]):
    """A decoded snapshot with the fingerprint of the exact bytes it came from.

    The SHA-256 is computed on first access (hashing 2 MiB costs ~1.5 ms and most callers
    never ask); it is always the hash of the bytes read or written.
    """

    __slots__ = ("_data", "_fingerprint", "pieces", "size", "snapshot")

    def __init__(self, snapshot: Snapshot[E], data: bytes, pieces: Pieces | None = None) -> None:
        self.snapshot = snapshot
        self.size = len(data)
        self._data: bytes | None = data
        self._fingerprint: str | None = None
        self.pieces = pieces
        """The per-entry encoding of the bytes this engine wrote (``None`` after a read)."""

    @property
    def fingerprint(self) -> str:
        """SHA-256 (hex) of the file's raw bytes."""
        if self._fingerprint is None:
            if self._data is not None:
                self._fingerprint = fingerprint(self._data)
            else:
                assert self.pieces is not None
                self._fingerprint = fingerprint_pieces(self.pieces)
            self._data = None
        return self._fingerprint

    def drop_bytes(self) -> None:
        """Forget the joined bytes when the per-entry pieces can stand in for them (a
        cached store is then held once, not twice)."""
        if self.pieces is not None:
            self._data = None

    def __repr__(self) -> str:
        return f"Stored(sequence={self.snapshot.sequence}, size={self.size})"


def utc(wall: float) -> str:
    ms = int(wall * 1000) % 1000
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(wall)) + f".{ms:03d}Z"
