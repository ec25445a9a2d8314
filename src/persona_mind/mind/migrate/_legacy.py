"""Bounded, non-destructive import of pi-persona-mind's earlier on-disk layout (M-MIGRATE-*).

Supported layout (documented in ``docs/mind.md``): the superseded root
``<agentDir>/pi-persona-mind/`` of pi-persona-mind ≤ 0.8.x —

* ``memory/ltm/_shared.json``            → shared LTM
* ``memory/ltm/<persona>.json``          → a persona's LTM: named explicitly (CLI), or in a
  session claimed once by the active persona of that bare name (legacy files had no pack,
  so a file is never merged into two personas, M-SCOPE-14)
* ``memory/project/<base>-<sha256[:24]>.json`` → this project's project LTM
* ``memory/stm/<base>-<sha256[:24]>.json`` → this project's STM (legacy project slug)
* ``backlog/<base>-<sha256[:24]>.json``    → this project's backlog
* in those three directories, any other ``*-<sha256[:24]>.json`` of this project's digest
  (a bounded directory scan: older builds slugged the basename differently)

each ``{"version", "entries": [...]}``; a torn file falls back to its ``.bak`` sidecar.
Originals are only read, never changed or removed (M-MIGRATE-3).  Rows are validated and
scanned like new input, expired STM/backlog rows are skipped, and rows are deduplicated by
content identity: an existing row keeps the earliest ``recordedAt`` and the latest
``lastSeenAt`` (M-MIGRATE-2).  Bounds: 256 files a scan, 4 MiB a source (DEC-9).  Work is a
resumable :meth:`LegacyImport.step` that handles a bounded number of files per call, so a
turn never waits for the whole import (M-MIGRATE-4); a manifest of imported sources (size +
mtime) skips unchanged files next time.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

import msgspec

from persona_mind.mind._errors import MindRefusal
from persona_mind.mind._model import STM_TTL, BacklogItem, Fact, Tier
from persona_mind.mind._service import MemoryService
from persona_mind.mind._text import identity_text
from persona_mind.mind.backlog import _rules as bl
from persona_mind.mind.facts import _rules as fx
from persona_mind.mind.migrate._legacy_files import (
    MAX_IMPORT_FILES,
    MAX_SOURCE_BYTES,
    PROJECT_DIRS,
    Job,
    legacy_persona_file,
    legacy_project_slug,
    project_files,
    read_bounded,
    time_of,
)
from persona_mind.storage.port import StoreTarget

__all__ = (
    "MAX_IMPORT_FILES",
    "MAX_SOURCE_BYTES",
    "ImportReport",
    "ImportStamp",
    "LegacyImport",
    "RunBlocking",
    "legacy_persona_file",
    "legacy_project_slug",
)

T = TypeVar("T")


class RunBlocking(Protocol):
    """Runs a blocking function off the event loop: the runtime's ``offload`` (the Store's
    IO thread). Mind never starts a thread of its own (ARCHITECTURE, issue 10)."""

    def __call__(self, fn: Callable[[], T], /) -> Awaitable[T]: ...


async def _inline(fn: Callable[[], T]) -> T:
    """No offload given (the one-shot CLI, unit tests): run the bounded read in place."""
    return fn()


class ImportStamp(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A source file already imported, as it was then (re-read only when it changed)."""

    source: str
    size: int
    mtimeNs: int  # noqa: N815
    owner: str | None = None
    """The persona a legacy persona file was imported into (claimed once, never merged)."""


@dataclass(slots=True)
class ImportReport:
    """Counts for the informational progress line (shown once, cleared on settle)."""

    files_scanned: int = 0
    files_skipped: int = 0
    entries_seen: int = 0
    entries_added: int = 0
    conflicts: int = 0
    invalid: int = 0
    unsafe: int = 0
    expired: int = 0
    warnings: list[str] = field(default_factory=list)

    @property
    def worth_showing(self) -> bool:
        """Only an import that read something (or has a warning) is announced (M-MIGRATE-9):
        no "0 file(s) read" toast on the first turn of every session."""
        return bool(self.files_scanned or self.warnings)

    def summary(self) -> str:
        return (
            f"{self.files_scanned} file(s) read, {self.files_skipped} unchanged, "
            f"{self.entries_added} added, {self.conflicts} merged, "
            f"{self.invalid + self.unsafe + self.expired} skipped"
        )


class LegacyImport:
    """A resumable import for one scope; call :meth:`step` once per turn until ``done``."""

    def __init__(
        self,
        service: MemoryService,
        *,
        legacy_root: Path | None = None,
        legacy_persona: str | None = None,
        claim_persona: bool = False,
        run_blocking: RunBlocking | None = None,
    ) -> None:
        """``claim_persona`` (a session): the active persona claims the legacy persona file
        of its bare name once; a later persona of the same bare name (another pack) does not
        import it again — legacy names carried no pack, so it is never merged twice."""
        self.service = service
        scope = service.scope
        self.root = legacy_root or scope.agent_dir / "pi-persona-mind"
        self.legacy_persona = legacy_persona
        self.claim_persona = claim_persona
        self.report = ImportReport()
        self._run: RunBlocking = run_blocking or _inline
        self._jobs: list[Job] | None = None
        self.manifest: StoreTarget[ImportStamp] = StoreTarget(
            scope.layout.root / "memory" / ".legacy-import.json", ImportStamp, lock="store"
        )

    @property
    def done(self) -> bool:
        return self._jobs is not None and not self._jobs

    @property
    def pending(self) -> bool:
        """Something may still be imported: unplanned with a legacy store on disk, or jobs left.

        A fresh install has no legacy directory, so status does not promise an import."""
        if self._jobs is None:
            return self.root.exists()
        return bool(self._jobs)

    def _plan(self) -> list[Job]:
        scope = self.service.scope
        jobs = [Job(self.root / "memory" / "ltm" / "_shared.json", "ltm", "shared")]
        ltm = self.root / "memory" / "ltm"
        if self.legacy_persona is not None and scope.persona is not None:
            stem = legacy_persona_file(self.legacy_persona)
            jobs.append(Job(ltm / f"{stem}.json", "ltm", "persona"))
        elif self.claim_persona and scope.persona is not None:
            stem = legacy_persona_file(scope.persona.rsplit("/", 1)[-1])
            jobs.append(Job(ltm / f"{stem}.json", "ltm", "persona", claim=True))
        if scope.project is not None:
            slug = legacy_project_slug(scope.project.root)
            for folder, kind, tier in PROJECT_DIRS:
                jobs += [Job(path, kind, tier) for path in project_files(self.root / folder, slug)]
        return [j for j in jobs if j.path.exists()][:MAX_IMPORT_FILES]

    async def step(self, max_files: int = 1) -> bool:
        """Import up to ``max_files`` sources; returns ``True`` when nothing is left."""
        if self._jobs is None:
            self._jobs = await self._run(self._plan)
            self.service.import_pending = bool(self._jobs)
        for _ in range(max_files):
            if not self._jobs:
                break
            job = self._jobs.pop(0)
            try:
                await self._import(job)
            except (OSError, ValueError, MindRefusal) as exc:
                self.report.warnings.append(f"{job.path.name}: {exc}")
        if not self._jobs:
            self.service.import_pending = False
        return self.done

    async def _import(self, job: Job) -> None:
        read = await self._run(lambda: read_bounded(job.path))
        if read is None:
            return
        data, size, mtime = read
        snap = await self.service.store.read(self.manifest)
        stamps = {s.source: s for s in (snap.entries if snap else ())}
        key = str(job.path)
        owner = self.service.scope.persona if job.claim else None
        claimed = stamps[key].owner if key in stamps else None
        if job.claim and claimed is not None and claimed != owner:
            self.report.files_skipped += 1  # imported into another persona already
            return
        if key in stamps and (stamps[key].size, stamps[key].mtimeNs) == (size, mtime):
            self.report.files_skipped += 1
            return
        entries = self._entries(data)
        if entries is None:
            bak = await self._run(lambda: read_bounded(job.path.with_name(job.path.name + ".bak")))
            entries = self._entries(bak[0]) if bak else None
            if not entries:
                self.report.warnings.append(f"{job.path.name}: unreadable and no usable .bak")
                return
            self.report.warnings.append(f"{job.path.name}: torn; imported its .bak")
        self.report.files_scanned += 1
        if job.kind == "backlog":
            await self._merge_backlog(entries)
        else:
            assert job.tier is not None
            await self._merge_facts(job.tier, entries)
        stamp = ImportStamp(source=key, size=size, mtimeNs=mtime, owner=owner)
        await self.service.store.mutate(
            self.manifest, lambda rows: (*(r for r in rows if r.source != key), stamp)
        )

    @staticmethod
    def _entries(data: bytes) -> list[Any] | None:
        try:
            doc = msgspec.json.decode(data)
        except msgspec.DecodeError:
            return None
        if not isinstance(doc, dict) or not isinstance(doc.get("entries"), list):
            return None
        return list(doc["entries"])

    def _fact_rows(self, tier: Tier, raw: list[Any], now: float) -> list[tuple[fx.Draft, Fact]]:
        out: list[tuple[fx.Draft, Fact]] = []
        persona = self.service.scope.persona
        for item in raw:
            self.report.entries_seen += 1
            if not isinstance(item, dict):
                self.report.invalid += 1
                continue
            try:
                draft = fx.validate_draft(
                    item.get("kind"),
                    item.get("text"),
                    item.get("tags", []),
                    item.get("source"),
                    origin="import",
                )
            except MindRefusal as exc:
                if exc.rule == "content.unsafe":
                    self.report.unsafe += 1
                else:
                    self.report.invalid += 1
                continue
            recorded = time_of(item.get("recordedAt")) or now
            seen = time_of(item.get("lastSeenAt")) or recorded
            expires = time_of(item.get("expiresAt")) if tier == "stm" else None
            if tier == "stm":
                expires = expires or seen + STM_TTL
                if expires <= now:
                    self.report.expired += 1
                    continue
            owner = item.get("persona") if isinstance(item.get("persona"), str) else None
            row_owner = owner if tier == "stm" else persona
            out.append(
                (
                    draft,
                    Fact(
                        id=fx.row_key(tier, draft.identity, row_owner),
                        kind=draft.kind,
                        text=draft.text,
                        tags=draft.tags,
                        persona=row_owner,
                        source=draft.source,
                        recordedAt=recorded,
                        lastSeenAt=seen,
                        expiresAt=expires,
                        origin="import",
                    ),
                )
            )
        return out

    async def _merge_facts(self, tier: Tier, raw: list[Any]) -> None:
        now = self.service.now()
        incoming = self._fact_rows(tier, raw, now)
        added = merged = 0

        def step(rows: tuple[Fact, ...]) -> tuple[Fact, ...]:
            nonlocal added, merged
            added = merged = 0
            by_id = {r.id: r for r in rows}
            order = [r.id for r in rows]
            for _, new in incoming:
                old = by_id.get(new.id)
                if old is None:
                    by_id[new.id] = new
                    order.append(new.id)
                    added += 1
                    continue
                merged += 1
                later = new if new.lastSeenAt > old.lastSeenAt else old
                by_id[new.id] = msgspec.structs.replace(
                    old,
                    recordedAt=min(old.recordedAt, new.recordedAt),
                    lastSeenAt=max(old.lastSeenAt, new.lastSeenAt),
                    source=later.source or old.source,
                    expiresAt=None
                    if old.expiresAt is None and new.expiresAt is None
                    else max(old.expiresAt or 0.0, new.expiresAt or 0.0),
                )
            return tuple(by_id[i] for i in order)

        if incoming:
            await self.service.store.mutate(self.service.scope.fact_target(tier), step)
        self.report.entries_added += added
        self.report.conflicts += merged

    async def _merge_backlog(self, raw: list[Any]) -> None:
        now = self.service.now()
        target = self.service.scope.backlog_target()
        items: list[BacklogItem] = []
        for item in raw:
            self.report.entries_seen += 1
            status = item.get("status", item.get("state")) if isinstance(item, dict) else None
            if status not in ("open", "taken", "done", "dropped"):
                self.report.invalid += 1
                continue
            try:
                text = bl.validate_text(item.get("text"))
            except MindRefusal as exc:
                self.report.unsafe += exc.rule == "content.unsafe"
                self.report.invalid += exc.rule != "content.unsafe"
                continue
            created = time_of(item.get("createdAt")) or now
            updated = time_of(item.get("updatedAt")) or created
            expires = time_of(item.get("expiresAt")) or updated + STM_TTL
            active = status in ("open", "taken")
            if active and expires <= now:
                self.report.expired += 1
                continue
            digest = hashlib.sha256(f"{identity_text(text)}\0{created!r}".encode()).hexdigest()
            items.append(
                BacklogItem(
                    id=f"b_{digest[:12]}",
                    text=text,
                    status=status,
                    createdAt=created,
                    updatedAt=updated,
                    expiresAt=expires,
                    remindAt=time_of(item.get("remindAt")),
                    closedAt=None if active else updated,
                )
            )
        added = 0

        def step(rows: tuple[BacklogItem, ...]) -> tuple[BacklogItem, ...]:
            nonlocal added
            known = {(identity_text(r.text), r.active) for r in rows}
            fresh = []
            for it in items:
                k = (identity_text(it.text), it.active)
                if k not in known:
                    known.add(k)
                    fresh.append(it)
            added = len(fresh)
            return bl.cleanup((*rows, *fresh), now)

        if items:
            await self.service.store.mutate(target, step)
        self.report.entries_added += added
        self.report.conflicts += len(items) - added
