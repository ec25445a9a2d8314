"""The unresolved-quarantine marker ``<file>.quarantined`` (issue 15 item 2).

Why a marker: once a corrupt store is moved aside, a missing file must not read as an empty
store, and the next writes must not rotate the standard backup (``<file>.bak``, the previous
acknowledged version) away. The marker is written durably *before* the bad file is moved, so
there is no instant at which the store looks merely absent. While it exists:

* reads and mutations of the store raise :class:`StoreQuarantined` (nothing is written, so
  the backup is never overwritten);
* ``persona-mind store check --repair`` (``FileStore.recover``) restores the freshest valid
  copy, names what it could not recover, and only then removes the marker.

The marker is a small JSON list of the quarantines it covers (diagnostics only: its existence
is what counts, so an unreadable marker still blocks).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

import msgspec

from persona_mind.storage._atomic import backup_path, quarantine, write_atomic
from persona_mind.storage._codec import fingerprint
from persona_mind.storage._errors import CorruptStore, UnsupportedVersion
from persona_mind.storage._fs import FileSystem

__all__ = (
    "MARKER_CAP",
    "MarkedQuarantine",
    "StoreQuarantined",
    "add_to_marker",
    "marker_path",
    "quarantine_store",
    "read_marker",
    "remove_marker",
)

MARKER_CAP = 256 * 1024


class MarkedQuarantine(msgspec.Struct, frozen=True, kw_only=True):
    """One quarantine the marker covers."""

    quarantined: str
    reason: str
    at: str


def marker_path(path: Path) -> Path:
    """``<file>.quarantined``: present while a quarantine of ``<file>`` is unresolved."""
    return path.with_name(path.name + ".quarantined")


class StoreQuarantined(CorruptStore):
    """A store has an unresolved quarantine: it is neither read as empty nor written.

    Run ``persona-mind store check --repair <file>``: it restores the freshest valid copy
    (the standard backup or the file itself), names any acknowledged write it could not
    recover, and clears the quarantine.
    """

    def __init__(self, path: Path, entries: list[MarkedQuarantine], *, backup: Path | None) -> None:
        where = ", ".join(f"{Path(e.quarantined).name} ({e.reason})" for e in entries) or (
            "see the .diagnostic.json files beside it"
        )
        self.entries = entries
        super().__init__(
            path,
            "quarantined",
            f"unresolved quarantine: {where}",
            quarantined=Path(entries[-1].quarantined) if entries else None,
            backup=backup,
        )
        self.args = (
            f"store {path} has an unresolved quarantine ({where}); it is not read as empty "
            "and not written until you run `persona-mind store check --repair "
            f"{path}`, which restores the freshest valid copy"
            + (f" (the backup {backup.name} is kept)" if backup else "")
            + " and names anything it could not recover",
        )

    def __str__(self) -> str:
        return str(self.args[0])


def read_marker(fs: FileSystem, path: Path) -> list[MarkedQuarantine] | None:
    """The quarantines covered by the marker of ``path``; ``None`` when there is no marker."""
    marker = marker_path(path)
    if fs.lstat(marker) is None:
        return None
    try:
        result = fs.read_capped(marker, MARKER_CAP)
    except OSError:  # a marker that is not a regular file still marks the store
        return []
    if result is None:
        return None
    if result.data is None:
        return []
    try:
        return list(msgspec.json.decode(result.data, type=tuple[MarkedQuarantine, ...]))
    except msgspec.DecodeError:
        return []


def quarantined_error(fs: FileSystem, path: Path) -> StoreQuarantined | None:
    """:class:`StoreQuarantined` for ``path`` if it has a marker, else ``None``."""
    entries = read_marker(fs, path)
    if entries is None:
        return None
    backup = backup_path(path)
    return StoreQuarantined(path, entries, backup=backup if fs.lstat(backup) is not None else None)


def add_to_marker(fs: FileSystem, path: Path, entry: MarkedQuarantine) -> None:
    """Durably record ``entry`` in the marker of ``path`` (creating it)."""
    entries = read_marker(fs, path) or []
    entries.append(entry)
    write_atomic(fs, marker_path(path), msgspec.json.encode(entries))


def quarantine_store(
    fs: FileSystem, exc: CorruptStore, *, max_bytes: int, wall: Callable[[], float]
) -> CorruptStore:
    """Move the bad store of ``exc`` aside — recording the unresolved quarantine first — and
    return ``exc`` with ``quarantined``/``backup`` filled in. A newer-version file is copied
    instead (left in place for the newer runtime) and gets no marker."""
    path = exc.path
    try:
        result = fs.read_capped(path, max_bytes)
    except IsADirectoryError:  # a symlink, directory or FIFO: moved aside, never followed
        result = None
    data = None if result is None else result.data
    size = 0 if result is None else result.size
    keep = data if isinstance(exc, UnsupportedVersion) and data is not None else None

    def mark(target: Path, stamp: str) -> None:
        entry = MarkedQuarantine(quarantined=str(target), reason=exc.reason, at=stamp)
        add_to_marker(fs, path, entry)

    moved = quarantine(
        fs,
        path,
        reason=exc.reason,
        detail=exc.detail,
        size=size,
        sha256=None if data is None else fingerprint(data),
        keep_original=keep,
        wall=wall,
        before_move=mark,
    )
    backup = backup_path(path)
    return type(exc)(
        path,
        exc.reason,
        exc.detail,
        quarantined=moved,
        backup=backup if fs.lstat(backup) is not None else None,
    )


def remove_marker(fs: FileSystem, path: Path) -> None:
    """Resolve: remove the marker durably (call only once the restore is durable)."""
    with contextlib.suppress(FileNotFoundError):
        fs.unlink(marker_path(path))
    fs.fsync_dir(path.parent)
