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

The service is built by :func:`persona_mind._memory_service.memory_service`, the builder
the Pi session's ranker comes from too, so :meth:`Memory.recall` and :meth:`Memory.inject`
rank by meaning wherever a session does (the ``semantic`` extra; ``PERSONA_MIND_RANKER=
lexical`` opts out): the same store and prompt give the same facts in the same order here,
in ``persona-mind memory recall|inject``, in the MCP ``memory`` tool and in a session.  The
model loads on the Store's IO thread before the first ranking, never for a ``remember``.

Example::

    async with Memory(cwd=".") as memory:
        found = await memory.remember("we deploy on Fridays", kind="convention")
        for hit in await memory.recall("deploy"):
            print(hit.fact.text, hit.reason)
"""

from __future__ import annotations

import builtins
import dataclasses
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from persona_mind._memory_service import load_model, memory_service, start_store
from persona_mind.clock import Clock, MonotonicClock
from persona_mind.errors import HostError
from persona_mind.mind import _pending
from persona_mind.mind._errors import InvalidArgument
from persona_mind.mind._follow import RepoState, approve_link, follow_repository, unlink
from persona_mind.mind._links import Candidate
from persona_mind.mind._model import Fact, Kind, Tier
from persona_mind.mind._repo_exchange import find_repository_project, repo_header, split_header
from persona_mind.mind._scope import MindScope, ProjectRef, find_project
from persona_mind.mind._service import FoundFact, MemoryService, Recalled
from persona_mind.mind.migrate._exchange import ImportOutcome, export_lines, import_lines
from persona_mind.runtime import default_agent_dir

if TYPE_CHECKING:
    from persona_mind.actors import ActorSystem
    from persona_mind.actors.store import StoreClient
    from persona_mind.mind import InjectionPlan

__all__ = ("Memory", "MemoryOptions")


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class MemoryOptions:
    """Which scope a memory facade binds and which clock it reads: one value for all three.

    ``Memory``, ``SyncMemory`` and ``Consolidation`` bind the same scope the same way (the
    agent dir, the project of ``cwd``, an optional persona identity) and read the same
    clock; this value says it once, so a program that opens two of them for one scope builds
    it once and hands it to both.  The facades also take each field as a keyword argument;
    a keyword given (not ``None``) overrides the field of ``options``.
    """

    agent_dir: str | os.PathLike[str] | None = None
    """The agent directory (``None``: :func:`~persona_mind.default_agent_dir`)."""
    cwd: str | os.PathLike[str] | None = None
    """Where the project is found (``None``: the process's working directory)."""
    persona: str | None = None
    """A persona identity (``<source>/<pack>/<persona>``), or ``None`` for none."""
    clock: Clock | None = None
    """The clock (``None``: a :class:`~persona_mind.MonotonicClock`)."""
    one_shot: bool = False
    """The process opens this memory once and exits (the ``persona-mind memory`` commands):
    the Store keeps no inotify watch vouching for unchanged stores — it would never serve a
    second read, and closing it waits a kernel grace period (10–15 ms) at exit.  Reads and
    writes are the same either way."""

    @classmethod
    def merged(
        cls,
        options: MemoryOptions | None,
        *,
        agent_dir: str | os.PathLike[str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        persona: str | None = None,
        clock: Clock | None = None,
    ) -> MemoryOptions:
        """``options`` (or the defaults) with each keyword that is not ``None`` in its place."""
        base = options or cls()
        return cls(
            agent_dir=base.agent_dir if agent_dir is None else agent_dir,
            cwd=base.cwd if cwd is None else cwd,
            persona=base.persona if persona is None else persona,
            clock=base.clock if clock is None else clock,
            one_shot=base.one_shot,
        )

    def agent_path(self) -> Path:
        """The agent directory as a path (the default when none was given)."""
        return Path(self.agent_dir) if self.agent_dir is not None else default_agent_dir()

    def cwd_path(self) -> Path:
        """The working directory as a path (the process's when none was given)."""
        return Path(self.cwd) if self.cwd is not None else Path.cwd()

    def clock_or_default(self) -> Clock:
        """The clock to read (a fresh ``MonotonicClock`` when none was given)."""
        return self.clock or MonotonicClock()


class Memory:
    """Scoped memory over the durable store (see the module doc)."""

    def __init__(
        self,
        options: MemoryOptions | None = None,
        *,
        agent_dir: str | os.PathLike[str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        persona: str | None = None,
        clock: Clock | None = None,
    ) -> None:
        """``options`` names the scope and clock; each keyword given overrides its field."""
        self.options = MemoryOptions.merged(
            options, agent_dir=agent_dir, cwd=cwd, persona=persona, clock=clock
        )
        self.agent_dir = self.options.agent_path()
        self.cwd = self.options.cwd_path()
        self.persona = self.options.persona
        self.clock: Clock = self.options.clock_or_default()
        self._system: ActorSystem | None = None
        self._store: StoreClient | None = None
        self._service: MemoryService | None = None
        self.repository = RepoState()
        """The project's repository identity, its approved link and the link offers."""

    async def __aenter__(self) -> Memory:
        system, store = await start_store(
            self.agent_dir, self.clock, fresh_reads=not self.options.one_shot
        )
        try:
            scope = MindScope(self.agent_dir, self.persona, find_project(self.cwd))
            # the path stays the identity; an approved link picks the files (M-SCOPE-13)
            scope, self.repository = await follow_repository(
                store, scope, self.clock.wall(), run_blocking=store.run_io
            )
        except BaseException:
            await system.stop()
            raise
        self._system, self._store = system, store
        self._service = memory_service(store, self.clock, scope, env=os.environ)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        system, self._system, self._store, self._service = self._system, None, None, None
        if system is not None:
            await system.__aexit__(exc_type, exc, tb)

    @property
    def service(self) -> MemoryService:
        """The bound service (the backlog, the legacy import, ``remember``'s created flag)."""
        if self._service is None:
            raise HostError("Memory is not open; use `async with Memory(...) as memory:`")
        return self._service

    async def _ranking(self) -> MemoryService:
        """The service, once the semantic model is in (loaded off the loop, first time only)."""
        service = self.service
        assert self._store is not None  # open whenever the service is
        await load_model(os.environ, self._store.run_io)
        return service

    @property
    def scope(self) -> MindScope:
        """Agent dir, persona and project this memory reads and writes."""
        return self.service.scope

    # -- memory that follows the repository -----------------------------------------------
    async def link(self, to: str, *, approved: bool) -> Candidate:
        """Share the project tiers of ``to``, a known clone of this repository (same root
        commit and remote); ``approved`` says the user asked for it (else refused)."""
        assert self._store is not None  # open whenever the service is
        scope, chosen = await approve_link(
            self._store,
            self.scope,
            to,
            self.clock.wall(),
            approved=approved,
            run_blocking=self._store.run_io,
        )
        self._rebind(scope)
        return chosen

    async def unlink(self) -> str | None:
        """Stop sharing another path's project tiers; the root that was shared, or ``None``."""
        assert self._store is not None
        scope, was = await unlink(self._store, self.scope)
        self._rebind(scope)
        return was

    def _rebind(self, scope: MindScope) -> None:
        assert self._store is not None
        self.service.release()
        self._service = memory_service(self._store, self.clock, scope, env=os.environ)
        self.repository = RepoState(
            self.repository.identity,
            None if scope.project is None else scope.project.linked,
            tuple(
                c
                for c in self.repository.offers
                if scope.project is None or c.root != scope.project.linked
            ),
        )

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
        found, _ = await self.service.remember(
            kind, text, tags=tags, source=source, tier=tier, origin="library"
        )
        return found

    async def recall(
        self, query: str, *, tiers: Sequence[Tier] | None = None, limit: int = 10
    ) -> list[Recalled]:
        """Rank live facts for ``query``, each with its score and reason; never writes."""
        return await (await self._ranking()).recall(query, tiers=tiers, limit=limit)

    async def inject(self, prompt: str) -> InjectionPlan:
        """The memory block a session's turn with ``prompt`` would get (no session notes)."""
        return await (await self._ranking()).injection(prompt)

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
        _, new = await self.service.supersede(fact_id, text, kind=kind, tags=tags, origin="library")
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

    async def export(
        self, tiers: Iterable[Tier] | None = None, *, by_repo: bool = False
    ) -> builtins.list[str]:
        """Every live fact of the scope as JSON Lines (see ``docs/mcp.md``, export format);
        ``by_repo`` starts them with the repository header (``mind/_repo_exchange.py``)."""
        lines = await export_lines(self.service, tiers)
        if not by_repo:
            return lines
        identity = self.repository.identity
        if identity is None:
            raise InvalidArgument(
                "export.no_identity",
                "this project has no repository identity (a git repository with a commit and "
                "an `origin` remote); export without --by-repo",
            )
        return [repo_header(identity), *lines]

    async def import_by_repository(
        self,
        lines: Iterable[str],
        *,
        skip_refused: bool = False,
        default_tier: Tier | None = None,
    ) -> tuple[str, ImportOutcome]:
        """Import a ``--by-repo`` export into the known project of its repository (this
        one when it matches); the project root it went to and the outcome."""
        identity, rest = split_header(lines)
        if identity is None:
            raise InvalidArgument(
                "import.no_header",
                "the file has no repository header; export it with "
                "`persona-mind memory export --by-repo`, or import without --by-repo",
            )
        here = self.repository.identity
        scope = self.scope
        if here is None or not here.same_repository(identity) or scope.project is None:
            assert self._store is not None
            root = await find_repository_project(self._store, scope.layout, identity)
            scope = dataclasses.replace(scope, project=ProjectRef(root))
            service = memory_service(self._store, self.clock, scope, env=os.environ)
        else:
            service = self.service
        outcome = await import_lines(
            service, rest, skip_refused=skip_refused, default_tier=default_tier
        )
        assert scope.project is not None
        return scope.project.files, outcome

    async def import_lines(
        self,
        lines: Iterable[str],
        *,
        skip_refused: bool = False,
        default_tier: Tier | None = None,
    ) -> ImportOutcome:
        """Import JSON Lines: all lines checked and scanned first, duplicates skipped;
        ``default_tier`` for lines without one (else where ``remember`` puts them)."""
        _, rest = split_header(lines)  # a --by-repo export imports here too
        return await import_lines(
            self.service, rest, skip_refused=skip_refused, default_tier=default_tier
        )

    async def pending(self) -> builtins.list[FoundFact]:
        """Model writes the write policy holds for the user (``memory pending``)."""
        return [FoundFact(p.tier, p.fact) for p in await _pending.pending(self.service)]

    async def approve_pending(self, proposal_id: str) -> FoundFact:
        """The user accepts a proposal: stored with its origin and ``confirmed=True``."""
        found = await _pending.approve(self.service, proposal_id)
        return await self.service.find(found.id)

    async def drop_pending(self, proposal_id: str) -> FoundFact:
        """The user declines a proposal: it is deleted and leaves no trace in memory."""
        p = await _pending.drop(self.service, proposal_id)
        return FoundFact(p.tier, p.fact)
