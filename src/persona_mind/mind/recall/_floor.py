"""The relevance floor: whether a ranked fact is relevant enough to inject at all.

Why: a block filled to its caps whatever the prompt teaches the model to ignore it, and a
fact that matched nothing (or a function word) is padding however recent it is.  The floor
is per prompt and needs no sampling of the store: two normalised signals, either of which
admits a fact.

*Covered information* (lexical): ``Σ w(prompt terms the fact shares) / Σ w(all prompt
terms)`` with ``w = 1 + idf``, a term the store has never seen weighing the store's largest
idf.  (The ``1 +``: in a store of a handful of facts a term every fact shares has an idf
near 0, so one unknown word of "how do deploys work" outweighed "deploys" ten to one.)  It is the
share of what the prompt says that the fact speaks to, so a fact matching only common
words covers little, and a prompt about something the store never heard of (its rare
words unknown) covers little with any fact.  The floor is :data:`COVER_FLOOR` for a prompt
of up to :data:`COVER_TERMS` distinct terms and falls as ``(COVER_TERMS / n)²`` beyond:
a long conversational prompt spreads its weight over many terms, so even the memory it
is about covers a few percent of it (MADial-Bench's evidence: a median of 5 %).

*Similarity* (semantic, only with a semantic ranker): the prompt's cosine with the fact at
or above :data:`SIM_FLOOR`, a little below the fusion's noise floor
(:data:`~persona_mind.mind.recall._fusion.SEM_FLOOR`, under which a similarity adds
nothing to the score; such a fact is ordered by recency behind the scored ones).  Why so
low: a paraphrase shares no word with its question and the static model's cosine for it
is small — "which weekday can we ship to production?" and "Deploys go out on Tuesdays"
reach 0.19, the bundled paraphrase set's evidence 0.2–0.3 — and neither a higher
cosine, a margin over the store's median similarity nor a z-score separated padding from
evidence on the dev sets.

Pinned kinds (objective, invariant) are not floored: they keep their priority slots
(M-INJECT-5/6).  Both floors were chosen on the ``dev`` half of ``bench/recall.py``'s
public sets and reported on ``test`` (``docs/mind.md``, "Retrieval").  Pure and
deterministic: idf comes from the index, cosines from the rounded similarities.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from persona_mind.mind.recall._retrieval import FactIndex

__all__ = ("COVER_FLOOR", "COVER_TERMS", "SIM_FLOOR", "PromptWeights")

COVER_FLOOR = 0.15
"""Covered information a fact must reach to be injected on its lexical signal (short prompt)."""
COVER_TERMS = 8
"""Prompts of more distinct terms than this get a floor scaled by ``(COVER_TERMS / n)²``."""
SIM_FLOOR = 0.15
"""Cosine a fact must reach to be injected on its semantic signal."""

_UNSEEN = "\x00"
"""A token no index holds (its idf is the store's largest)."""


class PromptWeights:
    """One prompt's term weights over one index, and each fact's covered information."""

    __slots__ = ("_index", "_total", "_weight", "floor")

    def __init__(self, index: FactIndex, terms: Iterable[str]) -> None:
        unseen = index.idf(_UNSEEN)
        postings = index.postings
        self._weight = {t: 1.0 + (index.idf(t) if t in postings else unseen) for t in terms}
        self._total = sum(self._weight.values())
        self._index = index
        n = len(self._weight)
        self.floor = COVER_FLOOR * min(1.0, COVER_TERMS / n) ** 2 if n else COVER_FLOOR
        """This prompt's covered-information floor."""

    def cover(self, slot: int) -> float:
        """The share of the prompt's weight that the fact in ``slot`` shares (0 to 1)."""
        if not self._total:
            return 0.0
        weight = self._weight
        # the shared terms by one set intersection in C (a prompt has a few terms, a fact a
        # few dozen); summed in the fact's own term order, as ever, so the sum is the same
        shared = weight.keys() & self._index.term_set(slot)
        if not shared:
            return 0 / self._total
        if len(shared) == 1:
            got: float = 0 + weight[next(iter(shared))]
        else:
            got = sum(weight[t] for t, _ in self._index.tokens[slot] if t in shared)
        return got / self._total

    def admits(self, cover: float, similarity: float | None) -> bool:
        """Whether a fact is relevant enough to inject: either signal at or above its floor."""
        if cover >= self.floor:
            return True
        return similarity is not None and similarity >= SIM_FLOOR
