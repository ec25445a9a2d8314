"""The hybrid ranker's per-turn arithmetic, made cheaper in issue 10 (``before_agent_start``),
gives exactly what the plain formulas give: fusion's sums (bit for bit) and the similarities
the planner is handed (each asked slot and the ``top`` most similar live slots, rounded)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from persona_mind.mind import FactIndex
from persona_mind.mind.recall._fusion import LEX_WEIGHT, SEM_FLOOR, SEM_WEIGHT, fuse
from persona_mind.mind.recall._ranker import SIM_DECIMALS
from tests.mind.test_hybrid import FACTS, BagEncoder, fact, ready_edge


def union_formula(lexical: dict[int, float], semantic: dict[int, float]) -> dict[int, float]:
    """Score fusion as specified: every lexical hit and every semantic match above the floor,
    each scored as its weighted, normalised lexical half plus its semantic half."""
    sem = {d: s for d, s in semantic.items() if s >= SEM_FLOOR}
    lex_scale = LEX_WEIGHT / (max(lexical.values(), default=0.0) or 1.0)
    sem_scale = SEM_WEIGHT / ((max(sem.values(), default=0.0) - SEM_FLOOR) or 1.0)
    return {
        d: lex_scale * lexical.get(d, 0.0) + sem_scale * max(0.0, semantic.get(d, 0.0) - SEM_FLOOR)
        for d in lexical.keys() | sem.keys()
    }


slots = st.integers(min_value=0, max_value=60)
bm25 = st.floats(min_value=0.0, max_value=40.0, allow_nan=False)
cosine = st.floats(min_value=-1.0, max_value=1.0, allow_nan=False).map(lambda x: round(x, 4))


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(st.dictionaries(slots, bm25, max_size=25), st.dictionaries(slots, cosine, max_size=25))
def test_score_fusion_is_the_union_formula_bit_for_bit(
    lexical: dict[int, float], semantic: dict[int, float]
) -> None:
    got = fuse(lexical, semantic, "score")
    want = union_formula(lexical, semantic)
    assert got.keys() == want.keys()
    for d, value in want.items():
        # exact, sign included: the block must not move by a rounding (a subnormal best
        # BM25 makes both NaN: no real score is subnormal, but the two must still agree)
        assert got[d] == value or (math.isnan(got[d]) and math.isnan(value))
        assert np.signbit(got[d]) == np.signbit(value)


def test_similarities_are_the_asked_slots_and_the_best_live_ones_rounded() -> None:
    """Dead slots of an updated index are never offered unless asked for; every value is the
    rounded cosine of the prompt and the fact."""
    enc = BagEncoder()
    edge = ready_edge(enc)
    index = FactIndex.build(FACTS)
    changed = [fact(2, "The staging database moved to port 6543"), *FACTS[2:]]
    updated = index.updated([FACTS[0], *changed, fact(9, "Tuesday deploys need a ticket")])
    assert updated is not None
    assert updated.dead > 0  # the changed fact's old slot is still in the matrix
    prompt = "which weekday can we ship to staging"
    query = enc.encode([prompt])[0]
    semantic, _ = edge.for_prompt(prompt)
    assert semantic is not None
    vectors = enc.encode([f.text for f in updated.facts])
    exact = {
        slot: round(float(np.float64(np.einsum("j,j->", vectors[slot], query))), SIM_DECIMALS)
        for slot in range(len(updated.facts))
    }
    live = set(updated.slot_of.values())
    dead = set(range(len(updated.facts))) - live
    for top in (0, 1, 3, len(live), len(live) + 5):
        best = semantic.similarities(updated, [], top).keys()
        assert len(best) == min(top, len(live))
        assert best <= live  # a dead slot is never among the best
        rest = live - best
        assert min((exact[s] for s in best), default=1.0) >= max(
            (exact[s] for s in rest), default=-1.0
        )
        for asked in ([0], sorted(dead), sorted(live)[:2]):
            got = semantic.similarities(updated, asked, top)
            assert got.keys() == best | set(asked)  # a dead slot only when asked for
            for slot, value in got.items():
                assert abs(value - exact[slot]) <= 10**-SIM_DECIMALS
                assert value == round(value, SIM_DECIMALS)
