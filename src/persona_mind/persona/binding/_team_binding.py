"""Session team binding and retained snapshots (P-BINDING-1..7, -11).

Binding copies the pack once into ``<agentDir>/persona/.runtime-sessions/<session>/``;
from then on the session's commands, prompts, consults and round-tables read that private
copy only, so later store changes (edit + apply, update, uninstall) reach the session only
through ``team refresh`` or a switch. ``binding.json`` is written atomically *after* the
snapshot is durable, so it is the commit point: a crash mid-copy leaves the old binding.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

import msgspec

from persona_mind.errors import PersonaError
from persona_mind.persona.packs._fsio import PackFiles, copy_tree
from persona_mind.persona.packs._model import Pack, PackSource
from persona_mind.persona.packs._state import is_store_ref
from persona_mind.persona.packs._store import PackStore, split_ref
from persona_mind.persona.packs._validate import load_pack

__all__ = (
    "KEEP_SECONDS",
    "KEEP_SESSIONS",
    "BindingRecord",
    "BindingState",
    "Bindings",
    "session_key",
)

KEEP_SESSIONS = 32
"""Ended sessions whose snapshot folders are always kept (the most recently used)."""
KEEP_SECONDS = 7 * 24 * 3600.0
"""An ended session used within this long keeps its snapshot whatever the count."""

BindingState = Literal["bound", "none", "unbound"]
"""``bound`` to a team; ``none`` chosen explicitly; ``unbound``: evaluated, no team."""


class BindingRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What one session recorded about its team."""

    version: int = 1
    session: str
    state: BindingState
    pack: str | None = None
    packVersion: str | None = None  # noqa: N815 - camelCase on disk
    revision: str = ""
    snapshot: str = ""
    updatedAt: str = ""  # noqa: N815


_DECODER = msgspec.json.Decoder(BindingRecord)
_SNAPSHOT_RE = re.compile(r"^snap-[0-9a-f]{12}-[0-9a-f]{8}$")
"""The only snapshot folder name :meth:`Bindings.bind` ever writes."""


def _record_problem(record: BindingRecord, session_id: str) -> str | None:
    """Why a record read back from disk cannot be trusted with a path (issue 15 item 4)."""
    if record.session != session_id:
        return f"it belongs to session {record.session!r}, not {session_id!r}"
    if record.state != "bound":
        return None
    if not is_store_ref(record.pack):
        return f"its pack {record.pack!r} is not official/<name> or custom/<name>"
    if not _SNAPSHOT_RE.fullmatch(record.snapshot):
        return f"its snapshot {record.snapshot!r} is not a snapshot folder name"
    return None


def session_key(session_id: str) -> str:
    """A collision-safe folder name for a session id (readable prefix + hash)."""
    readable = re.sub(r"[^A-Za-z0-9_-]", "_", session_id)[:40]
    return f"{readable}-{hashlib.sha256(session_id.encode()).hexdigest()[:12]}"


class Bindings:
    """Per-session binding records and their retained snapshots."""

    def __init__(self, store: PackStore) -> None:
        self.store = store
        self.root = store.root / ".runtime-sessions"
        self._packs: dict[Path, Pack] = {}

    @property
    def files(self) -> PackFiles:
        """The store's injected file port (every write of a binding goes through it)."""
        return self.store.files

    def session_dir(self, session_id: str) -> Path:
        """The private folder of one session."""
        return self.root / session_key(session_id)

    def read(self, session_id: str) -> BindingRecord | None:
        """The session's record, or ``None`` for a session never evaluated."""
        path = self.session_dir(session_id) / "binding.json"
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None
        try:
            record = _DECODER.decode(raw)
        except msgspec.DecodeError as exc:
            raise PersonaError(
                f"{path} is not a valid binding record ({exc}); select the team again with "
                "`/persona team select <pack>` to rewrite it"
            ) from exc
        why = _record_problem(record, session_id)
        if why is not None:
            raise PersonaError(
                f"{path} is not a valid binding record ({why}); nothing was read through it. "
                "Select the team again with `/persona team select <pack>` to rewrite it"
            )
        return record

    def _write(self, record: BindingRecord) -> None:
        self.files.atomic_write(
            self.session_dir(record.session) / "binding.json",
            msgspec.json.format(msgspec.json.encode(record)) + b"\n",
        )

    def _drop_other_snapshots(self, session_id: str, keep: str) -> None:
        folder = self.session_dir(session_id)
        for name in self.files.listdir(folder):
            if name.startswith("snap-") and name != keep:
                self._packs.pop(folder / name, None)
                self.files.remove_tree(folder / name)

    def bind(self, session_id: str, ref: str) -> BindingRecord:
        """Copy ``ref`` into a fresh private snapshot and record it as the session's team."""
        with self.store.mutation(f"bind {session_id}"):
            pack = self.store.load(ref)
            snap = f"snap-{pack.digest[:12]}-{secrets.token_hex(4)}"
            copy_tree(self.files, pack.root, self.session_dir(session_id) / snap, pack.files)
            record = BindingRecord(
                session=session_id,
                state="bound",
                pack=ref,
                packVersion=pack.manifest.version,
                revision=pack.digest,
                snapshot=snap,
                updatedAt=self.store.now_iso(),
            )
            self._write(record)
            self._drop_other_snapshots(session_id, snap)
        return record

    def set_state(self, session_id: str, state: BindingState) -> BindingRecord:
        """Record ``none`` or ``unbound`` (dropping any snapshot)."""
        record = BindingRecord(session=session_id, state=state, updatedAt=self.store.now_iso())
        self._write(record)
        self._drop_other_snapshots(session_id, "")
        return record

    def inherit(self, origin_id: str, session_id: str) -> BindingRecord | None:
        """A forked session starts with a copy of its origin's binding and snapshot."""
        origin = self.read(origin_id)
        if origin is None:
            return None
        if origin.state != "bound":
            return self.set_state(session_id, origin.state)
        src = self.session_dir(origin_id) / origin.snapshot
        pack = self.snapshot(origin)
        if pack is None:
            return None
        copy_tree(self.files, src, self.session_dir(session_id) / origin.snapshot, pack.files)
        record = msgspec.structs.replace(origin, session=session_id, updatedAt=self.store.now_iso())
        self._write(record)
        return record

    def snapshot(self, record: BindingRecord) -> Pack | None:
        """The retained pack of a bound record (cached: a snapshot never changes)."""
        if record.state != "bound" or not record.pack or not record.snapshot:
            return None
        path = self.session_dir(record.session) / record.snapshot
        cached = self._packs.get(path)
        if cached is not None:
            return cached
        if self.files.lstat(path) is None:
            return None
        source, name = split_ref(record.pack)
        kind: PackSource = "official" if source == "official" else "custom"
        pack = load_pack(path, kind, expected_name=name, limits=self.store.limits, digest=False)
        pack = Pack(
            source=kind,
            root=path,
            manifest=pack.manifest,
            personas=pack.personas,
            files=pack.files,
            digest=record.revision,
            warnings=pack.warnings,
        )
        self._packs[path] = pack
        return pack

    def touch(self, session_id: str) -> None:
        """Mark the session's folder as used now (its binding's mtime is its last use).

        "Now" is the injected clock's, the same time :meth:`collect` compares against.
        """
        path = self.session_dir(session_id) / "binding.json"
        self.files.touch(path, self.store.clock.wall())

    def collect(self, active: Iterable[str], *, now: float | None = None) -> list[str]:
        """Remove ended sessions' folders beyond the retention bound; return their names.

        A folder is collected only when all three hold: it is not an open session of this
        runtime (``active``), it is not among the :data:`KEEP_SESSIONS` most recently used,
        and it was last used more than :data:`KEEP_SECONDS` ago — so a session resumed
        within a week (or one of the last 32) still finds its snapshot. A session of another
        Pi process idle for longer may lose it; it then reports the team as missing and
        `/persona team refresh` rebinds it (P-BINDING).
        """
        if self.files.lstat(self.root) is None:
            return []
        keep = {session_key(s) for s in active}
        now = self.store.clock.wall() if now is None else now
        used: list[tuple[float, str]] = []
        for name in self.files.listdir(self.root):
            if name.startswith(".") or name in keep:
                continue
            folder = self.root / name
            stat = self.files.lstat(folder / "binding.json") or self.files.lstat(folder)
            if stat is not None:
                used.append((stat.st_mtime, name))
        used.sort(reverse=True)
        removed: list[str] = []
        with self.store.mutation("collect ended sessions' snapshots"):
            for mtime, name in used[KEEP_SESSIONS:]:
                if now - mtime <= KEEP_SECONDS:
                    continue
                folder = self.root / name
                for path in [p for p in self._packs if p.parent == folder]:
                    del self._packs[path]
                self.files.remove_tree(folder)
                removed.append(name)
        return removed

    def forget(self, session_id: str) -> None:
        """Drop cached snapshots of a session that ended (its files stay for resume)."""
        folder = self.session_dir(session_id)
        for path in [p for p in self._packs if p.parent == folder]:
            del self._packs[path]
