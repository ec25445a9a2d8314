"""Fact id resolution: the row a tool call names, by whole id or by the prefix the block shows.

Why a module of its own: the injected block shortens ids (:func:`~persona_mind.mind.shown_id`)
and every id-taking operation (read, forget, supersede, promote) resolves them the same
way, ambiguity included; this is that one rule, apart from what each operation then does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from persona_mind.mind._errors import InvalidArgument, NotFound
from persona_mind.mind._model import Fact, Tier
from persona_mind.mind.facts import _rules as fx
from persona_mind.mind.facts._flat import FlatFact
from persona_mind.mind.inject._shown_ids import ID_CHARS

__all__ = ("FoundFact", "find_fact")


@dataclass(frozen=True, slots=True)
class FoundFact(FlatFact):
    """A fact and the tier it lives in (``found.text``, ``found.expires_at`` read the fact)."""

    tier: Tier
    fact: Fact


async def find_fact(
    fact_id: str,
    tiers: Sequence[Tier],
    facts: Callable[[Tier], Awaitable[tuple[Fact, ...]]],
    wall: Callable[[], float],
) -> FoundFact:
    """Locate a row (any status) by id across this scope's tiers."""
    if not isinstance(fact_id, str) or not fact_id:
        raise InvalidArgument("id.required", "id must be a non-empty string")
    for tier in tiers:
        row = fx.find(await facts(tier), fact_id)
        if row is not None:
            return FoundFact(tier, row)
    if len(fact_id) >= ID_CHARS:  # the injected block shows ids shortened (shown_id)
        hits = [
            FoundFact(tier, row)
            for tier in tiers
            for row in await facts(tier)
            if row.id.startswith(fact_id)
        ]
        now = wall()
        live = [h for h in hits if h.fact.live(now)]
        if len(hits) == 1 or len(live) == 1:
            return hits[0] if len(hits) == 1 else live[0]
        if hits:
            ids = ", ".join(sorted(h.fact.id for h in hits))
            raise InvalidArgument(
                "id.ambiguous", f"{fact_id!r} starts {len(hits)} fact ids ({ids}); give one"
            )
    for tier in tiers:  # a promoted STM row is gone; its long-term copy names it
        for row in await facts(tier):
            if fact_id in row.derivedFrom:
                raise NotFound(
                    "fact.promoted",
                    f"fact {fact_id!r} was promoted to {row.id} ({tier}); read {row.id}",
                )
    raise NotFound("fact.not_found", f"no fact {fact_id!r} in this scope; recall to find ids")
