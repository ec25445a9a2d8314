"""``persona-mind store …``: inspect, repair and reconcile durable store files.

``check`` is read-only (it never writes); ``--repair`` sweeps orphan temps and quarantines
a bad file under its lock; ``history`` lists, reconciles or resolves optimizer receipts;
``holder`` names whoever holds a lock file. ``--json`` answers follow docs/cli-schema.json.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import msgspec

from persona_mind.runners import _cli_schema as out
from persona_mind.runners._cli_output import emit, fail
from persona_mind.storage import (
    CorruptStore,
    FileStore,
    Layout,
    OptimizeHistory,
    OsFileSystem,
    StoreTarget,
    agent_dir,
    lock_path,
)
from persona_mind.storage._atomic import temp_owner
from persona_mind.storage._locks import describe_holder

__all__ = ("add_parser",)


def _target(args: argparse.Namespace) -> StoreTarget[Any]:
    return StoreTarget(
        path=Path(args.file).absolute(), entry_type=msgspec.Raw, version=args.version
    )


def _engine() -> FileStore:
    return FileStore(Layout(agent_dir()))


def _check_tree(args: argparse.Namespace, root: Path) -> int:
    engine = _engine()
    report = engine.scan(root, version=args.version)
    lines: list[str] = []
    for problem in report.corrupt:
        if args.repair:
            engine.repair(StoreTarget(path=problem.path, entry_type=msgspec.Raw))
            lines.append(f"quarantined: {problem.path} ({problem.reason})")
        else:
            lines.append(f"corrupt: {problem}")
    if args.repair:
        for owner in {temp_owner(t) for t in report.temps} - {None}:
            assert owner is not None
            engine.repair(StoreTarget(path=owner, entry_type=msgspec.Raw))
    lines.append(
        f"{root}: {len(report.ok)} ok, {len(report.corrupt)} corrupt, "
        f"{len(report.temps)} orphan temps{' (swept)' if args.repair else ''}"
    )
    doc = out.StoreTree(
        path=str(root),
        ok=len(report.ok),
        corrupt=[str(p.path) for p in report.corrupt],
        orphanTemps=len(report.temps),
        repaired=bool(args.repair),
    )
    emit(args, doc, "\n".join(lines))
    return 1 if report.corrupt else 0


def _check(args: argparse.Namespace) -> int:
    if Path(args.file).is_dir():
        return _check_tree(args, Path(args.file).absolute())
    target = _target(args)
    engine = _engine()
    path = str(target.path)
    if args.repair:
        problem = engine.repair(target)
        if problem is not None:
            text = f"quarantined: {problem}"
            emit(args, out.StoreCheck(path=path, ok=False, message=text), text)
            return 1
    try:
        stored = engine.read_stored(target)
    except CorruptStore as exc:
        text = f"corrupt: {exc}"
        emit(args, out.StoreCheck(path=path, ok=False, message=text), text)
        return 1
    if stored is None:
        text = f"{target.path}: no such store"
        emit(args, out.StoreCheck(path=path, ok=False, message=text), text)
        return 1
    snap = stored.snapshot
    text = (
        f"{target.path}: ok — version {snap.version}, sequence {snap.sequence}, "
        f"{len(snap.entries)} entries, {stored.size} bytes, updated {snap.updatedAt}, "
        f"sha256 {stored.fingerprint}"
    )
    doc = out.StoreCheck(
        path=path,
        ok=True,
        message=text,
        version=snap.version,
        sequence=snap.sequence,
        entries=len(snap.entries),
        bytes=stored.size,
        sha256=stored.fingerprint,
    )
    emit(args, doc, text)
    return 0


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
        "--repair", action="store_true", help="sweep temps and quarantine it if corrupt"
    )
    check.set_defaults(func=_check)
    hist = sub.add_parser("history", help="optimizer receipts of a memory store")
    hist.add_argument("action", choices=("list", "reconcile", "resolve"), help="what to do")
    hist.add_argument("file", help="the memory store file")
    hist.add_argument("--version", type=int, default=1, help="expected schema version")
    hist.add_argument("--receipt", help="the receipt id (resolve)")
    hist.add_argument(
        "--outcome", choices=("applied", "discarded"), help="how it ended (resolve)"
    )
    hist.set_defaults(func=_history)
    holder = sub.add_parser("holder", help="who last held a store's lock file")
    holder.add_argument("file", help="a store file or its .lock")
    holder.set_defaults(func=_holder)
