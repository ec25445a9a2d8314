"""``persona_mind.Memory``: the memory of one scope, for embedding in a program.

Why a facade: a program that only wants remember/recall should not assemble a store, a
clock, a scope and a service from five modules.  ``Memory`` is an async context manager
that starts the same Store actor a Pi session runs (so every write goes through the store
lock and the generation check, and a live session on the same agent dir never loses a write
made here, nor this one a session's) and binds a :class:`MemoryService` to a scope: the
project of ``cwd`` (home is not a project) and an optional persona identity
(``<source>/<pack>/<persona>``).  Refusals raise the typed errors of
:mod:`persona_mind.mind` (``InvalidArgument``, ``UnsafeContent``, ``NotFound``…), each a
``PersonaMindError`` whose message says what to do.

Example::

    async with Memory(cwd=".") as memory:
        found = await memory.remember("we deploy on Fridays", kind="convention")
        for hit in await memory.recall("deploy"):
            print(hit.fact.text, hit.reason)
"""

from __future__ import annotations

import builtins
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from persona_mind.clock import Clock, MonotonicClock
from persona_mind.errors import HostError
from persona_mind.mind._model import Fact, Kind, Tier
from persona_mind.mind._scope import MindScope, find_project
from persona_mind.mind._service import FoundFact, MemoryService, Recalled
from persona_mind.mind.migrate._exchange import ImportOutcome, export_lines, import_lines
from persona_mind.runtime import default_agent_dir

if TYPE_CHECKING:
    from persona_mind.actors import ActorSystem

__all__ = ("Memory",)


class Memory:
    """Scoped memory over the durable store (see the module doc)."""

    def __init__(
        self,
        *,
        agent_dir: str | os.PathLike[str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        persona: str | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.agent_dir = Path(agent_dir) if agent_dir is not None else default_agent_dir()
        self.cwd = Path(cwd) if cwd is not None else Path.cwd()
        self.persona = persona
        self.clock: Clock = clock or MonotonicClock()
        self._system: ActorSystem | None = None
        self._service: MemoryService | None = None

    async def __aenter__(self) -> Memory:
        from persona_mind.actors import ActorSystem  # noqa: PLC0415 - light top-level import
        from persona_mind.actors.store import spawn_store  # noqa: PLC0415

        system = ActorSystem(clock=self.clock)
        await system.__aenter__()
        try:
            self.agent_dir.mkdir(parents=True, exist_ok=True)
            store = spawn_store(system, self.agent_dir)
            scope = MindScope(self.agent_dir, self.persona, find_project(self.cwd))
        except BaseException:
            await system.stop()
            raise
        self._system = system
        self._service = MemoryService(store, self.clock, scope)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        system, self._system, self._service = self._system, None, None
        if system is not None:
            await system.__aexit__(exc_type, exc, tb)

    @property
    def service(self) -> MemoryService:
        """The bound service (for the backlog and injection planning)."""
        if self._service is None:
            raise HostError("Memory is not open; use `async with Memory(...) as memory:`")
        return self._service

    @property
    def scope(self) -> MindScope:
        """Agent dir, persona and project this memory reads and writes."""
        return self.service.scope

    # -- the memory verbs -----------------------------------------------------------------
    async def remember(
        self,
        text: str,
        *,
        kind: Kind = "note",
        tags: Sequence[str] = (),
        source: str | None = None,
        tier: Tier | None = None,
    ) -> FoundFact:
        """Record a fact (STM in a project by default; an exact repeat updates the row)."""
        found, _ = await self.service.remember(kind, text, tags=tags, source=source, tier=tier)
        return found

    async def recall(
        self, query: str, *, tiers: Sequence[Tier] | None = None, limit: int = 10
    ) -> list[Recalled]:
        """Rank live facts for ``query``, each with its score and reason; never writes."""
        return await self.service.recall(query, tiers=tiers, limit=limit)

    async def list(self, tier: Tier | None = None) -> builtins.list[FoundFact]:
        """Live facts of one tier (or every tier of the scope), newest first."""
        tiers = [tier] if tier is not None else list(self.scope.tiers())
        out: builtins.list[FoundFact] = []
        for t in tiers:
            out += [FoundFact(t, f) for f in await self.service.list_facts(t)]
        return out

    async def read(self, fact_id: str) -> FoundFact:
        """The whole fact by id (re-scanned before it is returned)."""
        return await self.service.read(fact_id)

    async def forget(self, fact_id: str) -> FoundFact:
        """Delete a fact by id; returns the removed row."""
        return await self.service.forget(fact_id)

    async def promote(self, fact_id: str, *, to: Tier = "project") -> FoundFact:
        """Move an STM fact this scope's persona recorded to a long-term tier."""
        return await self.service.promote(fact_id, to=to)

    async def supersede(
        self,
        fact_id: str,
        text: str,
        *,
        kind: Kind | None = None,
        tags: Sequence[str] | None = None,
    ) -> FoundFact:
        """Replace a fact with new text; returns the new row (the old one is kept, retired)."""
        _, new = await self.service.supersede(fact_id, text, kind=kind, tags=tags)
        return new

    async def history(self, fact_id: str) -> builtins.list[FoundFact]:
        """The supersession chain through ``fact_id``, oldest first (retired rows included)."""
        found = await self.service.find(fact_id)
        snap = await self.service.store.read(self.scope.fact_target(found.tier))
        rows: tuple[Fact, ...] = () if snap is None else snap.entries
        by_id = {f.id: f for f in rows}
        older = {f.supersededBy: f for f in rows if f.supersededBy is not None}
        chain: builtins.list[Fact] = [found.fact]
        seen = {found.fact.id}
        while (prev := older.get(chain[0].id)) is not None and prev.id not in seen:
            chain.insert(0, prev)
            seen.add(prev.id)
        while (nxt_id := chain[-1].supersededBy) is not None and nxt_id not in seen:
            nxt = by_id.get(nxt_id)
            if nxt is None:
                break
            chain.append(nxt)
            seen.add(nxt.id)
        return [FoundFact(found.tier, f) for f in chain]

    async def export(self, tiers: Iterable[Tier] | None = None) -> builtins.list[str]:
        """Every live fact of the scope as JSON Lines (see ``docs/mcp.md``, export format)."""
        return await export_lines(self.service, tiers)

    async def import_lines(
        self, lines: Iterable[str], *, skip_refused: bool = False
    ) -> ImportOutcome:
        """Import JSON Lines: all lines checked and scanned first, duplicates skipped."""
        return await import_lines(self.service, lines, skip_refused=skip_refused)
