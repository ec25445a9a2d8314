"""MemoryService: the scope-bound memory and backlog operations behind tools, commands and CLI.

Host-neutral and actor-free: it holds a :class:`StorePort`, a :class:`Clock` and a
:class:`MindScope`, and every mutation is a pure step run by the store under its lock, so
the owner actor that holds this service gets mutation order from its mailbox and the
store's lock, never from an in-process lock.  ``generation`` is forwarded to the store,
which refuses stale work inside its mutation step (M-CAPTURE-5/6).

Reads never write: recall/read/list never bump ``lastSeenAt`` or extend expiry
(M-FACT-10); expired rows are filtered at read time (M-MIGRATE-7) and removed only by
:meth:`MemoryService.cleanup`, under the store lock on the current rows (M-STORE-19).

The service is built in layers, each in its own module: :mod:`._store_access` (scope,
store, clock, id lookup via :mod:`._fact_lookup`), :mod:`._backlog_ops` (the backlog tool)
and this one (the memory tool, maintenance and injection); indexes are cached by
:mod:`._index_cache`.
"""

from __future__ import annotations

import functools
import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from persona_mind.errors import PersonaMindError
from persona_mind.messages.memory import Origin
from persona_mind.mind._errors import AccessRefused, InvalidArgument
from persona_mind.mind._model import BacklogItem, Fact, Kind, Tier
from persona_mind.mind.backlog import _rules as bl
from persona_mind.mind.backlog._ops import BacklogOps
from persona_mind.mind.facts import _rules as fx
from persona_mind.mind.facts._flat import FlatFact
from persona_mind.mind.facts._lookup import FoundFact
from persona_mind.mind.facts._promote import promote_in_store
from persona_mind.mind.facts._updates import updated_by
from persona_mind.mind.inject._planner import (
    TOTAL_TOKENS,
    InjectionInput,
    InjectionPlan,
    NoteView,
    plan_injection,
)
from persona_mind.mind.recall._fusion import explain, task_scores
from persona_mind.mind.recall._index_cache import Offload
from persona_mind.mind.recall._ranker import RankerStatus, Semantic, ranker_for
from persona_mind.mind.recall._retrieval import FactIndex, Ranked
from persona_mind.mind.trust._scanner import assert_safe, is_safe
from persona_mind.storage.port import Snapshot, read_all

__all__ = ("FoundFact", "MemoryService", "Offload", "Recalled")


class _Unread:
    """``index()`` was not handed the snapshot: read it."""


_UNREAD = _Unread()

PLAN_OFFLOAD_FACTS = 4_000
RANK_CHARS = 32_000
"""The most of a prompt the ranker reads: its first and last halves of this.  Why: turning a
4 MB pasted prompt into search terms (or embedding it) is hundreds of milliseconds of CPU in
one piece, past the turn's 750 ms fail-open and blocking the loop; what a long prompt asks
is at its start or its end (a question above or below a pasted log)."""


def ranking_text(prompt: str) -> str:
    """``prompt``, or its first and last ``RANK_CHARS / 2`` characters when it is longer."""
    if len(prompt) <= RANK_CHARS:
        return prompt
    half = RANK_CHARS // 2
    return f"{prompt[:half]}\n{prompt[-half:]}"


UPDATE_CANDIDATES = 12
"""Best lexical matches per tier compared with a new fact for an update (see updates_of)."""
"""From this many indexed facts a turn's injection plan runs on the offload (the IO
thread): about 2 µs of ranking per fact, so 4,000 facts stay near the 10 ms ping budget."""


@dataclass(frozen=True, slots=True)
class Recalled(FlatFact):
    """A recall hit: tier, fact and the explainable ranking reason (``hit.text`` reads the fact)."""

    tier: Tier
    fact: Fact
    score: float
    reason: str


class MemoryService(BacklogOps):
    """Memory and backlog operations for one scope."""

    last_prompt: tuple[str, tuple[NoteView, ...], bool, int] | None = None
    """The last injection's arguments, for ``/mind why`` to plan it again and explain it.
    Why not the plan itself: a plan holds its indexes (for its explanation), and keeping a
    large store's superseded index alive past the index cache's piecewise ``retire`` would
    free it in one GIL-holding cascade on the event loop later (issue 15 item 9)."""

    # -- memory tool ---------------------------------------------------------------------

    async def remember(
        self,
        kind: Kind,
        text: str,
        *,
        tags: Sequence[str] = (),
        source: str | None = None,
        tier: Tier | None = None,
        origin: Origin = "unknown",
        confirmed: bool = False,
    ) -> tuple[FoundFact, bool]:
        """Record a fact (exact re-record updates it).  Returns (row, created).

        The annotations are the real types; values from a tool call are still checked at run
        time (:func:`validate_draft`), so a wrong kind or a non-string is a typed refusal.
        ``origin``/``confirmed``: who wrote the words (each writer passes its own; see
        docs/mind.md, "Origin").
        """
        draft = fx.validate_draft(kind, text, tags, source, origin=origin, confirmed=confirmed)
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

    async def updates_of(self, found: FoundFact, *, limit: int = 3) -> list[FoundFact]:
        """Stored facts that ``found`` (just recorded) likely updates: same subject, a changed
        value (:mod:`~persona_mind.mind.facts._updates`).  The faces name them at ``remember``
        with a ``supersede`` offer; nothing is superseded here (the user or model decides).

        Only each tier's best lexical matches are compared, so this stays cheap at 10,000
        facts; the tiers are read in one request to the Store, as for an injection; never
        raises (an offer is not worth a failure: a store that cannot be read offers nothing).
        """
        now = self.now()
        tiers = list(self.scope.tiers())
        out: list[FoundFact] = []
        try:
            snaps = await read_all(self.store, [self.scope.fact_target(t) for t in tiers])
            indexes = [(t, await self.index(t, now, snaps[i])) for i, t in enumerate(tiers)]
        except PersonaMindError:
            return []
        for tier, index in indexes:
            scored = index.scores(found.fact.text)
            top = heapq.nlargest(UPDATE_CANDIDATES, scored, key=scored.__getitem__)
            rows = [index.facts[d] for d in top]
            out += [FoundFact(tier, f) for f in updated_by(found.fact, rows, limit=limit)]
        return out[:limit]

    async def recall(
        self, query: str, *, tiers: Sequence[Tier] | None = None, limit: int = 10
    ) -> list[Recalled]:
        """Rank live facts for ``query`` across tiers; never writes (M-FACT-10).

        An empty query is refused: it matches nothing, and ranking it would only return
        facts scored 0.0 that look like answers. Only what the ranker matched is returned
        (by words, or by meaning with the hybrid ranker): recency orders ties, never fills,
        so an unrelated query answers nothing instead of recent facts labelled "recent"."""
        if not isinstance(query, str) or not query.strip():
            raise InvalidArgument(
                "query.required", "recall needs a query: the words to look for (list shows all)"
            )
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
                if r.score > 0 and is_safe(r.fact.text, *r.fact.tags)
            ]
        hits.sort(key=lambda h: (-h.score, -h.fact.lastSeenAt, h.fact.id))
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
        origin: Origin | None = None,
        confirmed: bool | None = None,
    ) -> tuple[FoundFact, FoundFact]:
        """Retire ``fact_id`` and record its replacement in the same tier.

        The replacement's words are the superseding writer's: ``origin`` names it.  Without
        one (``None``) the replacement keeps the retired row's origin and ``confirmed``;
        the retired row keeps its own either way (lineage, docs/mind.md "Origin")."""
        found = await self.find(fact_id)
        fact_id = found.fact.id  # a shown prefix names the whole id from here on
        old = found.fact
        draft = fx.validate_draft(
            kind if kind is not None else old.kind,
            text,
            old.tags if tags is None else tags,
            old.source,
            origin=old.origin if origin is None else origin,
            confirmed=(old.confirmed if origin is None else False)
            if confirmed is None
            else confirmed,
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

        One Store transaction; see :mod:`persona_mind.mind.facts._promote`."""
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
        """The tier's live-fact index, rebuilt only when the snapshot or an expiry changes
        (:class:`~persona_mind.mind.recall._index_cache.IndexCache`)."""
        target = self.scope.fact_target(tier)
        if isinstance(snap, _Unread):
            snap = await self.store.read(target)
        return await self._cache.index(target.path, snap, now)

    def release(self) -> None:
        """This service is being replaced (a session switch): free its indexes and token
        caches off the loop (:meth:`IndexCache.release`)."""
        self._cache.release()

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
        block (the capture hint), so the two together stay inside it (M-UI-4).  A prompt
        longer than :data:`RANK_CHARS` is ranked on its head and tail (:func:`ranking_text`)."""
        prompt = ranking_text(prompt)
        now = self.now()
        tiers, targets, paths, with_backlog = self._turn_targets(lean)
        snaps = await read_all(self.store, targets)  # one hop to the Store's IO thread
        cache, indexes = self._cache, dict[Tier, FactIndex]()
        for i, t in enumerate(tiers):  # nearly always cached: a call, not a coroutine, each
            got = cache.cached(paths[i], snaps[i], now)
            indexes[t] = got if got is not None else await cache.index(paths[i], snaps[i], now)
        backlog: tuple[BacklogItem, ...] = ()
        if with_backlog and (rows := snaps[-1]) is not None:
            backlog = rows.entries
        semantic, ranker = self._ranker(prompt, indexes, paths)
        plan = functools.partial(
            plan_injection,
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
            ),
        )
        # Ranking a large store is tens of milliseconds of CPU: with an offload (the sidecar)
        # it runs on the Store's IO thread so pings stay answered; a small store is planned
        # here, where a hop would cost more than the plan (bench/_bridge_limits.py).
        self.last_prompt = (prompt, tuple(notes), lean, reserve_tokens)
        if self._offload is not None and sum(map(len, indexes.values())) >= PLAN_OFFLOAD_FACTS:
            return await self._offload(plan)
        return plan()

    def _semantic(
        self, prompt: str, indexes: Mapping[Tier, FactIndex]
    ) -> tuple[Semantic | None, RankerStatus]:
        """The hybrid ranker for ``prompt`` over this scope's stores, or lexical and why."""
        return self._ranker(prompt, indexes, [self.scope.fact_target(t).path for t in indexes])

    def _ranker(
        self, prompt: str, indexes: Mapping[Tier, FactIndex], paths: Sequence[Path]
    ) -> tuple[Semantic | None, RankerStatus]:
        """:meth:`_semantic` with each tier's store path known (``paths``: in the order of
        ``indexes``)."""
        stores = list(zip(indexes.values(), paths, strict=True))
        # with an offload (the sidecar) nothing large is bound on the event loop: the turn
        # is lexical and says so until the vectors are in (issue 15 item 9)
        return ranker_for(self.semantic, prompt, stores, wait=self._offload is None)

    def require_tools(self, *, leg: bool) -> None:
        """Legs have no memory/backlog tools (M-LEG-5)."""
        if leg:
            raise AccessRefused("leg.no_tools", "delegated legs have no memory or backlog tools")
