"""``persona-mind store …``: inspect, repair and reconcile durable store files.

``check`` is read-only (it never writes) and reports corrupt stores, unresolved quarantines
and anything at a state path the layout does not expect; ``--repair`` sweeps orphan temps,
quarantines a bad file under its lock, moves a non-regular backup or lock file aside,
restores a quarantined store from its freshest valid copy and names what it could not
recover (exit 1 then); ``history`` lists, reconciles or resolves optimizer receipts;
``holder`` names whoever holds a lock file. ``--json`` answers follow docs/cli-schema.json.
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
    CorruptStore,
    FileStore,
    Layout,
    OptimizeHistory,
    OsFileSystem,
    StoreTarget,
    agent_dir,
    backup_path,
    lock_path,
)
from persona_mind.storage._atomic import temp_owner
from persona_mind.storage._locks import describe_holder
from persona_mind.storage._recover import move_aside

__all__ = ("add_parser",)


def _target(args: argparse.Namespace) -> StoreTarget[Any]:
    return StoreTarget(
        path=Path(args.file).absolute(), entry_type=msgspec.Raw, version=args.version
    )


def _engine() -> FileStore:
    return FileStore(Layout(agent_dir()))


def _repair_store(engine: FileStore, path: Path, version: int, lines: list[str]) -> bool:
    """Recover one store, noting what happened; ``True`` when nothing was lost."""
    report = engine.recover(StoreTarget(path=path, entry_type=msgspec.Raw, version=version))
    lines.extend(report.lines())
    return not report.lost


def _check_tree(args: argparse.Namespace, root: Path) -> int:
    engine = _engine()
    report = engine.scan(root, version=args.version)
    lines: list[str] = []
    anomalies = [a.describe() for a in report.anomalies]
    if not args.repair:
        lines += [f"corrupt: {problem}" for problem in report.corrupt]
        lines += [f"anomaly: {text}" for text in anomalies]
        lines.append(
            f"{root}: {len(report.ok)} ok, {len(report.corrupt)} corrupt, "
            f"{len(report.anomalies)} anomalies, {len(report.temps)} orphan temps"
        )
        doc = out.StoreTree(
            path=str(root),
            ok=len(report.ok),
            corrupt=[str(p.path) for p in report.corrupt],
            anomalies=anomalies,
            orphanTemps=len(report.temps),
            repaired=False,
        )
        emit(args, doc, "\n".join(lines))
        return 1 if report.corrupt or report.anomalies else 0
    clean = True
    not_fixed: list[str] = []
    stores: dict[Path, None] = {}
    for anomaly in report.anomalies:
        if not anomaly.fixable:
            lines.append(f"NOT FIXED: {anomaly.describe()}")
            not_fixed.append(anomaly.describe())
            clean = False
        elif anomaly.kind == "lock-not-a-file":  # nobody can hold it: we never open one
            lines.append(f"moved aside: {move_aside(engine, anomaly.path)}")
        elif anomaly.store is not None:
            stores[anomaly.store] = None
        else:
            lines.append(f"moved aside: {move_aside(engine, anomaly.path)}")
    for problem in report.corrupt:
        stores[problem.path] = None
    for temp in report.temps:
        owner = temp_owner(temp)
        if owner is not None:
            stores[owner] = None
    for path in stores:
        clean = _repair_store(engine, path, args.version, lines) and clean
    after = engine.scan(root, version=args.version)
    remaining = [str(p.path) for p in after.corrupt] + [
        a.describe() for a in after.anomalies if a.fixable
    ]
    lines.append(
        f"{root}: {len(after.ok)} ok, {len(remaining)} still corrupt, "
        f"{len(report.temps)} orphan temps (swept), {len(stores)} stores repaired"
    )
    doc = out.StoreTree(
        path=str(root),
        ok=len(after.ok),
        corrupt=remaining,
        anomalies=not_fixed,
        orphanTemps=len(report.temps),
        repaired=True,
    )
    emit(args, doc, "\n".join(lines))
    return 0 if clean and not remaining else 1


def _is_tree(path: Path) -> bool:
    """A directory to walk (its root may be a symlink, like a linked agent dir); a path
    named like a store is always checked as one store, whatever is there."""
    return not path.name.endswith(".json") and path.is_dir()


def _check(args: argparse.Namespace) -> int:
    if _is_tree(Path(args.file)):
        return _check_tree(args, Path(args.file).absolute())
    target = _target(args)
    engine = _engine()
    path = str(target.path)
    lines: list[str] = []
    clean = True
    if args.repair:
        clean = _repair_store(engine, target.path, args.version, lines)
    else:
        bak = backup_path(target.path)
        st = engine.fs.lstat(bak)
        if st is not None and not stat.S_ISREG(st.st_mode):
            lines.append(
                f"anomaly: {bak} is not a regular file; `store check --repair` moves it aside"
            )
            clean = False
    try:
        stored = engine.read_stored(target)
    except CorruptStore as exc:
        text = "\n".join([*lines, f"corrupt: {exc}"])
        emit(args, out.StoreCheck(path=path, ok=False, message=text), text)
        return 1
    if stored is None:
        text = "\n".join([*lines, f"{target.path}: no such store"])
        emit(args, out.StoreCheck(path=path, ok=False, message=text), text)
        return 1
    snap = stored.snapshot
    text = "\n".join(
        [
            *lines,
            f"{target.path}: ok — version {snap.version}, sequence {snap.sequence}, "
            f"{len(snap.entries)} entries, {stored.size} bytes, updated {snap.updatedAt}, "
            f"sha256 {stored.fingerprint}",
        ]
    )
    doc = out.StoreCheck(
        path=path,
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
    target = _target(args)
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
        "check", help="strictly decode a store file, or every store under a directory (read-only)"
    )
    check.add_argument("file", help="a store file, or a directory to scan")
    check.add_argument("--version", type=int, default=1, help="expected schema version")
    check.add_argument(
        "--repair",
        action="store_true",
        help="sweep temps, quarantine a bad file, restore the freshest valid copy",
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
