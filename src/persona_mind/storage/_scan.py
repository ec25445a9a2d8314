"""A read-only health check of a tree of stores (``persona-mind store check <dir>``).

Besides decoding every store, it reports anything at a state path that is not what the
layout expects (issue 15 item 3): a symlink anywhere (never followed: a symlinked
``memory/stm`` directory is reported, not walked into), a directory, FIFO, socket or device
where a store, its backup or its lock file should be, and a store with an unresolved
quarantine. ``store check --repair`` fixes what it safely can (see ``cli/_storage.py``).
"""

from __future__ import annotations

import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Raw

from persona_mind.storage._errors import CorruptStore
from persona_mind.storage.port import StoreTarget

if TYPE_CHECKING:
    from persona_mind.storage._engine import FileStore

__all__ = ("Anomaly", "ScanReport", "scan")

_QUARANTINED = ".quarantined"


@dataclass(frozen=True)
class Anomaly:
    """Something at a state path the layout does not expect.

    ``store`` is the store file a repair of which fixes it (``None``: only moving ``path``
    aside, or a person, can); ``fixable`` says whether ``--repair`` may touch it at all.
    """

    path: Path
    kind: str
    detail: str
    store: Path | None = None
    fixable: bool = True

    def describe(self) -> str:
        return f"{self.kind}: {self.path} ({self.detail})"


@dataclass
class ScanReport:
    """What :meth:`FileStore.scan` found: healthy stores, corrupt ones, orphan temps and
    layout anomalies."""

    ok: list[Path] = field(default_factory=list)
    corrupt: list[CorruptStore] = field(default_factory=list)
    temps: list[Path] = field(default_factory=list)
    anomalies: list[Anomaly] = field(default_factory=list)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISLNK(mode):
        return "a symlink"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device or other special file"


def _classify(path: Path, mode: int) -> Anomaly | None:
    """The anomaly of a non-store entry, or ``None`` if it is fine."""
    name = path.name
    regular = stat.S_ISREG(mode)
    if name.endswith(".json" + _QUARANTINED):
        store = path.with_name(name.removesuffix(_QUARANTINED))
        return Anomaly(path, "unresolved-quarantine", f"{store.name} is quarantined", store)
    if regular:
        return None
    what = _kind(mode)
    if name.endswith(".json.bak"):
        store = path.with_name(name.removesuffix(".bak"))
        return Anomaly(path, "backup-not-a-file", f"the backup is {what}", store)
    if name.endswith(".lock"):
        return Anomaly(path, "lock-not-a-file", f"the lock file is {what}")
    if stat.S_ISLNK(mode):
        return Anomaly(
            path,
            "symlink",
            "state paths are never followed through a symlink; replace it with the real "
            "directory (move its contents here)",
            fixable=False,
        )
    return Anomaly(path, "not-a-file", f"{what} inside the store tree")


def scan(engine: FileStore, root: Path, *, version: int = 1) -> ScanReport:
    """Read-only health check of every ``*.json`` store under ``root`` (recursively):
    strict decode (entries kept raw), orphan temps and layout anomalies listed, nothing
    written, nothing followed through a symlink, nothing but a regular file read."""
    report = ScanReport()
    pending = [root]
    while pending:
        directory = pending.pop()
        for name in sorted(engine.fs.listdir(directory)):
            path = directory / name
            st = engine.fs.lstat(path)
            if st is None:
                continue
            mode = st.st_mode
            if name.endswith(".json") and not name.startswith(".") and ".quarantine-" not in name:
                try:  # any kind of entry: a non-regular one is refused as not-a-file
                    engine.read_stored(StoreTarget(path=path, entry_type=Raw, version=version))
                except CorruptStore as exc:
                    report.corrupt.append(exc)
                else:
                    report.ok.append(path)
            elif stat.S_ISDIR(mode) and not name.endswith((".bak", ".lock")):
                if not name.startswith(".") and ".quarantine-" not in name:
                    pending.append(path)
            elif name.startswith(".") and name.endswith(".tmp"):
                report.temps.append(path)
            elif ".quarantine-" not in name:
                anomaly = _classify(path, mode)
                if anomaly is not None:
                    report.anomalies.append(anomaly)
    return report
