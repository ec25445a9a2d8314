"""Migration of older project setups into a global custom pack (P-MIGRATE-1..10).

An older setup is a workspace whose ``.pi/agents/`` has its own top-level generalist.
Migration *copies* those persona files into ``custom/<name>`` after an approved preview,
never changes the originals, and never selects or defaults the new pack. A receipt under
``<agentDir>/persona/.migrations/<workspace-key>.json`` records the outcome; rollback
marks the workspace as needing migration again and keeps the copied pack.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Literal

import msgspec

from persona_mind.persona._errors import DraftConflict, MigrationRequired, PackInvalid, Problem
from persona_mind.persona.packs._fsio import read_capped
from persona_mind.persona.packs._lifecycle import install_tree, roster_line
from persona_mind.persona.packs._model import Pack
from persona_mind.persona.packs._names import check_segment, is_valid_slug
from persona_mind.persona.packs._render import dump_yaml, one_line
from persona_mind.persona.packs._state import PackRecord, is_store_ref
from persona_mind.persona.packs._store import PackStore
from persona_mind.persona.packs._validate import load_pack
from persona_mind.persona.plans._change import Change, digest_of
from persona_mind.persona.workspace._files import TooLarge, Workspace

__all__ = (
    "GATED",
    "MigrationReceipt",
    "MigrationStatus",
    "default_pack_name",
    "inspect",
    "migration_status",
    "prepare_migrate",
    "prepare_rollback",
    "receipt_problem",
)

MigrationStatus = Literal[
    "not-legacy", "migration-required", "changed-source", "destination-missing", "migrated"
]
GATED: frozenset[str] = frozenset({"migration-required", "destination-missing"})
"""Statuses under which a session without a chosen team refuses to run personas."""


class MigrationReceipt(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The outcome of one workspace's migration."""

    version: int = 1
    workspace: str
    status: Literal["migrated", "rolled-back"]
    pack: str
    sourceDigest: str  # noqa: N815
    updatedAt: str  # noqa: N815


def _receipt_path(store: PackStore, ws: Workspace) -> Path:
    return store.root / ".migrations" / f"{ws.key}.json"


_MAX_RECEIPT = 64 * 1024


def read_receipt(store: PackStore, ws: Workspace) -> MigrationReceipt | None:
    """The workspace's receipt, if it was ever migrated (read without following a symlink
    or blocking; anything but a small regular file is refused)."""
    path = _receipt_path(store, ws)
    try:
        data = read_capped(path, _MAX_RECEIPT)
    except FileNotFoundError:
        return None
    except IsADirectoryError as exc:
        raise MigrationRequired(
            f"{path} is not a regular file ({exc.strerror}); move it aside and migrate again"
        ) from exc
    problem = "it is larger than 64 KiB" if data is None else None
    receipt = None
    if data is not None:
        receipt, problem = _decode_receipt(data)
    if receipt is None:
        raise MigrationRequired(
            f"{path} is unreadable ({problem}); move the receipt aside and migrate again"
        )
    return receipt


def _decode_receipt(data: bytes) -> tuple[MigrationReceipt | None, str]:
    try:
        receipt = msgspec.json.decode(data, type=MigrationReceipt)
    except msgspec.DecodeError as exc:
        return None, str(exc)
    # Read back from disk, so untrusted (issue 15 item 4): its pack is shown in commands
    # the user is told to run and compared with installed packs; only a custom/<name> that a
    # migration can have written is accepted.
    if not (is_store_ref(receipt.pack) and receipt.pack.startswith("custom/")):
        return None, (
            f"it names the pack {receipt.pack!r}, which no migration writes (custom/<name>)"
        )
    return receipt, ""


def receipt_problem(data: bytes) -> str | None:
    """Why a migration receipt's bytes would not load, or ``None`` (``store check``)."""
    receipt, problem = _decode_receipt(data)
    return None if receipt is not None else f"{problem}; move the receipt aside and migrate again"


def migration_status(store: PackStore, ws: Workspace) -> MigrationStatus:
    """Where the workspace stands (statuses from the original runbook, AMB-17)."""
    if not ws.is_older_setup():
        return "not-legacy"
    receipt = read_receipt(store, ws)
    if receipt is None or receipt.status == "rolled-back":
        return "migration-required"
    if receipt.pack not in store.installed_refs():
        return "destination-missing"
    if receipt.sourceDigest != ws.source_digest():
        return "changed-source"
    return "migrated"


def default_pack_name(ws: Workspace) -> str:
    """``<folder>-team`` made into a valid pack name."""
    slug = re.sub(r"[^a-z0-9]+", "-", ws.root.name.lower()).strip("-")[:50] or "project"
    return f"{slug}-team"


def _build(ws: Workspace, name: str, dest: Path) -> Pack:
    """Write the pack the migration would create into ``dest`` and validate it."""
    (dest / "agents").mkdir(parents=True)
    for path in ws.agent_files():
        # A migration source's file name is untrusted like any input (issue 15 item 4):
        # checked before it becomes a path in the new pack, not only after.
        why = check_segment(path.name)
        rel = f".pi/agents/{path.name}"
        if why is not None:
            problem = Problem("unsafe-name", f".pi/agents/{path.name!r}", f"name {why}; rename it")
            raise PackInvalid(name, (problem,))
        try:
            data = Workspace.read_agent(path)
        except TooLarge as exc:
            raise PackInvalid(name, (Problem("too-large", rel, str(exc)),)) from exc
        (dest / "agents" / path.name).write_bytes(data)
    # A YAML emitter, never string joining: the folder name is user text (issue 15 item 5).
    manifest = dump_yaml(
        {
            "schema": 2,
            "name": name,
            "version": "1.0.0",
            "description": one_line(f"Migrated from the older setup in {ws.root.name}/.pi/agents."),
        }
    )
    (dest / "pack.yaml").write_text(manifest, encoding="utf-8")
    return load_pack(dest, "custom", expected_name=name)


def inspect(store: PackStore, ws: Workspace) -> str:
    """Read-only: what the older setup contains and its status."""
    personas, problems = ws.local_personas()
    status = migration_status(store, ws)
    lines = [f"Workspace {ws.root}: {status}"]
    lines += [f"- {p.label} ({p.path}) — {one_line(p.description)}" for p in personas]
    lines += [f"! {p.render()}" for p in problems]
    if status in GATED:
        lines.append(
            "Personas are gated here until you migrate (`/persona migrate preview`) or pick an "
            "installed team (`/persona team select <pack>`)."
        )
    return "\n".join(lines)


def _pack_name(ws: Workspace, name: object) -> str:
    """The migration's pack name, validated *before* any path is built from it (issue 24
    H3: ``preview`` once joined it into a temporary path first, and ``../x`` wrote the
    copied setup and a ``pack.yaml`` outside the store)."""
    if name is None or name == "":
        return default_pack_name(ws)
    if not isinstance(name, str) or not is_valid_slug(name):
        shown = repr(name)[:80] + ("…" if len(repr(name)) > 80 else "")
        raise DraftConflict(
            f"{shown} is not a valid pack name (lowercase letters, digits, '.-_', at most "
            "64 characters, no path); nothing was read or written"
        )
    return name


def preview(store: PackStore, ws: Workspace, name: str | None) -> tuple[str, Pack | None]:
    """Read-only: the pack a migration would create (or why it would be refused)."""
    name = _pack_name(ws, name)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            pack = _build(ws, name, Path(tmp) / name)
        except PackInvalid as exc:
            return f"Migration of {ws.root} would be refused:\n{exc}", None
        text = (
            f"Migration preview: copy {len(pack.personas)} persona file(s) from "
            f"{ws.root}/.pi/agents into custom/{name} ({roster_line(pack)}). The originals "
            "stay untouched; the new pack is not selected or made the default."
        )
        skipped = ws.skipped_agent_files()
        if skipped:
            text += "\nNot copied:\n" + "\n".join(f"! {p.render()}" for p in skipped)
        return text, pack


def prepare_migrate(store: PackStore, ws: Workspace, name: str | None) -> Change:
    """Plan copying the older setup into ``custom/<name>``."""
    name = _pack_name(ws, name)
    status = migration_status(store, ws)
    if status == "not-legacy":
        raise MigrationRequired(f"{ws.root} has no older setup to migrate")
    target = f"custom/{name}"
    if target in store.installed_refs():
        raise DraftConflict(f"{target} already exists; choose another name for the migration")
    text, pack = preview(store, ws, name)
    if pack is None:
        raise MigrationRequired(text)
    before = digest_of("migrate", ws.real, ws.source_digest(), target, status)

    def execute() -> str:
        with store.mutation(f"migrate {ws.key}") as state:
            if (
                digest_of(
                    "migrate", ws.real, ws.source_digest(), target, migration_status(store, ws)
                )
                != before
            ):
                raise MigrationRequired("the older setup changed since the preview; preview again")
            with tempfile.TemporaryDirectory(dir=store.root) as tmp:
                built = _build(ws, name, Path(tmp) / name)
                installed = install_tree(store, built, target)
            record = PackRecord(
                origin=f"migrate:{ws.real}",
                version="1.0.0",
                digest=installed.digest,
                updatedAt=store.now_iso(),
            )
            store.save(msgspec.structs.replace(state, packs={**state.packs, target: record}))
            receipt = MigrationReceipt(
                workspace=ws.real,
                status="migrated",
                pack=target,
                sourceDigest=ws.source_digest(),
                updatedAt=store.now_iso(),
            )
            store.files.atomic_write(_receipt_path(store, ws), msgspec.json.encode(receipt) + b"\n")
        return (
            f"Migrated {ws.root}/.pi/agents into {target}; the originals are unchanged. "
            f"Select it for this session with `/persona team select {target}` when you want it."
        )

    return Change(
        action="migrate.apply",
        summary=text,
        digest=before,
        execute=execute,
        details={"ref": target},
    )


def prepare_rollback(store: PackStore, ws: Workspace) -> Change:
    """Plan marking the workspace as needing migration again (the copied pack is kept)."""
    receipt = read_receipt(store, ws)
    if receipt is None or receipt.status != "migrated":
        raise MigrationRequired(f"{ws.root} has no applied migration to roll back")
    before = digest_of("rollback", receipt)

    def execute() -> str:
        with store.mutation(f"rollback {ws.key}"):
            now = read_receipt(store, ws)
            if digest_of("rollback", now) != before or now is None:
                raise MigrationRequired(
                    "the migration receipt changed; check `/persona migrate status`"
                )
            store.files.atomic_write(
                _receipt_path(store, ws),
                msgspec.json.encode(
                    msgspec.structs.replace(now, status="rolled-back", updatedAt=store.now_iso())
                )
                + b"\n",
            )
        return (
            f"Rolled back: {ws.root} needs migration again. {receipt.pack} is kept; remove it "
            f"with `/persona pack delete {receipt.pack}` if you no longer want it."
        )

    return Change(
        action="migrate.rollback",
        summary=f"Mark {ws.root} as needing migration again (keeps {receipt.pack}); the session "
        "reloads so gating applies.",
        digest=before,
        execute=execute,
        reload=True,
        details={"ref": receipt.pack},
    )
