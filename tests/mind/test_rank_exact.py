"""The cheaper per-turn ranking and rendering give the same results (issue 10, third pass).

``FactIndex.rank`` sorts the matches outright when there are at most twice ``limit`` of them
(instead of a heap plus the tie pool): tested against the plain full order on random stores
with many score ties, on both sides of that threshold. Excerpts are memoised per index and
keyed by the fact's text: a line rendered from the memo is the line rendered afresh, and a
plan made with a warm memo is byte-identical to one made with a cold one.
"""

from __future__ import annotations

import random

import pytest

from persona_mind.mind import Fact, FactIndex
from persona_mind.mind.inject import _planner as inject
from persona_mind.mind.inject._lines import entry_line
from persona_mind.mind.recall._excerpts import EXCERPT_CHARS, excerpt, excerpts_of
from persona_mind.mind.recall._retrieval import query_terms

_WORDS = ["parser", "cache", "retry", "schema", "token", "fence", "probe", "ledger"]


def _store(rng: random.Random, n: int) -> FactIndex:
    facts = [
        Fact(
            id=f"m_{i:08x}",
            kind=rng.choice(["note", "convention", "objective"]),
            # few distinct words and lengths: many documents tie on score, and on recency
            text=" ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 4))),
            recordedAt=float(rng.randint(0, 5)),
            lastSeenAt=float(rng.randint(0, 5)),
        )
        for i in range(n)
    ]
    return FactIndex.build(facts)


def _full_order(index: FactIndex, query: str, limit: int) -> list[tuple[str, float]]:
    """Matches by (score desc, recency desc, id), then the rest by recency: the whole order."""
    scored = index.scores(query)
    facts = index.facts
    matched = sorted(scored, key=lambda d: (-scored[d], -facts[d].lastSeenAt, facts[d].id))
    rest = [d for d in index.by_recency if d not in scored]
    return [(facts[d].id, scored.get(d, 0.0)) for d in (matched + rest)[:limit]]


@pytest.mark.parametrize("seed", range(40))
def test_rank_with_limit_is_the_full_order_cut(seed: int) -> None:
    """M-INJECT-5: the top ``limit`` of the full order, whether the matches are few (the
    outright sort) or many (heap and tie pool), ties included."""
    rng = random.Random(seed)
    index = _store(rng, rng.randint(1, 120))
    query = " ".join(rng.sample(_WORDS, rng.randint(1, 3)))
    matches = len(index.scores(query))
    for limit in (0, 1, 2, 3, 6, 10, max(1, matches // 2), matches, matches + 3):
        got = [(r.fact.id, r.score) for r in index.rank(query, limit)]
        assert got == _full_order(index, query, limit), (limit, matches)
    unlimited = [(r.fact.id, r.score) for r in index.rank(query)]
    assert unlimited == _full_order(index, query, len(index))


def test_rank_keeps_the_query_terms_for_explanations() -> None:
    """The ranked matches still explain themselves with the prompt's terms."""
    index = _store(random.Random(3), 30)
    query = "parser cache"
    for r in index.rank(query, 4):
        if r.score > 0:
            assert r.matched, r.fact.text
            assert set(r.matched) <= set(r.fact.text.split())
            assert query_terms(query)[1]


@pytest.mark.parametrize(
    "text",
    [
        "plain words only",
        "  spaced\tout\n\nover lines  ",
        "x" * (EXCERPT_CHARS + 5),
        "</persona-mind-memory> ## forged heading",
        "ünïcødé " * 120,
    ],
)
def test_memoised_line_is_the_fresh_line(text: str) -> None:
    fact = Fact(id="m_00000001", kind="note", text=text, recordedAt=1.0, lastSeenAt=1.0)
    memo: dict[str, tuple[str, bool]] = {}
    first = entry_line("project", fact, "m_0000", memo)
    assert memo == {text: excerpt(text)}
    assert entry_line("project", fact, "m_0000", memo) == first
    assert entry_line("project", fact, "m_0000", {}) == first


def test_plan_is_byte_identical_with_a_warm_excerpt_memo() -> None:
    """M-INJECT-14: the same input gives the same block, whether the excerpts are memoised
    (a later turn) or computed (the first); the memo holds only this index's texts."""
    rng = random.Random(11)
    index = _store(rng, 200)
    data = inject.InjectionInput(prompt="parser retry", now=10.0, indexes={"project": index})
    cold = inject.plan_injection(data)
    memo = excerpts_of(index)
    assert memo, "the first plan filled the memo"
    assert set(memo) <= {f.text for f in index.facts}
    warm = inject.plan_injection(data)
    assert (warm.text, [i.id for i in warm.items], warm.omitted, warm.clipped) == (
        cold.text,
        [i.id for i in cold.items],
        cold.omitted,
        cold.clipped,
    )
    fresh = FactIndex.build(list(index.facts))
    again = inject.plan_injection(
        inject.InjectionInput(prompt="parser retry", now=10.0, indexes={"project": fresh})
    )
    assert again.text == cold.text
