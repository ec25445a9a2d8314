"""MemoryService: the scope-bound memory and backlog operations behind tools, commands and CLI.

Host-neutral and actor-free: it holds a :class:`StorePort`, a :class:`Clock` and a
:class:`MindScope`, and every mutation is a pure step run by the store under its lock, so
the owner actor that holds this service gets mutation order from its mailbox and the
store's lock, never from an in-process lock.  ``generation`` is forwarded to the store,
which refuses stale work inside its mutation step (M-CAPTURE-5/6).

Reads never write: recall/read/list never bump ``lastSeenAt`` or extend expiry
(M-FACT-10); expired rows are filtered at read time (M-MIGRATE-7) and removed only by
:meth:`MemoryService.cleanup`, under the store lock on the current rows (M-STORE-19).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from persona_mind.clock import Clock
from persona_mind.mind import _backlog as bl
from persona_mind.mind import _facts as fx
from persona_mind.mind._errors import AccessRefused, InvalidArgument, NotFound
from persona_mind.mind._fusion import explain, task_scores
from persona_mind.mind._inject import (
    TOTAL_TOKENS,
    InjectionInput,
    InjectionPlan,
    NoteView,
    plan_injection,
)
from persona_mind.mind._model import BacklogItem, BacklogStatus, Fact, Kind, Tier
from persona_mind.mind._promote import promote_in_store
from persona_mind.mind._ranker import RankerStatus, Semantic, SemanticSource, ranker_for
from persona_mind.mind._retrieval import FactIndex, Ranked, TokenCache, retire
from persona_mind.mind._scanner import assert_safe, is_safe
from persona_mind.mind._scope import MindScope
from persona_mind.mind._shown_ids import ID_CHARS
from persona_mind.storage.port import Snapshot, StorePort, StoreTarget, read_all

__all__ = ("FoundFact", "MemoryService", "Offload", "Recalled")

log = logging.getLogger(__name__)

E = TypeVar("E")
T = TypeVar("T")
TIERS: tuple[Tier, ...] = ("persona", "shared", "project", "stm")


class Offload(Protocol):
    """Runs blocking work away from the event loop (the runtime's IO thread); injected."""

    def __call__(self, fn: Callable[[], T], /) -> Awaitable[T]: ...


_IndexEntry = tuple[tuple[int, str], float, FactIndex]


class _Unread:
    """``index()`` was not handed the snapshot: read it."""


_UNREAD = _Unread()


@dataclass(frozen=True, slots=True)
class FoundFact:
    """A fact and the tier it lives in."""

    tier: Tier
    fact: Fact


@dataclass(frozen=True, slots=True)
class Recalled:
    """A recall hit: tier, fact and the explainable ranking reason."""

    tier: Tier
    fact: Fact
    score: float
    reason: str


class MemoryService:
    """Memory and backlog operations for one scope."""

    def __init__(
        self,
        store: StorePort,
        clock: Clock,
        scope: MindScope,
        *,
        generation: int | None = None,
        offload: Offload | None = None,
    ) -> None:
        """``offload`` runs index builds off the event loop (the sidecar passes the runtime's
        IO thread); without it they run inline, as a one-shot CLI wants."""
        self.store = store
        self.clock = clock
        self.scope = scope
        self.generation = generation
        self.import_pending = False
        self._offload = offload
        self._indexes: dict[Path, _IndexEntry] = {}
        self._tokens: dict[Path, TokenCache] = {}
        self._building: dict[Path, asyncio.Future[FactIndex]] = {}
        self._retiring: set[asyncio.Future[None]] = set()
        self._closed = False
        self.semantic: SemanticSource | None = None
        self.on_saved: Callable[[Tier], None] | None = None
        """Told the tier of every successful remember/promotion (the Scheduler's dirty
        tiers, M-OPTIMIZE-AUTO-9)."""
        """The model edge (hybrid ranking); ``None`` ranks lexically and says nothing."""

    # -- plumbing ------------------------------------------------------------------------

    def now(self) -> float:
        return self.clock.wall()

    async def _rows(self, target: StoreTarget[E]) -> tuple[E, ...]:
        snap = await self.store.read(target)
        return () if snap is None else snap.entries

    async def _mutate(
        self, target: StoreTarget[E], step: Callable[[tuple[E, ...]], tuple[E, ...]]
    ) -> None:
        await self.store.mutate(target, step, generation=self.generation)

    def default_tier(self, kind: str) -> Tier:
        """STM in a project (objectives: project LTM); persona LTM in home."""
        if self.scope.project is not None:
            return "project" if kind == "objective" else "stm"
        if self.scope.persona is not None:
            return "persona"
        raise InvalidArgument(
            "tier.required",
            "home is not a project and no persona is active; pass tier 'shared' explicitly",
        )

    async def _facts(self, tier: Tier) -> tuple[Fact, ...]:
        return await self._rows(self.scope.fact_target(tier))

    async def find(self, fact_id: str) -> FoundFact:
        """Locate a row (any status) by id across this scope's tiers."""
        if not isinstance(fact_id, str) or not fact_id:
            raise InvalidArgument("id.required", "id must be a non-empty string")
        for tier in self.scope.tiers():
            row = fx.find(await self._facts(tier), fact_id)
            if row is not None:
                return FoundFact(tier, row)
        if len(fact_id) >= ID_CHARS:  # the injected block shows ids shortened (shown_id)
            hits = [
                FoundFact(tier, row)
                for tier in self.scope.tiers()
                for row in await self._facts(tier)
                if row.id.startswith(fact_id)
            ]
            now = self.now()
            live = [h for h in hits if h.fact.live(now)]
            if len(hits) == 1 or len(live) == 1:
                return hits[0] if len(hits) == 1 else live[0]
            if hits:
                ids = ", ".join(sorted(h.fact.id for h in hits))
                raise InvalidArgument(
                    "id.ambiguous", f"{fact_id!r} starts {len(hits)} fact ids ({ids}); give one"
                )
        raise NotFound("fact.not_found", f"no fact {fact_id!r} in this scope; recall to find ids")

    # -- memory tool ---------------------------------------------------------------------

    async def remember(
        self,
        kind: Kind,
        text: str,
        *,
        tags: Sequence[str] = (),
        source: str | None = None,
        tier: Tier | None = None,
    ) -> tuple[FoundFact, bool]:
        """Record a fact (exact re-record updates it).  Returns (row, created).

        The annotations are the real types; values from a tool call are still checked at run
        time (:func:`validate_draft`), so a wrong kind or a non-string is a typed refusal.
        """
        draft = fx.validate_draft(kind, text, tags, source)
        dest = tier or self.default_tier(draft.kind)
        target = self.scope.fact_target(dest)
        now = self.now()
        out: list[tuple[Fact, bool]] = []

        def step(rows: tuple[Fact, ...]) -> tuple[Fact, ...]:
            new_rows, row, created = fx.record(
                rows, dest, draft, persona=self.scope.persona, now=now
            )
            out.append((row, created))
            return new_rows

        await self._mutate(target, step)
        row, created = out[-1]
        if self.on_saved is not None:
            self.on_saved(dest)
        return FoundFact(dest, row), created

    async def recall(
        self, query: str, *, tiers: Sequence[Tier] | None = None, limit: int = 10
    ) -> list[Recalled]:
        """Rank live facts for ``query`` across tiers; never writes (M-FACT-10)."""
        if limit < 1 or limit > 50:
            raise InvalidArgument("limit.range", "limit must be between 1 and 50")
        now = self.now()
        hits: list[Recalled] = []
        chosen = tuple(tiers or self.scope.tiers())
        indexes = {tier: await self.index(tier, now) for tier in chosen}
        semantic, _ = self._semantic(query, indexes)
        for tier, index in indexes.items():
            scored, sims = task_scores(index, query, semantic, limit * 2)
            ranked: list[Ranked] = index.rank(query, limit * 2, scored)
            explain(ranked, index, sims)
            hits += [
                Recalled(tier, r.fact, r.score, r.reason)
                for r in ranked
                if is_safe(r.fact.text, *r.fact.tags)
            ]
        hits.sort(key=lambda h: (0 if h.score else 1, -h.score, -h.fact.lastSeenAt, h.fact.id))
        return hits[:limit]

    async def read(self, fact_id: str) -> FoundFact:
        """The whole fact, re-scanned including source and tags (M-INJECT-9)."""
        found = await self.find(fact_id)
        assert_safe("stored fact", found.fact.text, found.fact.source or "", *found.fact.tags)
        return found

    async def list_facts(self, tier: Tier) -> list[Fact]:
        """Live rows of one tier, newest first (unsafe rows withheld)."""
        now = self.now()
        rows = [f for f in await self._facts(tier) if f.live(now)]
        rows.sort(key=lambda f: (-f.lastSeenAt, f.id))
        return [f for f in rows if is_safe(f.text, *f.tags)]

    async def forget(self, fact_id: str) -> FoundFact:
        """Remove one row (owner-checked in project tiers)."""
        found = await self.find(fact_id)
        fact_id = found.fact.id  # a shown prefix names the whole id from here on
        now = self.now()
        out: list[Fact] = []

        def step(rows: tuple[Fact, ...]) -> tuple[Fact, ...]:
            new_rows, row = fx.forget(
                rows, found.tier, fact_id, persona=self.scope.persona, now=now
            )
            out.append(row)
            return new_rows

        await self._mutate(self.scope.fact_target(found.tier), step)
        return FoundFact(found.tier, out[-1])

    async def supersede(
        self,
        fact_id: str,
        text: str,
        *,
        kind: Kind | None = None,
        tags: Sequence[str] | None = None,
    ) -> tuple[FoundFact, FoundFact]:
        """Retire ``fact_id`` and record its replacement in the same tier."""
        found = await self.find(fact_id)
        fact_id = found.fact.id  # a shown prefix names the whole id from here on
        old = found.fact
        draft = fx.validate_draft(
            kind if kind is not None else old.kind,
            text,
            old.tags if tags is None else tags,
            old.source,
        )
        now = self.now()
        out: list[tuple[Fact, Fact]] = []

        def step(rows: tuple[Fact, ...]) -> tuple[Fact, ...]:
            new_rows, retired, new = fx.supersede(
                rows, found.tier, fact_id, draft, persona=self.scope.persona, now=now
            )
            out.append((retired, new))
            return new_rows

        await self._mutate(self.scope.fact_target(found.tier), step)
        retired, new = out[-1]
        return FoundFact(found.tier, retired), FoundFact(found.tier, new)

    async def promote(self, fact_id: str, *, to: Tier = "project") -> FoundFact:
        """Copy an owned live STM row to ``to`` (LTM first), then remove exactly that row.

        One Store transaction; see :mod:`persona_mind.mind._promote`."""
        if to not in ("project", "persona", "shared"):
            raise InvalidArgument(
                "promote.destination", "promote to 'project', 'persona' or 'shared'"
            )
        found = await self.find(fact_id)
        fact_id = found.fact.id  # a shown prefix names the whole id from here on
        if found.tier != "stm":
            raise InvalidArgument(
                "promote.source", f"{fact_id} is not a live STM fact; only STM rows are promoted"
            )
        # Owner and liveness are checked again inside the locked step (M-FACT-17, M-STORE-13).
        row = await promote_in_store(
            self.store, self.scope, fact_id, to, now=self.now(), generation=self.generation
        )
        if self.on_saved is not None:
            self.on_saved(to)
        return FoundFact(to, row)

    # -- backlog tool --------------------------------------------------------------------

    def _require_backlog(self) -> StoreTarget[BacklogItem]:
        return self.scope.backlog_target()

    async def backlog_add(
        self, text: str, *, tags: Sequence[str] = (), remind_in: float | None = None
    ) -> tuple[BacklogItem, bl.AddOutcome]:
        """Add deferred work (``remind_in`` seconds from now sets a reminder)."""
        target = self._require_backlog()
        clean = bl.validate_text(text)
        if tags is not None and not isinstance(tags, (list, tuple)):
            raise InvalidArgument("tags.malformed", "tags must be a list of strings")
        now = self.now()
        remind_at = None if remind_in is None else now + remind_in
        out: list[tuple[BacklogItem, bl.AddOutcome]] = []

        def step(rows: tuple[BacklogItem, ...]) -> tuple[BacklogItem, ...]:
            new_rows, item, outcome = bl.add(
                rows, clean, tags=tags, persona=self.scope.persona, now=now, remind_at=remind_at
            )
            out.append((item, outcome))
            return new_rows

        await self._mutate(target, step)
        return out[-1]

    async def backlog_list(self, *, include_closed: bool = False) -> list[BacklogItem]:
        """Live items (and closed history when asked), newest first; never writes."""
        now = self.now()
        rows = [
            b
            for b in await self._rows(self._require_backlog())
            if b.live(now) or (include_closed and not b.active)
        ]
        rows.sort(key=lambda b: (0 if b.active else 1, -b.updatedAt, b.id))
        return rows

    async def backlog_move(self, item_id: str, to: BacklogStatus) -> tuple[BacklogItem, bool]:
        """take / done / drop; repeats are idempotent, terminal items never reopen."""
        if not isinstance(item_id, str) or not item_id:
            raise InvalidArgument("id.required", "id must be a non-empty string")
        now = self.now()
        out: list[tuple[BacklogItem, bool]] = []

        def step(rows: tuple[BacklogItem, ...]) -> tuple[BacklogItem, ...]:
            new_rows, item, changed = bl.transition(rows, item_id, to, now=now)
            out.append((item, changed))
            return bl.cleanup(new_rows, now) if changed and to in ("done", "dropped") else new_rows

        await self._mutate(self._require_backlog(), step)
        return out[-1]

    async def backlog_remind(self, item_id: str, remind_in: float) -> BacklogItem:
        """Set a later reminder; it extends the item's expiry (M-BACKLOG-3)."""
        now = self.now()
        out: list[BacklogItem] = []

        def step(rows: tuple[BacklogItem, ...]) -> tuple[BacklogItem, ...]:
            new_rows, item = bl.remind(rows, item_id, now + remind_in, now=now)
            out.append(item)
            return new_rows

        await self._mutate(self._require_backlog(), step)
        return out[-1]

    # -- maintenance and injection -------------------------------------------------------

    async def cleanup(self) -> bool:
        """Remove expired STM and backlog rows under the lock; deferred while importing."""
        if self.import_pending or self.scope.project is None:
            return False
        now = self.now()
        stm = await self._facts("stm")
        if any(not f.live(now) and f.status == "active" for f in stm):
            await self._mutate(self.scope.fact_target("stm"), lambda rows: fx.expire(rows, now))
        rows = await self._rows(self._require_backlog())
        if bl.cleanup(rows, now) != rows:
            await self._mutate(self._require_backlog(), lambda r: bl.cleanup(r, now))
        return True

    async def index(
        self, tier: Tier, now: float, snap: Snapshot[Fact] | _Unread | None = _UNREAD
    ) -> FactIndex:
        """The tier's live-fact index, rebuilt only when the snapshot or an expiry changes.

        A build (the first one on a 16 MiB store takes about a second) runs through the
        injected ``offload`` as a task of its own: one per store at a time (it owns the token
        cache), and a caller cancelled by the 750 ms deadline leaves it running, so its
        result is cached for the next turn instead of being thrown away (issue 15, item 9).
        """
        target = self.scope.fact_target(tier)
        if isinstance(snap, _Unread):
            snap = await self.store.read(target)
        key = (0, "") if snap is None else (snap.sequence, snap.updatedAt)
        path = target.path
        while True:
            cached = self._indexes.get(path)
            if cached is not None and cached[0] == key and now < cached[1]:
                return cached[2]
            building = self._building.get(path)
            if building is None:
                break
            cached = None  # never hold an index across an await: it may be retired meanwhile
            with contextlib.suppress(Exception):  # its failure is re-met by our own build
                await asyncio.shield(building)
        rows = () if snap is None else snap.entries
        build = asyncio.ensure_future(self._build(path, key, rows, now, cached))
        cached = None
        self._building[path] = build

        def forget(done: asyncio.Future[FactIndex]) -> None:
            if self._building.get(path) is done:
                del self._building[path]
            if not done.cancelled():
                done.exception()  # marked retrieved: a caller that left is past caring

        build.add_done_callback(forget)
        return await asyncio.shield(build)

    async def _build(
        self,
        path: Path,
        key: tuple[int, str],
        rows: tuple[Fact, ...],
        now: float,
        cached: _IndexEntry | None,
    ) -> FactIndex:
        tokens = self._tokens.setdefault(path, {})

        def work() -> _IndexEntry:
            index = cached[2].updated(rows, now, tokens) if cached is not None else None
            if index is None:
                index = FactIndex.build(rows, now, tokens)
            if len(tokens) > 2 * max(1, len(index)):  # forget rows that left the store
                for key_ in [k for k in tokens if k not in index.slot_of]:
                    del tokens[key_]
            live = (index.facts[i] for i in index.slot_of.values())
            next_expiry = min(
                (f.expiresAt for f in live if f.expiresAt is not None), default=float("inf")
            )
            return key, next_expiry, index

        try:
            entry = await self._offload(work) if self._offload is not None else work()
        finally:
            cached = None  # the closure's reference too: the old index goes to _retire only
        if self._closed:  # released while building: this index has no reader
            self._retire(entry[2])
            return entry[2]
        old = self._indexes.get(path)
        self._indexes[path] = entry
        if old is not None:
            self._retire(old[2])
        return entry[2]

    def _retire(self, index: FactIndex | None, *caches: TokenCache) -> None:
        """Free a replaced index on the offload thread, piecewise (issue 15 item 9).

        Dropping a 19,000-fact index frees ~2.8 M objects in one 290–380 ms GIL-holding
        step; :func:`retire` takes it apart in small steps on the thread that runs it.
        Without an offload (the one-shot CLI) the index is just dropped.
        """
        offload = self._offload
        if offload is None:
            return
        job = retire(index, *caches)
        del index, caches  # the job holds the last references now

        async def run() -> None:
            # started at the next loop iteration, when the caller's frame (and its
            # references to the old index) is gone
            await offload(job)

        task = asyncio.ensure_future(run())
        self._retiring.add(task)

        def done(t: asyncio.Future[None]) -> None:
            self._retiring.discard(t)
            if not t.cancelled() and (exc := t.exception()) is not None:
                log.warning("releasing an old index failed: %r", exc)

        task.add_done_callback(done)

    def release(self) -> None:
        """This service is being replaced (a session switch): free its indexes and token
        caches off the loop, as :meth:`_retire` does for one replaced index."""
        self._closed = True
        indexes = [entry[2] for entry in self._indexes.values()]
        caches = list(self._tokens.values())
        self._indexes, self._tokens = {}, {}
        self._retire(indexes.pop() if indexes else None, *caches)
        while indexes:
            self._retire(indexes.pop())

    async def injection(
        self,
        prompt: str,
        *,
        notes: Sequence[NoteView] = (),
        lean: bool = False,
        reserve_tokens: int = 0,
    ) -> InjectionPlan:
        """Read this scope's stores and plan the memory block (wrap in :func:`with_deadline`).

        ``reserve_tokens`` is taken off the 2,400-token budget for text injected beside the
        block (the capture hint), so the two together stay inside it (M-UI-4)."""
        now = self.now()
        # A leg reads persona and shared LTM plus the project's objectives (M-LEG-3).
        tiers = [t for t in self.scope.tiers() if not lean or t in ("persona", "shared", "project")]
        targets: list[StoreTarget[Any]] = [self.scope.fact_target(t) for t in tiers]
        with_backlog = not lean and self.scope.project is not None
        if with_backlog:
            targets.append(self._require_backlog())
        snaps = await read_all(self.store, targets)  # one hop to the Store's IO thread
        indexes = {t: await self.index(t, now, snaps[i]) for i, t in enumerate(tiers)}
        backlog: tuple[BacklogItem, ...] = ()
        if with_backlog and (rows := snaps[-1]) is not None:
            backlog = rows.entries
        semantic, ranker = self._semantic(prompt, indexes)
        return plan_injection(
            InjectionInput(
                prompt=prompt,
                now=now,
                indexes=indexes,
                backlog=backlog,
                notes=() if lean else tuple(notes),
                lean=lean,
                persona=self.scope.persona,
                semantic=semantic,
                ranker=ranker,
                total_tokens=TOTAL_TOKENS - max(0, reserve_tokens),
            )
        )

    def _semantic(
        self, prompt: str, indexes: Mapping[Tier, FactIndex]
    ) -> tuple[Semantic | None, RankerStatus]:
        """The hybrid ranker for ``prompt`` over this scope's stores, or lexical and why."""
        stores = [(index, self.scope.fact_target(tier).path) for tier, index in indexes.items()]
        # with an offload (the sidecar) nothing large is bound on the event loop: the turn
        # is lexical and says so until the vectors are in (issue 15 item 9)
        return ranker_for(self.semantic, prompt, stores, wait=self._offload is None)

    def require_tools(self, *, leg: bool) -> None:
        """Legs have no memory/backlog tools (M-LEG-5)."""
        if leg:
            raise AccessRefused("leg.no_tools", "delegated legs have no memory or backlog tools")
