"""The semantic ranker port: what the planner asks of an embedding model, and nothing more.

Mind stays pure (no model, no numpy, no IO): the model edge
(:mod:`persona_mind.embedding`) embeds the prompt once and answers, per
:class:`~persona_mind.mind.recall._retrieval.FactIndex`, the cosine similarity of the prompt to the
facts the planner asks about plus the ``top`` most similar live facts.  Similarities are
rounded to :data:`SIM_DECIMALS` places at the edge so the same input always gives the same
block, whatever the float summation order of the machine's BLAS.

:class:`RankerStatus` is the one-line account of which ranker ran, for the injection's
disclosures and ``/mind doctor``: hybrid, or lexical with the reason.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from persona_mind.mind.recall._retrieval import FactIndex

__all__ = (
    "LEXICAL",
    "SIM_DECIMALS",
    "RankerStatus",
    "Semantic",
    "SemanticSource",
    "ranker_for",
    "warming_up",
)

log = logging.getLogger(__name__)

SIM_DECIMALS = 4


class Semantic(Protocol):
    """One prompt's similarity to indexed facts (implemented at the model edge)."""

    def similarities(
        self, index: FactIndex, slots: Collection[int], top: int
    ) -> Mapping[int, float]:
        """Cosine similarity (rounded) for each of ``slots`` and the ``top`` best live slots."""
        ...


@dataclass(frozen=True, slots=True)
class RankerStatus:
    """Which ranker a plan used; ``reason`` says why it is lexical when it is."""

    hybrid: bool
    reason: str = ""

    def describe(self) -> str:
        if self.hybrid:
            return "hybrid (BM25 + semantic)"
        return f"lexical (BM25 with stemming){': ' + self.reason if self.reason else ''}"


LEXICAL = RankerStatus(hybrid=False)
"""Lexical by choice (tests, benchmarks, legs): nothing to disclose."""


class SemanticSource(Protocol):
    """What the memory service needs from the model edge (kept here to avoid an import cycle).

    Implementations never raise into a turn and never block on the model: before it is
    loaded :meth:`for_prompt` answers ``None`` and a status that says ranking is lexical.
    """

    def bind(self, index: FactIndex, store: Path | None, *, wait: bool = True) -> bool:
        """Give ``index`` its fact vectors (from the cache beside ``store``); whether it has
        them now.  ``wait=False``: a large bind starts off the event loop and answers
        ``False`` until it is done (the turn ranks lexically meanwhile)."""
        ...

    def for_prompt(self, prompt: str) -> tuple[Semantic | None, RankerStatus]:
        """A ranker bound to ``prompt`` (or ``None``) and which ranker that makes."""
        ...

    def status(self) -> RankerStatus:
        """Which ranker a turn gets now, and why it is lexical when it is."""
        ...


def warming_up(facts: int) -> str:
    """Why a turn is lexical while fact vectors are computed off the event loop."""
    return (
        f"semantic ranking warming up (vectors for {facts} facts being computed off the event loop)"
    )


def ranker_for(
    source: SemanticSource | None,
    prompt: str,
    stores: Iterable[tuple[FactIndex, Path | None]],
    *,
    wait: bool = True,
) -> tuple[Semantic | None, RankerStatus]:
    """Bind each index to its store's vectors and the ranker for ``prompt``; never raises.

    Vectors are derived data: a failing cache or model costs this turn its semantic signal
    (and the plan's disclosures say so), never the turn itself.  With ``wait=False`` (the
    sidecar) a store whose vectors are still being computed off the loop makes the turn
    lexical, disclosed as "semantic ranking warming up" (issue 15 item 9): hybrid needs the
    vectors of every index the plan ranks, or two tiers would be scored on different scales.
    """
    if source is None:
        return None, LEXICAL
    try:
        warming = 0
        for index, store in stores:
            if not source.bind(index, store, wait=wait):
                warming += len(index)
        if warming:
            status = source.status()
            if not status.hybrid:  # loading, unavailable, or warming up (the source says)
                return None, status
            return None, RankerStatus(hybrid=False, reason=warming_up(warming))
        return source.for_prompt(prompt)
    except Exception as exc:  # derived data must never fail a turn
        log.warning("semantic ranking skipped: %r", exc)
        return None, RankerStatus(hybrid=False, reason=f"semantic ranking failed ({exc})")
