"""Why a plan injected what it did: every candidate, its score parts and the rule that decided.

Why a module of its own: the explanation is a pure function of an :class:`InjectionPlan`
(which keeps each section's ranked candidates, admitted or not) and is computed only when
asked, so planning pays nothing for it.  ``persona-mind memory inject --explain [--json]``
and ``/mind why`` show the same document.

Score parts: *lexical* is BM25 over stemmed terms (``bm25``) and, with the hybrid ranker,
its normalised half of the fused score; *semantic* is the prompt's cosine with the fact and
its half of the fused score (:mod:`persona_mind.mind.recall._fusion`); *cover* is the
floor's lexical signal, the share of the prompt's idf mass the fact shares
(:mod:`persona_mind.mind.recall._floor`).  A rule names what admitted or left out each
candidate: a pinned priority slot, the relevance floor, the tier's judgement that nothing
in it is similar to the prompt (a hybrid plan's candidate whose cover passes the floor is
left out only by that judgement, so the rule and the plan's ``judgement`` lines name it),
the section's cap, the token budget, or the content scanner.
"""

from __future__ import annotations

import msgspec

from persona_mind.mind.inject._plan import LABEL, InjectionPlan
from persona_mind.mind.recall._floor import SIM_FLOOR, SIM_LEAD, SIM_LOW, PromptWeights
from persona_mind.mind.recall._fusion import LEX_WEIGHT
from persona_mind.mind.recall._retrieval import PRIORITY_KINDS, Ranked, query_terms

__all__ = ("Candidate", "Explanation", "explain_plan", "render")

_EXCERPT = 80


class Candidate(msgspec.Struct, kw_only=True):
    """One ranked fact of the plan, admitted or excluded, and why."""

    id: str
    section: str
    kind: str
    excerpt: str
    admitted: bool
    rule: str
    bm25: float
    lexical: float
    semantic: float | None
    cosine: float | None
    score: float
    cover: float | None
    scanner: str


class Explanation(msgspec.Struct, kw_only=True, rename="camel"):
    """The whole plan's account: the floors, each candidate and the plan's disclosures."""

    prompt: str
    ranker: str
    cover_floor: float | None
    similarity_floor: float | None
    tokens: int
    candidates: list[Candidate]
    disclosures: list[str]
    judgement: list[str] = msgspec.field(default_factory=list)
    """Per section, the tier's judgement where it left out candidates whose cover passed:
    no fact similar enough to the prompt, so nothing is admitted on cover alone."""


JUDGED = (
    f"excluded: nothing in this tier is similar to the prompt (no cosine ≥ {SIM_FLOOR:.3f},"
    f" no best match leading by {SIM_LEAD:.2f}), so cover alone does not admit"
)
"""The rule of a candidate the tier's judgement left out (``PromptWeights.similar``)."""


def _parts(r: Ranked, bm25: float, best: float, hybrid: bool) -> tuple[float, float | None]:
    """(lexical part, semantic part) of ``r``'s fused score."""
    if not hybrid or r.semantic is None:
        return r.score if bm25 else 0.0, None
    lexical = LEX_WEIGHT * bm25 / best if best else 0.0
    return lexical, r.score - lexical


def explain_plan(plan: InjectionPlan) -> Explanation:
    """Every candidate of ``plan`` in admission order per section, then those below the floor."""
    admitted = {(i.section, i.id) for i in plan.items}
    rows: list[Candidate] = []
    floors: list[float] = []
    judged: dict[str, int] = {}
    hybrid = plan.ranker.hybrid
    for key, cap, cands, below in plan.trace:
        taken = 0
        scores: dict[int, dict[int, float]] = {}
        for n, (_, r, index) in enumerate((*cands, *below)):
            bm = scores.get(id(index))
            if bm is None:
                bm = scores[id(index)] = index.scores(plan.prompt)
            slot = index.slot_of.get(r.fact.id)
            raw = bm.get(slot, 0.0) if slot is not None else 0.0
            lexical, semantic = _parts(r, raw, max(bm.values(), default=0.0), hybrid)
            if key != "notes" and plan.prompt and index is not None and not floors:
                floors.append(PromptWeights(index, query_terms(plan.prompt)[0]).floor)
            safe = index.is_safe(r.fact)
            ok = (key, r.fact.id) in admitted
            pinned = r.fact.kind in PRIORITY_KINDS
            if ok:
                taken += 1
                rule = (
                    f"admitted: pinned {r.fact.kind} (priority slot)"
                    if pinned and key != "notes"
                    else f"admitted: above the floor, within the cap of {cap} and the budget"
                )
                if key == "notes":
                    rule = f"admitted: session note, within the cap of {cap} and the budget"
            elif n >= len(cands):
                rule = "excluded: below the relevance floor"
                # a candidate with a cosine was floored with similarities; if its cover
                # passes, only the tier's judgement (``PromptWeights.similar``) left it out
                judge = r.semantic is not None and r.score > 0 and r.cover is not None
                if judge and floors and r.cover is not None and r.cover >= floors[0]:
                    rule = JUDGED
                    judged[key] = judged.get(key, 0) + 1
            elif not safe:
                rule = "excluded: withheld by the content scanner"
            elif taken >= cap:
                rule = f"excluded: the {LABEL[key]} cap of {cap} was reached"
            else:
                rule = "excluded: did not fit the token budget"
            text = r.fact.text
            rows.append(
                Candidate(
                    id=r.fact.id,
                    section=key,
                    kind=r.fact.kind,
                    excerpt=text if len(text) <= _EXCERPT else text[: _EXCERPT - 1] + "…",
                    admitted=ok,
                    rule=rule,
                    bm25=round(raw, 4),
                    lexical=round(lexical, 4),
                    semantic=None if semantic is None else round(semantic, 4),
                    cosine=r.semantic,
                    score=round(r.score, 4),
                    cover=None if r.cover is None else round(r.cover, 4),
                    scanner="safe" if safe else "unsafe",
                )
            )
    return Explanation(
        prompt=plan.prompt,
        ranker=plan.ranker.describe(),
        cover_floor=round(floors[0], 4) if floors else None,
        similarity_floor=SIM_FLOOR if hybrid else None,
        tokens=plan.tokens,
        candidates=rows,
        disclosures=list(plan.disclosures),
        judgement=[
            f"{LABEL[k]}: no fact similar enough to the prompt; {n} candidate(s) above the"
            " cover floor left out"
            for k, n in judged.items()
        ],
    )


def render(ex: Explanation) -> str:
    """The explanation as text: one line per candidate, the floors and disclosures first."""
    floor = "none (no prompt terms)" if ex.cover_floor is None else f"cover ≥ {ex.cover_floor:.3f}"
    if ex.similarity_floor is not None:
        floor += (
            f" or cosine ≥ {ex.similarity_floor:.2f}"
            f" ({SIM_LOW:.2f} for a best match leading the next by {SIM_LEAD:.2f})"
        )
    head = [f"prompt: {ex.prompt!r}", f"ranker: {ex.ranker}", f"floor: {floor}"]
    head += [f"judgement: {j}" for j in ex.judgement]
    head.append(f"block: {ex.tokens} planning tokens; " + ("; ".join(ex.disclosures) or "-"))
    lines = []
    for c in ex.candidates:
        sem = "" if c.cosine is None else f" cos {c.cosine:.3f}"
        if c.semantic is not None:
            sem += f" sem {c.semantic:.3f}"
        cover = "" if c.cover is None else f" cover {c.cover:.3f}"
        lines.append(
            f"{'+' if c.admitted else '-'} {c.id} [{c.section} {c.kind}] score {c.score:.3f}"
            f" (bm25 {c.bm25:.3f} lex {c.lexical:.3f}{sem}){cover} scanner {c.scanner}"
            f"\n    {c.rule}: {c.excerpt}"
        )
    return "\n".join(head + (lines or ["(no candidates)"]))
