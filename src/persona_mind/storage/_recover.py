"""``FileStore.recover``: restore a damaged store from its freshest valid copy (issue 15 item 2).

Under the store's locks, in this order (each step durable before the next):

1. sweep orphan temps; quarantine the live file if it is bad (anything but a regular file
   that decodes: truncated, garbage, a FIFO, a directory, a symlink) — the bytes are moved,
   never deleted, and the unresolved-quarantine marker is written first;
2. move aside a standard backup that is not a regular file (a directory at ``<file>.bak``
   made every write fail "at backup");
3. pick the freshest copy that *fully* decodes — with the target's real entry type, exactly
   as the reader decodes it (issue 24 H1: a copy with a valid envelope but an entry the
   reader refuses is damaged, not a candidate) — by snapshot ``sequence``: the live file,
   the standard backup, or a quarantined copy (a file the user fixed in place);
4. write it as the live file *without* rotating the backup (the backup stays as it was);
5. only then remove the marker.

What could not be recovered is named: the damaged copies whose sequence (read from the
intact head of the bytes when the tail is gone) is newer than the restored one, with the
ids of entries that appear in a damaged copy but not in the restored one.
"""

from __future__ import annotations

import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from persona_mind.storage._atomic import backup_path, quarantine, sweep_temps, write_atomic
from persona_mind.storage._codec import decode_snapshot
from persona_mind.storage._errors import CorruptStore, StoreIOError
from persona_mind.storage._marker import (
    MarkedQuarantine,
    StoreQuarantined,
    read_marker,
    remove_marker,
)
from persona_mind.storage.port import StoreTarget

if TYPE_CHECKING:
    from persona_mind.storage._engine import FileStore

__all__ = ("Lost", "RecoveryReport", "move_aside", "recover")

_SEQUENCE = re.compile(rb'"sequence":\s*(\d{1,18})')
_UPDATED = re.compile(rb'"updatedAt":\s*"([^"\\]{1,64})"')
_ID = re.compile(rb'"id":\s*"((?:[^"\\]|\\.){1,200})"')


@dataclass(frozen=True)
class Lost:
    """A damaged version newer than what was restored: named so a user knows what is gone."""

    copy: Path
    sequence: int | None
    updated_at: str | None
    missing_ids: tuple[str, ...]
    newer_than: int | None = None

    def describe(self) -> str:
        if self.sequence is not None:
            seq = f"sequence {self.sequence}"
        elif self.newer_than is not None:
            seq = f"the version after sequence {self.newer_than} (its header is unreadable)"
        else:
            seq = "a version whose header is unreadable"
        when = f" written {self.updated_at}" if self.updated_at else ""
        ids = f"; entries only in it: {', '.join(self.missing_ids)}" if self.missing_ids else ""
        return f"{seq}{when} (bytes kept in {self.copy.name}){ids}"


@dataclass
class RecoveryReport:
    """What :func:`recover` found and did."""

    path: Path
    problem: CorruptStore | None = None
    restored_from: Path | None = None
    restored_sequence: int | None = None
    moved_aside: list[Path] = field(default_factory=list)
    lost: list[Lost] = field(default_factory=list)
    resolved_marker: bool = False
    swept: int = 0

    @property
    def healthy(self) -> bool:
        """Nothing was wrong (no problem, nothing moved, no marker)."""
        return self.problem is None and not self.moved_aside and not self.resolved_marker

    def lines(self) -> list[str]:
        """Human lines for ``store check --repair``."""
        out: list[str] = []
        if self.problem is not None and not isinstance(self.problem, StoreQuarantined):
            moved = self.problem.quarantined
            out.append(
                f"quarantined: {self.path} ({self.problem.reason}: {self.problem.detail})"
                + (f"; its bytes were moved to {moved}" if moved else "")
            )
        out.extend(f"moved aside: {p}" for p in self.moved_aside)
        if self.restored_from is not None:
            out.append(
                f"restored: {self.path} from {self.restored_from.name} "
                f"(sequence {self.restored_sequence})"
            )
        elif self.resolved_marker and self.restored_sequence is None:
            out.append(f"restored: nothing valid was left for {self.path}; it starts empty")
        out.extend(f"NOT RECOVERED: {self.path}: {lost.describe()}" for lost in self.lost)
        return out


def _decode(path: Path, data: bytes, target: StoreTarget[Any]) -> Any:
    """The snapshot if ``data`` decodes as the reader of ``target`` decodes it, else ``None``."""
    try:
        return decode_snapshot(path, data, target.entry_type, target.version)
    except CorruptStore:
        return None


def _head(data: bytes) -> tuple[int | None, str | None]:
    head = data[:512]
    seq = _SEQUENCE.search(head)
    upd = _UPDATED.search(head)
    return (
        int(seq.group(1)) if seq else None,
        upd.group(1).decode("utf-8", "replace") if upd else None,
    )


def _ids(data: bytes) -> set[str]:
    return {m.group(1).decode("utf-8", "replace") for m in _ID.finditer(data)}


def recover(engine: FileStore, target: StoreTarget[Any]) -> RecoveryReport:
    """Restore ``target`` from its freshest valid copy (see the module doc)."""
    fs = engine.fs
    path = target.path
    report = RecoveryReport(path)
    try:
        with engine.hold(engine.lock_plan(target), "repair"):
            report.swept = len(sweep_temps(fs, path))
            engine.forget(path)
            try:
                engine.load_locked(target)
            except StoreQuarantined as exc:
                report.problem = exc
            except CorruptStore as exc:  # moved aside (marker first) by load_locked
                report.problem = exc
            bak = backup_path(path)
            st = fs.lstat(bak)
            if st is not None and not stat.S_ISREG(st.st_mode):
                report.moved_aside.append(move_aside(engine, bak))
            marker = read_marker(fs, path)
            if marker is None:
                return report  # healthy, or a problem without a marker (a newer version)
            _restore(engine, target, marker, report)
            remove_marker(fs, path)
            report.resolved_marker = True
            engine.forget(path)
    except OSError as exc:
        raise StoreIOError(path, "repairing", exc) from exc
    return report


def _restore(
    engine: FileStore,
    target: StoreTarget[Any],
    marker: list[MarkedQuarantine],
    report: RecoveryReport,
) -> None:
    fs = engine.fs
    path = target.path
    candidates: list[tuple[int, Path, bytes]] = []
    damaged: list[tuple[Path, bytes | None]] = []
    copies = [path, backup_path(path)] + [Path(m.quarantined) for m in marker]
    if not marker:  # an unreadable marker: consider every quarantined copy beside it
        copies += _listed_quarantines(engine, path, copies)
    for copy in copies:
        try:
            result = fs.read_capped(copy, engine.max_bytes)
        except IsADirectoryError:
            damaged.append((copy, None))
            continue
        if result is None:
            continue
        if result.data is None:
            damaged.append((copy, None))
            continue
        snap = _decode(copy, result.data, target)
        if snap is None:
            damaged.append((copy, result.data))
        else:
            candidates.append((snap.sequence, copy, result.data))
    # a bad live file (put there while the store was quarantined) is moved aside, never
    # overwritten: its bytes stay reachable like every other damaged copy
    for i, (copy, data) in enumerate(damaged):
        if copy == path:
            moved = move_aside(engine, path)
            report.moved_aside.append(moved)
            damaged[i] = (moved, data)
    best = max(candidates, key=lambda c: (c[0], c[1] == path), default=None)
    restored_ids: set[str] = set()
    if best is not None:
        sequence, source, data = best
        report.restored_sequence = sequence
        restored_ids = _ids(data)
        if source != path:
            write_atomic(fs, path, data, backup=False)  # the backup is left exactly as it was
            report.restored_from = source
    floor = -1 if best is None else best[0]
    for copy, data in damaged:
        if copy.name.endswith(".diagnostic.json"):
            continue
        seq, updated = (None, None) if data is None else _head(data)
        if seq is not None and seq <= floor:
            continue  # an older version than the one restored: nothing of it is missing
        missing = () if data is None else tuple(sorted(_ids(data) - restored_ids))[:20]
        report.lost.append(Lost(copy, seq, updated, missing, None if best is None else floor))
    for sequence, copy, _data in candidates:
        if sequence > floor:  # pragma: no cover - best is the maximum
            report.lost.append(Lost(copy, sequence, None, ()))


def _listed_quarantines(engine: FileStore, path: Path, known: list[Path]) -> list[Path]:
    """Quarantined copies of ``path`` beside it that the marker does not list (used when
    the marker itself is unreadable: then nothing newer may go unnamed)."""
    prefix = path.name + ".quarantine-"
    found: list[Path] = []
    for name in engine.fs.listdir(path.parent):
        if name.startswith(prefix) and not name.endswith(".diagnostic.json"):
            copy = path.with_name(name)
            if copy not in known:
                found.append(copy)
    return found


def move_aside(engine: FileStore, path: Path) -> Path:
    """Rename a non-regular entry at a state path aside (kept, never followed or deleted)."""
    st = engine.fs.lstat(path)
    kind = "symlink" if st is not None and stat.S_ISLNK(st.st_mode) else "not-a-file"
    return quarantine(
        engine.fs,
        path,
        reason=kind,
        detail="moved aside by store check --repair: a state path must be a regular file",
        size=0,
        sha256=None,
        wall=engine.wall,
    )
