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
0.17 is a little below the largest floor that keeps share and any-evidence on the dev sets
within a point of the planner without a floor (0.18; 0.2 costs the coding set 1.6 points
within 2,400 tokens), and the largest at which lexical ranking stays at or above BM25 on
the whole coding set (``tests/mind/test_bench_recall.py``); against 0.15 it cuts the tokens
of a no-answer coding prompt and of a coding question asked of MADial-Bench's store.

*Similarity* (semantic, only with a semantic ranker): the prompt's cosine with the fact at
or above :data:`SIM_FLOOR`, or, for the prompt's single best match in the tier, at or above
:data:`SIM_LOW` with a lead of :data:`SIM_LEAD` over the runner-up.  Why two rules: the
static model gives unrelated texts cosines of 0.15-0.3 (a coding question asked of
MADial-Bench's children's memories: best match median 0.19, 90th percentile 0.27), so a
single low floor let those in, while a real paraphrase can score no higher ("which weekday
can we ship to production?" / "Deploys go out on Tuesdays": 0.19).  Such a paraphrase
stands out from the rest of a store when it is the one fact on its subject; unrelated
matches do not (the gap between an unrelated prompt's best and second-best fact: median
0.02, 90th percentile 0.06).  Neither the store's mean cosine nor a z-score against it
separated unrelated facts from evidence on the dev sets (an unrelated prompt's admitted
facts sat at z 2.4, evidence at 2.1).  ``SIM_FLOOR`` is where two targets meet: a higher
floor cuts unrelated prompts further (0.26: a fifth of their tokens without a floor, against
a quarter at 0.235) but drops paraphrase evidence below issue 16's target on the bundled
paraphrase set (hybrid ≥ BM25 + 5 points within 2,400 tokens: 0.45 at 0.235, 0.40 at 0.24).

*The tier's judgement* (per prompt, hybrid only): when no fact of the tier passes the
similarity signal (its best cosine is below ``SIM_FLOOR`` and does not lead), the tier holds
nothing the prompt is about, and covered information alone admits nothing either.  Why: a
coding question asked of MADial-Bench's store shares everyday words ("test", "time") with a
few memories, enough cover to pass a long prompt's scaled floor, while no memory is near it
in meaning.  Every answerable prompt that got evidence had a best match of cosine 0.24 or
more on the dev sets (MADial-Bench 0.241, the bundled paraphrase set 0.256); per fact no
signal separated such leftovers from evidence, per prompt the tier's best cosine does (area
under the ROC curve 0.99 for that foreign row on dev).  It costs one comparison: the best
cosine is the one :func:`_best_and_lead` already finds.  It does not help a lexical plan, a
same-domain prompt (another dialogue of the same children scores like evidence) or a
no-answer coding prompt (other projects' conventions are near it in meaning too).

Pinned kinds (objective, invariant) are not floored: they keep their priority slots
(M-INJECT-5/6).  The floors were chosen on the ``dev`` half of ``bench/recall.py``'s
public sets and reported on ``test`` (``docs/mind.md``, "Retrieval").  Pure and
deterministic: idf comes from the index, cosines from the rounded similarities.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from persona_mind.mind.recall._retrieval import FactIndex

__all__ = ("COVER_FLOOR", "COVER_TERMS", "SIM_FLOOR", "SIM_LEAD", "SIM_LOW", "PromptWeights")

COVER_FLOOR = 0.17
"""Covered information a fact must reach to be injected on its lexical signal (short prompt)."""
COVER_TERMS = 8
"""Prompts of more distinct terms than this get a floor scaled by ``(COVER_TERMS / n)²``."""
SIM_FLOOR = 0.235
"""Cosine a fact must reach to be injected on its semantic signal."""
SIM_LOW = 0.15
"""Cosine the prompt's best match must reach to be injected on its lead alone."""
SIM_LEAD = 0.06
"""How far the prompt's best match must lead the runner-up to be injected at ``SIM_LOW``."""

_UNSEEN = "\x00"
"""A token no index holds (its idf is the store's largest)."""


class PromptWeights:
    """One prompt's term weights over one index, and each fact's covered information."""

    __slots__ = ("_index", "_lead", "_total", "_weight", "floor", "similar")

    def __init__(
        self,
        index: FactIndex,
        terms: Iterable[str],
        similarities: Mapping[int, float] | None = None,
    ) -> None:
        unseen = index.idf(_UNSEEN)
        postings = index.postings
        self._weight = {t: 1.0 + (index.idf(t) if t in postings else unseen) for t in terms}
        self._total = sum(self._weight.values())
        self._index = index
        n = len(self._weight)
        self.floor = COVER_FLOOR * min(1.0, COVER_TERMS / n) ** 2 if n else COVER_FLOOR
        """This prompt's covered-information floor."""
        best: float | None = None
        self._lead: float | None = None
        if similarities:
            best, self._lead = _best_and_lead(similarities)
        self.similar = best is None or best >= SIM_FLOOR or self._lead is not None
        """The tier's judgement: whether any fact passes the similarity signal (always
        true without similarities); when false, nothing is admitted on cover alone."""

    def cover(self, slot: int) -> float:
        """The share of the prompt's weight that the fact in ``slot`` shares (0 to 1)."""
        return self.covers((slot,))[0]

    def covers(self, slots: Iterable[int]) -> list[float]:
        """:meth:`cover` of each of ``slots``, in order: the same sums, with the per-call
        lookups done once (a plan asks it of every ranked candidate of a tier)."""
        total = self._total
        if not total:
            return [0.0 for _ in slots]
        weight = self._weight
        keys = weight.keys()
        term_order = self._index.term_order
        out: list[float] = []
        for slot in slots:
            # the shared terms by one set intersection in C over the prompt's few terms (a
            # fact has a few dozen), summed in the fact's own term order, so the sum is the
            # same whatever the prompt's order
            order = term_order(slot)
            shared = keys & order.keys()
            if not shared:
                out.append(0 / total)
            elif len(shared) == 1:
                out.append((0 + weight[next(iter(shared))]) / total)
            else:
                out.append(sum([weight[t] for t in sorted(shared, key=order.__getitem__)]) / total)
        return out

    def admits(self, cover: float, similarity: float | None) -> bool:
        """Whether a fact is relevant enough to inject: either signal at or above its floor
        (for the semantic signal: ``SIM_FLOOR``, or ``SIM_LOW`` for a leading best match),
        and, with similarities, only in a tier that :attr:`similar` judges relevant."""
        if not self.similar:
            return False
        if cover >= self.floor:
            return True
        if similarity is None:
            return False
        return similarity >= SIM_FLOOR or (similarity >= SIM_LOW and similarity == self._lead)


def _best_and_lead(similarities: Mapping[int, float]) -> tuple[float, float | None]:
    """(the best cosine, the best cosine if it is at least ``SIM_LOW`` and leads the
    runner-up (0 without one) by ``SIM_LEAD``, else None).

    ``similarities`` holds the tier's semantic top k (and the lexical candidates), so its two
    largest values are the tier's best and second-best match.
    """
    best = second = 0.0
    for s in similarities.values():
        if s > best:
            best, second = s, best
        elif s > second:
            second = s
    return best, best if best - second >= SIM_LEAD and best >= SIM_LOW else None
