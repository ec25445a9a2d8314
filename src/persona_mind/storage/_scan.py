"""A read-only health check of a tree of state files (``persona-mind store check <dir>``).

Every file is checked by its own kind (:mod:`~persona_mind.storage._kinds`, issue 24 H1/H2):
a store is decoded strictly with its real entry type — exactly as the reader decodes it —
and its ids must be unique; a document (the pack store's index) is checked by its own
schema; anything else is left alone and listed with the reason. Besides that it reports
anything at a state path that is not what the layout expects (issue 15 item 3): a symlink
where a state file should be, a directory, FIFO, socket or device where a store, its backup
or its lock file should be, orphan temps, and stores with an unresolved quarantine.

A symlinked *directory* inside the tree (a user's ``memory/stm`` linked to another disk) is
followed, once: the engine reads and writes the stores through it (only state files
themselves are never followed), so the check reads them too and says it did. ``store
check --repair`` fixes what it safely can (``cli/_storage.py``).
"""

from __future__ import annotations

import os
import stat
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from persona_mind.storage._errors import CorruptStore
from persona_mind.storage._fs import describe_mode
from persona_mind.storage._kinds import ENVELOPE, Catalog, FileKind, anchor_of
from persona_mind.storage.port import StoreTarget

if TYPE_CHECKING:
    from persona_mind.storage._engine import FileStore

__all__ = ("Anomaly", "Finding", "ScanReport", "check_document", "check_store", "scan")

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


@dataclass(frozen=True)
class Finding:
    """A file that reads, but breaks a rule of its kind a repair cannot decide for the user
    (duplicate ids; a document that does not match its schema). ``hint`` says what to do."""

    path: Path
    kind: str
    detail: str
    hint: str

    def describe(self) -> str:
        return f"{self.kind}: {self.path} ({self.detail}); {self.hint}"


@dataclass
class ScanReport:
    """What :meth:`FileStore.scan` found.

    ``kinds`` is the kind each checked file was checked as (a repair decodes a store with
    the same entry type); ``untyped`` lists stores no rule names, checked with untyped
    entries; ``left_alone`` what was not checked, and why; ``followed`` symlinked
    directories walked through, with their targets.
    """

    ok: list[Path] = field(default_factory=list)
    corrupt: list[CorruptStore] = field(default_factory=list)
    temps: list[Path] = field(default_factory=list)
    anomalies: list[Anomaly] = field(default_factory=list)
    invalid: list[Finding] = field(default_factory=list)
    left_alone: list[tuple[Path, str]] = field(default_factory=list)
    followed: list[tuple[Path, Path]] = field(default_factory=list)
    untyped: list[Path] = field(default_factory=list)
    kinds: dict[Path, FileKind] = field(default_factory=dict)


def _classify(path: Path, mode: int) -> Anomaly | None:
    """The anomaly of a non-store entry, or ``None`` if it is fine."""
    name = path.name
    if name.endswith(".json" + _QUARANTINED):
        store = path.with_name(name.removesuffix(_QUARANTINED))
        return Anomaly(path, "unresolved-quarantine", f"{store.name} is quarantined", store)
    if stat.S_ISREG(mode):
        return None
    what = describe_mode(mode)
    if name.endswith(".json.bak"):
        store = path.with_name(name.removesuffix(".bak"))
        return Anomaly(path, "backup-not-a-file", f"the backup is {what}", store)
    if name.endswith(".lock"):
        return Anomaly(path, "lock-not-a-file", f"the lock file is {what}")
    if stat.S_ISLNK(mode):
        return Anomaly(
            path,
            "symlink",
            "a symlink that is not a directory: persona-mind never follows it; remove it "
            "or put the real file or directory here",
            fixable=False,
        )
    return Anomaly(path, "not-a-file", f"{what} inside the store tree")


def duplicates(entries: tuple[Any, ...], field_name: str) -> list[str]:
    """The values of ``field_name`` that more than one entry carries, in first-seen order."""
    counts = Counter(getattr(entry, field_name, None) for entry in entries)
    return [str(value) for value, n in counts.items() if n > 1 and value is not None]


def check_store(engine: FileStore, path: Path, kind: FileKind) -> tuple[Any, Finding | None]:
    """Read ``path`` as the reader would (raises :class:`CorruptStore`), then check the
    kind's rules: the stored snapshot (``None`` when absent) and a finding, if any."""
    stored = engine.read_stored(
        StoreTarget(path=path, entry_type=kind.entry_type, version=kind.version)
    )
    if stored is None or kind.unique is None:
        return stored, None
    repeated = duplicates(stored.snapshot.entries, kind.unique)
    if not repeated:
        return stored, None
    more = f" and {len(repeated) - 5} more" if len(repeated) > 5 else ""
    shown = ", ".join(repeated[:5]) + more
    return stored, Finding(
        path,
        "duplicate-ids",
        f"{len(repeated)} {kind.unique}(s) name more than one entry: {shown}",
        "forget refuses a duplicated id; edit the file to keep one entry per id (the backup "
        f"{path.name}.bak holds the previous version), then check again",
    )


def check_document(engine: FileStore, path: Path, kind: FileKind) -> Finding | None:
    """Check a document by its own schema (read like a store: never following, never
    blocking, capped); the finding, or ``None`` when it is fine or absent."""
    assert kind.document is not None
    try:
        result = engine.fs.read_capped(path, kind.cap)
    except IsADirectoryError as exc:
        detail = f"{exc.strerror}"
        return Finding(path, "not-a-file", detail, "move it aside; persona-mind never opens it")
    if result is None:
        return None
    if result.data is None:
        return Finding(
            path,
            "oversized",
            f"{result.size} bytes > cap {kind.cap} bytes",
            "inspect it and move it aside",
        )
    problem = kind.document(result.data)
    if problem is None:
        return None
    return Finding(path, "invalid", f"{kind.name}: {problem}", "store check never rewrites it")


def _is_store_name(name: str) -> bool:
    return name.endswith(".json") and not name.startswith(".") and ".quarantine-" not in name


def scan(
    engine: FileStore, root: Path, *, version: int = 1, catalog: Catalog | None = None
) -> ScanReport:
    """Read-only health check of every state file under ``root`` (see the module doc).

    Without a ``catalog`` (or outside an agent directory) every ``*.json`` is checked as a
    store of untyped entries of schema ``version``. Nothing is written; nothing but a
    regular file is read; only symlinked directories are followed, each once.
    """
    report = ScanReport()
    configured = engine.layout.agent_dir.absolute() if engine.layout is not None else None
    agent = anchor_of(root, configured) if catalog is not None else None
    envelope = FileKind(ENVELOPE.name, entry_type=object, version=version)
    pending = [root]
    seen: set[tuple[int, int]] = set()
    try:
        top = os.stat(root)
    except OSError:
        pass
    else:
        seen.add((top.st_dev, top.st_ino))
    while pending:
        directory = pending.pop()
        for name in sorted(engine.fs.listdir(directory)):
            path = directory / name
            st = engine.fs.lstat(path)
            if st is None:
                continue
            kind = catalog.kind_of(path, agent) if catalog is not None else None
            if kind is not None and kind.skip is not None:
                report.left_alone.append((path, kind.skip))
                continue
            _visit(engine, report, path, st, kind, envelope, pending, seen)
    return report


def _visit(
    engine: FileStore,
    report: ScanReport,
    path: Path,
    st: os.stat_result,
    kind: FileKind | None,
    envelope: FileKind,
    pending: list[Path],
    seen: set[tuple[int, int]],
) -> None:
    name = path.name
    mode = st.st_mode
    if kind is not None and kind.document is not None:
        report.kinds[path] = kind
        finding = check_document(engine, path, kind)
        if finding is not None:
            report.invalid.append(finding)
        else:
            report.ok.append(path)
    elif _is_store_name(name) and (kind is None or kind.is_store):
        store_kind = kind if kind is not None else envelope
        report.kinds[path] = store_kind
        if kind is None:
            report.untyped.append(path)
        try:  # any kind of entry: a non-regular one is refused as not-a-file
            _stored, finding = check_store(engine, path, store_kind)
        except CorruptStore as exc:
            report.corrupt.append(exc)
        else:
            report.ok.append(path)
            if finding is not None:
                report.invalid.append(finding)
    elif stat.S_ISDIR(mode) and not name.endswith((".bak", ".lock")):
        walkable = not name.startswith(".") or (kind is not None and kind.walk)
        if walkable and ".quarantine-" not in name and (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino))  # a symlink to it later is not walked again
            pending.append(path)
    elif stat.S_ISLNK(mode) and not name.startswith(".") and (walk := _walk_link(path, seen)):
        if walk == "again":
            report.left_alone.append((path, "a symlink to a directory checked already"))
        else:
            report.followed.append((path, Path(os.path.realpath(path))))
            pending.append(path)
    elif name.startswith(".") and name.endswith(".tmp"):
        report.temps.append(path)
    elif ".quarantine-" not in name:
        anomaly = _classify(path, mode)
        if anomaly is not None:
            report.anomalies.append(anomaly)


def _walk_link(path: Path, seen: set[tuple[int, int]]) -> str:
    """``"walk"`` for a symlink to a directory not walked yet, ``"again"`` for one already
    walked (a loop, or a second link), ``""`` otherwise (dangling, or not a directory: an
    anomaly)."""
    try:
        target = os.stat(path)  # follows: where the engine's reads and writes go
    except OSError:
        return ""
    if not stat.S_ISDIR(target.st_mode):
        return ""
    key = (target.st_dev, target.st_ino)
    if key in seen:
        return "again"
    seen.add(key)
    return "walk"
