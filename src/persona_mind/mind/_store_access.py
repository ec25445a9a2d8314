"""What every MemoryService operation stands on: the scope, the store, the clock, id lookup.

Why a module of its own: the memory tool's and the backlog tool's operations share this
plumbing — rows read without writing, mutations as pure steps the store runs under its
lock with the service's generation (M-CAPTURE-5/6), the default tier, id resolution — and
:class:`~persona_mind.mind.MemoryService` is built on it in layers
(:class:`StoreAccess` → :class:`~persona_mind.mind.backlog._ops.BacklogOps` →
``MemoryService``), each in a module of its own size.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from persona_mind.clock import Clock
from persona_mind.mind._errors import InvalidArgument
from persona_mind.mind._model import BacklogItem, Fact, Tier
from persona_mind.mind._scope import MindScope
from persona_mind.mind.facts._lookup import FoundFact, find_fact
from persona_mind.mind.recall._index_cache import IndexCache, Offload
from persona_mind.mind.recall._ranker import SemanticSource
from persona_mind.storage.port import StorePort, StoreTarget

__all__ = ("StoreAccess",)

E = TypeVar("E")

TurnTargets = tuple[tuple[Tier, ...], tuple[StoreTarget[Any], ...], tuple[Path, ...], bool]
"""(tiers, their targets then the backlog's, the tiers' store paths, whether the backlog is
read): what an injection reads, by scope and ``lean`` alone."""


class StoreAccess:
    """The scope-bound store plumbing of :class:`~persona_mind.mind.MemoryService`."""

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
        self._cache = IndexCache(offload, store)  # builds as Store jobs when it takes them
        self.semantic: SemanticSource | None = None
        self._targets_memo: tuple[MindScope, dict[bool, TurnTargets]] | None = None
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
        return await find_fact(fact_id, self.scope.tiers(), self._facts, self.now)

    def _require_backlog(self) -> StoreTarget[BacklogItem]:
        return self.scope.backlog_target()

    def _turn_targets(self, lean: bool) -> TurnTargets:
        """What an injection reads (:data:`TurnTargets`), memoised per scope: it depends on
        the scope alone, and each target look-up hashes the whole scope (every turn)."""
        scope = self.scope
        memo = self._targets_memo
        if memo is None or memo[0] is not scope:
            memo = self._targets_memo = (scope, {})
        got = memo[1].get(lean)
        if got is None:
            # A leg reads persona and shared LTM plus the project's objectives (M-LEG-3).
            keep = ("persona", "shared", "project")
            tiers = tuple(t for t in scope.tiers() if not lean or t in keep)
            targets: list[StoreTarget[Any]] = [scope.fact_target(t) for t in tiers]
            with_backlog = not lean and scope.project is not None
            if with_backlog:
                targets.append(self._require_backlog())
            paths = tuple(t.path for t in targets[: len(tiers)])
            got = memo[1][lean] = (tiers, tuple(targets), paths, with_backlog)
        return got
