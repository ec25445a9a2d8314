"""A read-only health check of a tree of stores (``persona-mind store check <dir>``)."""

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

__all__ = ("ScanReport", "scan")


@dataclass
class ScanReport:
    """What :meth:`FileStore.scan` found: healthy stores, corrupt ones, orphan temps."""

    ok: list[Path] = field(default_factory=list)
    corrupt: list[CorruptStore] = field(default_factory=list)
    temps: list[Path] = field(default_factory=list)


def scan(engine: FileStore, root: Path, *, version: int = 1) -> ScanReport:
    """Read-only health check of every ``*.json`` store under ``root`` (recursively):
    strict decode (entries kept raw), orphan temps listed, nothing written."""
    report = ScanReport()
    pending = [root]
    while pending:
        directory = pending.pop()
        for name in sorted(engine.fs.listdir(directory)):
            path = directory / name
            st = engine.fs.lstat(path)
            if st is None:
                continue
            if stat.S_ISDIR(st.st_mode):
                if not name.startswith("."):
                    pending.append(path)
            elif name.startswith(".") and name.endswith(".tmp"):
                report.temps.append(path)
            elif name.endswith(".json") and not name.startswith("."):
                if ".quarantine-" in name:
                    continue
                try:
                    engine.read_stored(StoreTarget(path=path, entry_type=Raw, version=version))
                except CorruptStore as exc:
                    report.corrupt.append(exc)
                else:
                    report.ok.append(path)
    return report
