"""Hybrid scores: lexical BM25 and semantic cosine fused into one task-match score.

Pure and deterministic.  Two methods, both measured by ``bench/recall.py --fusion``:

``score`` (the default)
    ``LEX_WEIGHT * bm25 / max_bm25 + SEM_WEIGHT * max(0, cos - SEM_FLOOR) / (max_cos - SEM_FLOOR)``.
    Both signals are normalised by this prompt's best: BM25 by the best lexical score, cosine
    (above a floor below which a static embedding's similarity is noise) by the best
    similarity among the candidates.  So the weights mean the same for a two-word prompt and
    a paragraph, and the two halves are on one scale: the best lexical hit and the best
    semantic hit each earn a full half.  (Rescaling cosine by a fixed ``1 - SEM_FLOOR``
    instead let a static model's similarities, which seldom pass 0.5, earn a fifth of what
    BM25's best earns even when that best matched only a function word; the symmetric
    form holds or improves every dataset of ``bench/recall.py`` — see ``docs/mind.md``.)
``rrf``
    Reciprocal rank fusion, ``Σ 1 / (RRF_K + rank)`` over the two rankings.

Candidates are the lexical top ``2 × top`` (plus objective/invariant hits) and the
semantic top ``top``; fusion scores only those (see :func:`_candidates`).

A fact matches the task when it shares a term with the prompt *or* its similarity reaches
``SEM_FLOOR``; the rest stay in recency order behind the matches (M-INJECT-14).  Ties are
broken by the callers with recency and id, as for lexical scores.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from persona_mind.mind.recall._ranker import Semantic
    from persona_mind.mind.recall._retrieval import FactIndex, Ranked

__all__ = (
    "LEX_WEIGHT",
    "RRF_K",
    "SEM_FLOOR",
    "SEM_WEIGHT",
    "Fusion",
    "explain",
    "fuse",
    "task_scores",
)

Fusion = Literal["score", "rrf"]
LEX_WEIGHT = 0.5
SEM_WEIGHT = 0.5
SEM_FLOOR = 0.2
RRF_K = 60


def _ranks(scores: Mapping[int, float]) -> dict[int, int]:
    """Competition ranks (equal scores share a rank), so slot order never matters."""
    values = sorted(scores.values(), reverse=True)
    first: dict[float, int] = {}
    for r, v in enumerate(values, 1):
        first.setdefault(v, r)
    return {d: first[s] for d, s in scores.items()}


def fuse(
    lexical: Mapping[int, float],
    semantic: Mapping[int, float],
    method: Fusion = "score",
) -> dict[int, float]:
    """Hybrid task-match scores for every lexical hit and every semantic match."""
    sem = {d: s for d, s in semantic.items() if s >= SEM_FLOOR}
    if method == "rrf":
        docs = lexical.keys() | sem.keys()
        lr = _ranks(lexical)
        sr = _ranks(sem)
        miss = 0.0
        return {
            d: (1.0 / (RRF_K + lr[d]) if d in lr else miss)
            + (1.0 / (RRF_K + sr[d]) if d in sr else miss)
            for d in docs
        }
    lex_scale = LEX_WEIGHT / (max(lexical.values(), default=0.0) or 1.0)
    sem_scale = SEM_WEIGHT / ((max(sem.values(), default=0.0) - SEM_FLOOR) or 1.0)
    # The lexical half for every hit, then the semantic half added for each match above
    # the floor: the same sums in the same order as scoring every document of the union
    # (a missing half is a +0.0, which changes no sum), without the union set and two
    # lookups per document (issue 10, before_agent_start; tests/mind/test_fusion_exact.py)
    out = {d: lex_scale * s for d, s in lexical.items()}
    get = out.get
    for d, s in sem.items():
        out[d] = get(d, 0.0) + sem_scale * (s - SEM_FLOOR)
    return out


def task_scores(
    index: FactIndex,
    prompt: str,
    semantic: Semantic | None,
    top: int,
    method: Fusion = "score",
) -> tuple[dict[int, float], Mapping[int, float]]:
    """(task-match score by slot, similarity by slot) for ``prompt`` over ``index``.

    Without a semantic ranker the scores are BM25's and there are no similarities.
    """
    scored = index.scores(prompt)
    if semantic is None or not len(index):
        return scored, {}
    lexical = _candidates(scored, 2 * top, index.priority_set)
    sims = semantic.similarities(index, lexical.keys(), top)
    return fuse(lexical, sims, method), sims


def _candidates(scored: dict[int, float], keep: int, priority: frozenset[int]) -> dict[int, float]:
    """The lexical side of candidate generation: the best ``keep`` hits (every hit tied with
    the cut-off too, so slot order never matters) and every objective/invariant hit.

    Why prune: fusing every BM25 hit of a common word costs more than the rest of the plan
    at 10,000 facts, and a hit outside the lexical top ``2 × top`` that is also outside the
    semantic top ``top`` cannot reach the few entries a section admits in practice.
    """
    if len(scored) <= keep:
        return scored
    cut = sorted(scored.values(), reverse=True)[keep - 1]  # C sort beats a heap here
    if priority:
        return {d: s for d, s in scored.items() if s >= cut or d in priority}
    return {d: s for d, s in scored.items() if s >= cut}


def explain(ranked: Sequence[Ranked], index: FactIndex, sims: Mapping[int, float]) -> None:
    """Attach each ranked fact's similarity (for its explanation) in place."""
    if not sims:
        return
    slot_of = index.slot_of
    for r in ranked:
        slot = slot_of.get(r.fact.id)
        if slot is not None and slot in sims:
            r.semantic = sims[slot]
