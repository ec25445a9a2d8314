"""One prompt's similarities against a bound index, and the vectors an index is bound to.

Split from the edge (``_edge.py``), which loads the model and binds vectors: this is the
per-turn read side — one matrix-vector product over a tier's vectors, the top slots and the
asked ones, rounded as the planner ranks them.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from persona_mind.mind.recall._ranker import SIM_DECIMALS
from persona_mind.mind.recall._retrieval import FactIndex

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from persona_mind.embedding._encoder import Matrix

__all__ = ("IndexVectors", "PromptSimilarity", "shared_prefix")


@dataclass(slots=True)
class IndexVectors:
    """The vectors of one index: rows aligned to its slots."""

    facts: list[object]
    matrix: Matrix
    live: npt.NDArray[np.bool_]
    """Which slots are live (an updated index keeps dead slots until its next rebuild)."""
    all_live: bool = False


def shared_prefix(prev: IndexVectors | None, index: FactIndex) -> int:
    """How many leading slots ``index`` shares with the store's last bound index."""
    if prev is None or len(prev.facts) > len(index.facts):
        return 0
    facts = index.facts
    n = len(prev.facts)
    return n if all(facts[i] is prev.facts[i] for i in range(n)) else 0


class PromptSimilarity:
    """:class:`Semantic` for one prompt vector."""

    def __init__(self, vectors: Callable[[FactIndex], IndexVectors], query: Matrix) -> None:
        self._vectors = vectors  # the edge's: bound on first use
        self._query = query.copy()  # owned and contiguous, not a view into the batch

    def similarities(
        self, index: FactIndex, slots: Collection[int], top: int
    ) -> Mapping[int, float]:
        import numpy as np  # noqa: PLC0415

        iv = self._vectors(index)
        n = len(iv.facts)
        if not n:
            return {}
        # einsum, not BLAS: BLAS's threaded matrix-vector path was measured 10-80x slower on
        # a busy 2-core machine (its threads contend with the event loop); einsum runs on
        # this thread with a fixed summation order, so scores are also reproducible
        sims = np.einsum("ij,j->i", iv.matrix, self._query)
        k = min(top, len(index))
        best: list[int]
        if k <= 0:
            best = []
        elif k >= n:
            best = np.flatnonzero(iv.live).tolist()
        else:
            masked = sims if iv.all_live else np.where(iv.live, sims, -np.inf)
            best = masked.argpartition(n - k)[n - k :].tolist()
        # Python lists, not arrays, around the one vectorised step (gather, widen, round):
        # for the few dozen slots a turn asks about, array building and concatenation
        # cost more than the arithmetic (issue 10, before_agent_start)
        picked = best + list(slots)
        if not picked:
            return {}
        # the array methods ``np.argpartition``/``np.round`` call, without their wrappers
        values = sims.take(picked).astype(np.float64).round(SIM_DECIMALS)
        return dict(zip(picked, values.tolist(), strict=True))
