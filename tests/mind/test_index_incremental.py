"""An incrementally updated index ranks exactly like a fresh build (M-INJECT-14 determinism)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from persona_mind.mind import Fact, FactIndex, InjectionInput, Kind, plan_injection
from persona_mind.mind.recall._retrieval import MAX_INCREMENTAL, TokenCache

WORDS = ["alpha", "beta", "gamma", "delta", "parser", "cache", "docker", "ruff"]
KINDS: list[Kind] = ["note", "objective", "invariant", "gotcha"]

fact_st = st.builds(
    lambda i, words, kind, seen, exp: Fact(
        id=f"m_{i:03d}",
        kind=kind,
        text=" ".join(words),
        recordedAt=0.0,
        lastSeenAt=float(seen),
        expiresAt=None if exp is None else float(exp),
    ),
    st.integers(0, 40),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=6),
    st.sampled_from(KINDS),
    st.integers(0, 5),
    st.one_of(st.none(), st.integers(1, 10)),
)


def dedupe(rows: list[Fact]) -> list[Fact]:
    return list({f.id: f for f in rows}.values())


def plan(index: FactIndex, prompt: str) -> str:
    return plan_injection(InjectionInput(prompt=prompt, now=5.0, indexes={"stm": index})).text


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(fact_st, max_size=12), min_size=1, max_size=6),
    st.lists(st.sampled_from(WORDS), max_size=3),
    st.integers(0, 8),
)
def test_incremental_equals_fresh_build(
    history: list[list[Fact]], query: list[str], now_step: int
) -> None:
    cache: TokenCache = {}
    rows = dedupe(history[0])
    index = FactIndex.build(rows, 5.0, cache)
    for step in history[1:]:
        rows = dedupe(rows[len(rows) // 3 :] + step)  # drop some, add/replace some
        nxt = index.updated(rows, 5.0, cache)
        index = nxt if nxt is not None else FactIndex.build(rows, 5.0, cache)
        fresh = FactIndex.build(rows, 5.0)
        prompt = " ".join(query)
        assert len(index) == len(fresh)
        assert plan(index, prompt) == plan(fresh, prompt)
        got = [(r.fact.id, round(r.score, 9)) for r in index.rank(prompt, limit=7)]
        want = [(r.fact.id, round(r.score, 9)) for r in fresh.rank(prompt, limit=7)]
        assert got == want


def test_large_change_asks_for_a_rebuild() -> None:
    rows = [
        Fact(id=f"m_{i}", kind="note", text=f"t {i}", recordedAt=0.0, lastSeenAt=0.0)
        for i in range(MAX_INCREMENTAL + 1)
    ]
    index = FactIndex.build([])
    assert index.updated(rows) is None
    assert index.updated(rows[:MAX_INCREMENTAL]) is not None
