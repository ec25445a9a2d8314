"""How the memory block shows a fact id: a short prefix, whole only where that would clash.

Why: a fact id (``m_`` + 16 hex, :func:`persona_mind.mind._model.fact_id`) is 18 characters —
six planning tokens on every injected entry, a fifth of a short memory's line — while its
first :data:`ID_CHARS` characters (32 bits) tell apart the facts of any realistic store.  A
prefix that another live fact of the plan's tiers shares is shown whole, so what the block
shows is unambiguous among live facts; ``MemoryService.find`` resolves a shown prefix (the
memory tool's ``read``/``forget``/``supersede``/``promote`` take it).  Pure; the per-index
prefix counts are memoised (an index is reused across turns; one pass over its ids after a
rebuild).
"""

from __future__ import annotations

import weakref
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from persona_mind.mind.recall._retrieval import FactIndex

__all__ = ("ID_CHARS", "prefix_counts", "shown", "shown_id")

ID_CHARS = 10
"""Characters of a fact id the block shows (``m_`` + 8 hex); also the shortest prefix
``MemoryService.find`` resolves."""

_PREFIXES: weakref.WeakKeyDictionary[FactIndex, Counter[str]] = weakref.WeakKeyDictionary()
"""Live ids by shown prefix, per index (memoised: an index is reused across turns)."""


def prefix_counts(index: FactIndex) -> Counter[str]:
    """Live ids of ``index`` by their shown prefix (memoised per index)."""
    counts = _PREFIXES.get(index)
    if counts is None:
        counts = Counter(fid[:ID_CHARS] for fid in index.slot_of)
        _PREFIXES[index] = counts
    return counts


def shown_id(fact_id: str, indexes: Sequence[FactIndex]) -> str:
    """How the block shows ``fact_id``: its first :data:`ID_CHARS` characters when it is a
    fact id (``m_…``) and no other live fact in ``indexes`` starts the same, else whole."""
    return shown(fact_id, [prefix_counts(i) for i in indexes])


def shown(fact_id: str, counts: Sequence[Counter[str]]) -> str:
    """:func:`shown_id` with the plan's prefix counts already looked up (once per plan)."""
    if len(fact_id) <= ID_CHARS or not fact_id.startswith("m_"):
        return fact_id
    prefix = fact_id[:ID_CHARS]
    if sum(c[prefix] for c in counts) > 1:
        return fact_id
    return prefix
