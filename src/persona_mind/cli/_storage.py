"""``persona-mind store …``: inspect, repair and reconcile durable store files.

``check`` is read-only (it never writes). Every file is checked by its own kind, the way
its reader decodes it (issue 24 H1/H2): memory tiers, the backlog, optimizer receipts and
the legacy-import stamps strictly with their real entry types and unique ids; the pack
store's index, migration receipts and Persona's settings by their own schemas; pack trees,
session snapshots and Pi's own files are left alone, and the report says so. ``--repair``
sweeps orphan temps, quarantines a bad store under its lock, moves a non-regular backup or
lock file aside, restores a quarantined store from the newest copy that fully decodes, names
what it could not recover, and exits 0 only when everything now reads; a document is never
rewritten (it says what to do). ``history`` lists, reconciles or resolves optimizer
receipts; ``holder`` names whoever holds a lock file. ``--json`` answers follow
docs/cli-schema.json.
"""

from __future__ import annotations

import argparse
import stat
from pathlib import Path
from typing import Any

import msgspec

from persona_mind.cli import _schema as out
from persona_mind.cli._output import emit, fail
from persona_mind.storage import (
    ENVELOPE,
    Catalog,
    CorruptStore,
    FileKind,
    FileStore,
    Layout,
    OptimizeHistory,
    OsFileSystem,
    ScanReport,
    StoreTarget,
    agent_dir,
    anchor_of,
    backup_path,
    check_document,
    check_store,
    describe_holder,
    layout_catalog,
    lock_path,
    move_aside,
    temp_owner,
)

__all__ = ("add_parser", "file_catalog")

_SETTINGS_CAP = 256 * 1024
_STATE_CAP = 4 * 1024 * 1024
_RECEIPT_CAP = 64 * 1024


def _settings_problem(data: bytes) -> str | None:
    """Persona's ``settings.json`` must be one JSON object (Mind reads it, and uses its
    defaults — saying so in ``/mind status`` — when it is not)."""
    try:
        doc = msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        return f"not valid JSON ({exc}); Mind uses its defaults until it is fixed"
    if not isinstance(doc, dict):
        return "not a JSON object; Mind uses its defaults until it is fixed"
    return None


def file_catalog() -> Catalog:
    """Every file kind under the agent directory, with the domain's schemas (imported here,
    at the first check: the CLI's start does not load Mind and Persona for it)."""
    from persona_mind.mind import BacklogItem, Fact, ImportStamp, ProjectRecord  # noqa: PLC0415
    from persona_mind.persona import receipt_problem, state_problem  # noqa: PLC0415

    return layout_catalog(
        memory=FileKind("memory store", entry_type=Fact, unique="id"),
        backlog=FileKind("backlog", entry_type=BacklogItem, unique="id"),
        legacy_import=FileKind("legacy-import stamps", entry_type=ImportStamp, unique="source"),
        pack_index=FileKind("pack-store index", document=state_problem, cap=_STATE_CAP),
        migration_receipt=FileKind("migration receipt", document=receipt_problem, cap=_RECEIPT_CAP),
        persona_settings=FileKind(
            "Persona settings", document=_settings_problem, cap=_SETTINGS_CAP
        ),
        projects=FileKind("project registry", entry_type=ProjectRecord, unique="id"),
    )


def _engine() -> FileStore:
    return FileStore(Layout(agent_dir()))


def _kind_of(catalog: Catalog, path: Path, version: int) -> FileKind:
    """The kind ``path`` is checked as: its catalog kind, else a store of untyped entries."""
    kind = catalog.kind_of(path, anchor_of(path.parent, agent_dir().absolute()))
    if kind is not None:
        return kind
    return FileKind(ENVELOPE.name, entry_type=object, version=version)


def _repair_store(engine: FileStore, path: Path, kind: FileKind, lines: list[str]) -> bool:
    """Recover one store, noting what happened; ``True`` when nothing was lost."""
    target = StoreTarget(path=path, entry_type=kind.entry_type, version=kind.version)
    report = engine.recover(target)
    lines.extend(report.lines())
    return not report.lost


def _notes(report: ScanReport) -> list[str]:
    lines = [
        f"followed: {link} -> {real} (a symlinked directory: persona-mind reads and writes "
        "the stores through it — only state files themselves are never followed — so they "
        "were checked through it)"
        for link, real in report.followed
    ]
    lines += [
        f"untyped: {path} (no file kind persona-mind knows is kept there: checked as a store "
        "of untyped entries — valid JSON and UTF-8 — not against an entry schema)"
        for path in report.untyped
    ]
    lines += [f"left alone: {path} ({why})" for path, why in report.left_alone]
    return lines


def _tree_doc(root: Path, report: ScanReport, **fields: Any) -> out.StoreTree:
    return out.StoreTree(
        path=str(root),
        ok=len(report.ok),
        orphanTemps=len(report.temps),
        leftAlone=[f"{p} ({why})" for p, why in report.left_alone],
        **fields,
    )


def _check_tree(args: argparse.Namespace, root: Path) -> int:
    engine = _engine()
    catalog = file_catalog()
    report = engine.scan(root, version=args.version, catalog=catalog)
    anomalies = [a.describe() for a in report.anomalies]
    invalid = [f.describe() for f in report.invalid]
    if not args.repair:
        lines = [f"corrupt: {problem}" for problem in report.corrupt]
        lines += [f"anomaly: {text}" for text in anomalies]
        lines += [f"invalid: {text}" for text in invalid]
        lines += _notes(report)
        lines.append(
            f"{root}: {len(report.ok)} ok, {len(report.corrupt)} corrupt, "
            f"{len(report.anomalies)} anomalies, {len(report.temps)} orphan temps, "
            f"{len(report.invalid)} invalid, {len(report.left_alone)} left alone"
        )
        doc = _tree_doc(
            root,
            report,
            corrupt=[str(p.path) for p in report.corrupt],
            anomalies=anomalies,
            invalid=invalid,
            repaired=False,
        )
        emit(args, doc, "\n".join(lines))
        return 1 if report.corrupt or report.anomalies or report.invalid else 0
    return _repair_tree(args, root, engine, catalog, report)


def _repair_tree(
    args: argparse.Namespace,
    root: Path,
    engine: FileStore,
    catalog: Catalog,
    report: ScanReport,
) -> int:
    lines: list[str] = []
    not_fixed: list[str] = []
    stores: dict[Path, None] = {}
    for anomaly in report.anomalies:
        if not anomaly.fixable:
            not_fixed.append(anomaly.describe())
        elif anomaly.kind == "lock-not-a-file" or anomaly.store is None:
            lines.append(f"moved aside: {move_aside(engine, anomaly.path)}")  # never opened
        else:
            stores[anomaly.store] = None
    for problem in report.corrupt:
        stores[problem.path] = None
    for temp in report.temps:
        owner = temp_owner(temp)
        if owner is not None:
            stores[owner] = None
    clean = True
    repaired = 0
    for path in stores:
        kind = report.kinds.get(path) or _kind_of(catalog, path, args.version)
        if not kind.is_store:  # a document's temp or a skipped file: never rewritten here
            lines.append(f"left alone: {path} ({kind.name}: store check never rewrites it)")
            continue
        repaired += 1
        clean = _repair_store(engine, path, kind, lines) and clean
    not_fixed += [finding.describe() for finding in report.invalid]
    lines += [f"NOT FIXED: {text}" for text in not_fixed]
    after = engine.scan(root, version=args.version, catalog=catalog)
    remaining = [str(p.path) for p in after.corrupt] + [
        a.describe() for a in after.anomalies if a.fixable
    ]
    lines += [f"STILL CORRUPT: {problem}" for problem in after.corrupt]
    lines += _notes(after)
    lines.append(
        f"{root}: {len(after.ok)} ok, {len(remaining)} still corrupt, "
        f"{len(report.temps)} orphan temps (swept), {repaired} stores repaired, "
        f"{len(after.invalid)} invalid (not fixed), {len(after.left_alone)} left alone"
    )
    doc = _tree_doc(
        root,
        after,
        corrupt=remaining,
        anomalies=not_fixed,
        invalid=[f.describe() for f in after.invalid],
        repaired=True,
    )
    emit(args, doc, "\n".join(lines))
    return 0 if clean and not remaining and not not_fixed and not after.invalid else 1


def _is_tree(path: Path) -> bool:
    """A directory to walk (its root may be a symlink, like a linked agent dir); a path
    named like a store is always checked as one store, whatever is there."""
    return not path.name.endswith(".json") and path.is_dir()


def _check(args: argparse.Namespace) -> int:
    if _is_tree(Path(args.file)):
        return _check_tree(args, Path(args.file).absolute())
    path = Path(args.file).absolute()
    kind = _kind_of(file_catalog(), path, args.version)
    if kind.skip is not None:
        text = f"left alone: {path} ({kind.skip})"
        emit(args, out.StoreCheck(path=str(path), ok=True, message=text), text)
        return 0
    if kind.document is not None:
        return _check_document(args, path, kind)
    return _check_store(args, path, kind)


def _check_document(args: argparse.Namespace, path: Path, kind: FileKind) -> int:
    finding = check_document(_engine(), path, kind)
    if finding is None and not path.exists():
        text = f"{path}: no such file"
    elif finding is None:
        text = f"{path}: ok — {kind.name}, checked by its own schema"
    else:
        text = ("NOT FIXED: " if args.repair else "invalid: ") + finding.describe()
    ok = finding is None and path.exists()
    emit(args, out.StoreCheck(path=str(path), ok=ok, message=text), text)
    return 0 if ok else 1


def _check_store(args: argparse.Namespace, path: Path, kind: FileKind) -> int:
    engine = _engine()
    lines: list[str] = []
    clean = True
    if args.repair:
        clean = _repair_store(engine, path, kind, lines)
    else:
        st = engine.fs.lstat(backup_path(path))
        if st is not None and not stat.S_ISREG(st.st_mode):
            lines.append(
                f"anomaly: {backup_path(path)} is not a regular file; "
                "`store check --repair` moves it aside"
            )
            clean = False
    try:
        stored, finding = check_store(engine, path, kind)
    except CorruptStore as exc:
        text = "\n".join([*lines, ("STILL CORRUPT: " if args.repair else "corrupt: ") + str(exc)])
        emit(args, out.StoreCheck(path=str(path), ok=False, message=text), text)
        return 1
    if stored is None:
        text = "\n".join([*lines, f"{path}: no such store"])
        emit(args, out.StoreCheck(path=str(path), ok=False, message=text), text)
        return 1
    if finding is not None:
        lines.append(("NOT FIXED: " if args.repair else "invalid: ") + finding.describe())
        clean = False
    snap = stored.snapshot
    untyped = kind.entry_type is object
    lines.append(
        f"{path}: {'ok' if clean else 'reads'} — {kind.name}, version {snap.version}, "
        f"sequence {snap.sequence}, {len(snap.entries)} entries, {stored.size} bytes, "
        f"updated {snap.updatedAt}, sha256 {stored.fingerprint}"
        + (" (entries checked as untyped JSON, not against a schema)" if untyped else "")
    )
    text = "\n".join(lines)
    doc = out.StoreCheck(
        path=str(path),
        ok=clean,
        message=text,
        version=snap.version,
        sequence=snap.sequence,
        entries=len(snap.entries),
        bytes=stored.size,
        sha256=stored.fingerprint,
    )
    emit(args, doc, text)
    return 0 if clean else 1


def _history(args: argparse.Namespace) -> int:
    path = Path(args.file).absolute()
    kind = _kind_of(file_catalog(), path, args.version)
    entry_type = kind.entry_type if kind.is_store else msgspec.Raw
    target: StoreTarget[Any] = StoreTarget(path=path, entry_type=entry_type, version=args.version)
    history = OptimizeHistory(_engine())
    if args.action == "list":
        rows = history.receipts(target)
        text = "\n".join(
            f"{r.id}  {r.state:<8} {r.outcome:<9} {r.createdAt}  owner={r.owner}  {r.note}"
            for r in rows
        )
        receipts = [
            out.Receipt(
                id=r.id,
                state=r.state,
                outcome=r.outcome,
                createdAt=str(r.createdAt),
                owner=r.owner,
                note=r.note,
            )
            for r in rows
        ]
        emit(args, out.History(receipts=receipts, lines=[]), text)
        return 0
    if args.action == "reconcile":
        lines = history.reconcile(target)
        emit(args, out.History(receipts=[], lines=lines), "\n".join(lines))
        return 1 if any("manual" in line for line in lines) else 0
    if not args.receipt or args.outcome not in {"applied", "discarded"}:
        return fail(args, "resolve needs --receipt <id> and --outcome applied|discarded", 2)
    receipt = history.resolve(target, args.receipt, args.outcome)
    line = f"{receipt.id}: {receipt.state} {receipt.outcome}"
    emit(args, out.History(receipts=[], lines=[line]), line)
    return 0


def _holder(args: argparse.Namespace) -> int:
    path = Path(args.file).absolute()
    lock = path if path.name.endswith(".lock") else lock_path(path)
    holder = describe_holder(OsFileSystem(), lock)
    emit(args, out.Holder(lock=str(lock), holder=holder), f"{lock}: last owner record: {holder}")
    return 0


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    store = subparsers.add_parser("store", help="inspect and repair durable store files")
    sub = store.add_subparsers(dest="store_command", metavar="ACTION", required=True)
    check = sub.add_parser(
        "check",
        help="check a state file, or every file under a directory, by its kind (read-only)",
    )
    check.add_argument("file", help="a store file, or a directory to scan")
    check.add_argument(
        "--version", type=int, default=1, help="expected schema version (untyped stores)"
    )
    check.add_argument(
        "--repair",
        action="store_true",
        help="sweep temps, quarantine a bad store, restore the newest copy that fully decodes",
    )
    check.set_defaults(func=_check)
    hist = sub.add_parser("history", help="optimizer receipts of a memory store")
    hist.add_argument("action", choices=("list", "reconcile", "resolve"), help="what to do")
    hist.add_argument("file", help="the memory store file")
    hist.add_argument("--version", type=int, default=1, help="expected schema version")
    hist.add_argument("--receipt", help="the receipt id (resolve)")
    hist.add_argument("--outcome", choices=("applied", "discarded"), help="how it ended (resolve)")
    hist.set_defaults(func=_history)
    holder = sub.add_parser("holder", help="who last held a store's lock file")
    holder.add_argument("file", help="a store file or its .lock")
    holder.set_defaults(func=_holder)
