"""The optimizer's receipts as data, and their settle markers (M-OPTIMIZE-HISTORY-1..10).

``<store>.optimize-history.json`` holds a ``Snapshot[Receipt]`` per target. A receipt is
written *prepared* before the store's rename and *settled* after it; the settle of a
successful apply is a **settle marker** ``<history>.settled-<id>`` beside the history file —
written and closed, not fsynced (``_history``'s module doc says why that never lies). This
module is what both sides share: the receipt struct, where its files are, and
:class:`SettleMarkers`, which reads, folds, writes and drops markers through the engine's
file-system seam. The locked protocol that uses them is :mod:`~persona_mind.storage._history`.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar

import msgspec

from persona_mind.storage._codec import encode_snapshot
from persona_mind.storage._fs import FileSystem
from persona_mind.storage._paths import Layout
from persona_mind.storage._stored import Stored
from persona_mind.storage.port import Snapshot, StoreTarget

__all__ = (
    "MAX_HISTORY_BYTES",
    "MAX_RECEIPTS",
    "ApplyResult",
    "Outcome",
    "Receipt",
    "SettleMarkers",
    "encoded_size",
    "history_target",
    "replace_receipt",
    "settle_marker",
)

E = TypeVar("E")

MAX_RECEIPTS = 32
MAX_HISTORY_BYTES = 2 * 1024 * 1024

Outcome = Literal["pending", "uncertain", "applied", "aborted", "discarded"]


class Receipt(msgspec.Struct, frozen=True, kw_only=True):
    """A scoped before/after record of one optimizer replacement."""

    id: str
    state: Literal["prepared", "settled"]
    outcome: Outcome
    target: str
    owner: str | None = None
    generation: int | None = None
    createdAt: str  # noqa: N815 - on-disk camelCase like the stores
    settledAt: str | None = None  # noqa: N815
    beforeFingerprint: str  # noqa: N815
    afterFingerprint: str  # noqa: N815
    before: msgspec.Raw = msgspec.field(default_factory=lambda: msgspec.Raw(b"null"))
    after: msgspec.Raw = msgspec.field(default_factory=lambda: msgspec.Raw(b"null"))
    note: str = ""


@dataclass(frozen=True, slots=True)
class ApplyResult(Generic[E]):
    """The written store, the settled (or still prepared) receipt and any warnings."""

    stored: Stored[E]
    receipt: Receipt
    warnings: tuple[str, ...] = field(default=())


def history_target(target: StoreTarget[Any]) -> StoreTarget[Receipt]:
    """The receipt file of a memory store target."""
    return StoreTarget(path=Layout.history(target.path), entry_type=Receipt, lock="history")


def replace_receipt(receipts: tuple[Receipt, ...], receipt: Receipt) -> tuple[Receipt, ...]:
    """``receipts`` with the one of ``receipt``'s id replaced by it."""
    return tuple(receipt if r.id == receipt.id else r for r in receipts)


def encoded_size(receipts: tuple[Receipt, ...], version: int) -> int:
    """An upper bound of the history file's size holding ``receipts``."""
    snap: Snapshot[Receipt] = Snapshot(
        version=version, sequence=10**9, updatedAt="0000-00-00T00:00:00.000Z", entries=receipts
    )
    return len(encode_snapshot(snap))


class _Marker(msgspec.Struct, frozen=True, kw_only=True):
    """A settle marker's content: which receipt, proven by which after-fingerprint."""

    id: str
    outcome: Literal["applied"]
    settledAt: str  # noqa: N815
    afterFingerprint: str  # noqa: N815


def settle_marker(target: StoreTarget[Any], receipt_id: str) -> Path:
    """The settle marker of one receipt of ``target``."""
    hist = Layout.history(target.path)
    return hist.with_name(f"{hist.name}.settled-{receipt_id}")


_MARKER_CAP = 4096


class SettleMarkers:
    """Settle markers of one engine's file system (see the module doc)."""

    def __init__(self, fs: FileSystem) -> None:
        self.fs = fs

    def fold(
        self, target: StoreTarget[Any], receipts: tuple[Receipt, ...]
    ) -> tuple[tuple[Receipt, ...], list[Path]]:
        """``receipts`` with every valid settle marker applied, and those markers' paths.

        Only a prepared, pending receipt can have a marker, so only its path is built: the
        history holds every earlier receipt, and building each one's path (two ``Path``
        derivations) made every apply's cost grow with the history (issue 24 item 6)."""
        out: list[Receipt] = []
        used: list[Path] = []
        for r in receipts:
            if r.state != "prepared" or r.outcome != "pending":
                out.append(r)
                continue
            path = settle_marker(target, r.id)
            mark = self._read(path)
            if mark is not None and (mark.id, mark.afterFingerprint) == (r.id, r.afterFingerprint):
                used.append(path)
                out.append(
                    msgspec.structs.replace(
                        r, state="settled", outcome=mark.outcome, settledAt=mark.settledAt
                    )
                )
            else:
                out.append(r)
        return tuple(out), used

    def _read(self, path: Path) -> _Marker | None:
        """A marker that decodes strictly, or ``None`` (missing, empty, torn: not proof)."""
        try:
            found = self.fs.read_capped(path, _MARKER_CAP)
        except OSError:
            return None
        if found is None or found.data is None:
            return None
        try:
            return msgspec.json.decode(found.data, type=_Marker)
        except msgspec.DecodeError:
            return None

    def drop(self, paths: list[Path]) -> None:
        """Remove markers already folded into a durable write (a leftover one is inert)."""
        for path in paths:
            with contextlib.suppress(OSError):
                self.fs.unlink(path)

    def write(self, target: StoreTarget[Any], receipt: Receipt, settled_at: str) -> bool:
        """Create ``receipt``'s marker: written and closed, no fsync; ``False`` on failure."""
        mark = _Marker(
            id=receipt.id,
            outcome="applied",
            settledAt=settled_at,
            afterFingerprint=receipt.afterFingerprint,
        )
        data = memoryview(msgspec.json.encode(mark))
        fs = self.fs
        try:
            fd = fs.open_new(settle_marker(target, receipt.id))
            try:
                while data:
                    data = data[fs.write(fd, data) :]
            finally:
                fs.close(fd)
        except OSError:
            return False
        return True
