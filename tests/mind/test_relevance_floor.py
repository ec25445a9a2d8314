"""The relevance floor (issue 23 item 1) and the plan's explanation (item 3).

Failed on main: an unrelated prompt got every tier filled with "recent" facts, and no face
showed why a fact was (or was not) injected."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from pathlib import Path

import msgspec
import pytest

from persona_mind.cli import build_parser
from persona_mind.mind import (
    Fact,
    FactIndex,
    InjectionInput,
    MemoryService,
    explain_plan,
    plan_injection,
)
from persona_mind.mind._commands import MindCommandContext, handle_mind_command
from persona_mind.mind._settings import MindSettings
from persona_mind.mind.inject._explain import render as render_explanation
from persona_mind.mind.recall._floor import (
    COVER_FLOOR,
    SIM_FLOOR,
    SIM_LEAD,
    SIM_LOW,
    PromptWeights,
)


def fact(fid: str, text: str, kind: str = "note", seen: float = 1.0) -> Fact:
    return Fact(id=fid, kind=kind, text=text, recordedAt=seen, lastSeenAt=seen)  # type: ignore[arg-type]


STORE = [
    fact("m_0000000000000001", "Deploys go through the staging gate on port 5433.", seen=3),
    fact("m_0000000000000002", "Integration tests need Docker running.", seen=2),
    fact("m_0000000000000003", "Never force-push to main.", "invariant", seen=1),
]


def _plan(prompt: str, facts: list[Fact] = STORE) -> object:
    return plan_injection(
        InjectionInput(prompt=prompt, now=10.0, indexes={"project": FactIndex.build(facts)})
    )


def test_unrelated_prompt_injects_nothing_but_pinned_lines() -> None:
    plan = plan_injection(
        InjectionInput(
            prompt="quantum chromodynamics on a lattice",
            now=10.0,
            indexes={"project": FactIndex.build(STORE)},
        )
    )
    assert [it.id for it in plan.items] == ["m_0000000000000003"]  # the invariant keeps its slot
    assert "Deploys" not in plan.text
    assert "Docker" not in plan.text
    floor_lines = [d for d in plan.disclosures if "relevance floor" in d]
    assert floor_lines == ["nothing above the relevance floor: only pinned lines shown"]


def test_unrelated_prompt_without_pinned_facts_omits_the_block() -> None:
    plan = plan_injection(
        InjectionInput(
            prompt="quantum chromodynamics on a lattice",
            now=10.0,
            indexes={"project": FactIndex.build(STORE[:2]), "persona": FactIndex.build(STORE[1:2])},
        )
    )
    assert plan.items == ()
    assert plan.text == ""
    assert plan.tokens == 0
    assert "nothing above the relevance floor: memory block omitted" in plan.disclosures


def test_a_related_prompt_still_gets_its_fact_in_a_tiny_store() -> None:
    """One unknown word ("work") must not outweigh the matching one in a one-fact store."""
    plan = plan_injection(
        InjectionInput(
            prompt="how do deploys work",
            now=10.0,
            indexes={"project": FactIndex.build(STORE[:1])},
        )
    )
    assert [it.id for it in plan.items] == ["m_0000000000000001"]
    assert not [d for d in plan.disclosures if "relevance floor" in d]


def test_covered_information_weighs_rare_and_unknown_terms() -> None:
    index = FactIndex.build(STORE)
    weights = PromptWeights(index, ["deploy", "docker", "zeppelin"])
    assert 0 < weights.cover(0) < 0.5  # one of three terms
    assert weights.cover(0) == pytest.approx(weights.cover(1))  # both terms are in one fact
    assert weights.floor == COVER_FLOOR  # a short prompt gets the whole floor
    long = PromptWeights(index, [f"t{i}" for i in range(16)])
    assert long.floor == pytest.approx(COVER_FLOOR / 4)  # (8 / 16)²


def test_explanation_lists_admitted_and_excluded_with_parts() -> None:
    facts = [*STORE, fact("m_0000000000000004", "The staging gate needs a ticket.", seen=4)]
    plan = plan_injection(
        InjectionInput(
            prompt="staging deploys",
            now=10.0,
            indexes={"project": FactIndex.build(facts)},
            caps={"ltm": 8, "project": 2, "stm": 5, "backlog": 6},
        )
    )
    ex = explain_plan(plan)
    rules = {c.id: (c.admitted, c.rule) for c in ex.candidates}
    assert rules["m_0000000000000003"] == (True, "admitted: pinned invariant (priority slot)")
    assert rules["m_0000000000000001"][0] is True
    assert rules["m_0000000000000004"] == (False, "excluded: the project LTM cap of 2 was reached")
    assert rules["m_0000000000000002"] == (False, "excluded: below the relevance floor")
    first = next(c for c in ex.candidates if c.id == "m_0000000000000001")
    assert first.bm25 > 0
    assert first.lexical == first.score
    assert first.semantic is None
    assert first.cover is not None
    assert ex.cover_floor is not None
    assert first.cover >= ex.cover_floor
    assert first.scanner == "safe"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "work" / "app"
    (root / ".git").mkdir(parents=True)
    return root


def test_cli_inject_explain_json_lists_candidates_with_score_parts(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    repo: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PERSONA_MIND_RANKER", "lexical")  # the same parts on every machine
    base = ["memory", "--agent-dir", str(tmp_path / "agent"), "--cwd", str(repo)]
    for text in ("Deploys go through the staging gate", "Integration tests need Docker running"):
        args = build_parser().parse_args([*base, "remember", "convention", text])
        assert args.func(args) == 0
    capsys.readouterr()
    args = build_parser().parse_args([*base, "--json", "inject", "staging deploys", "--explain"])
    assert args.func(args) == 0
    doc = json.loads(capsys.readouterr().out)
    ex = doc["explanation"]
    assert ex["prompt"] == "staging deploys"
    assert ex["coverFloor"] == COVER_FLOOR
    by_text = {c["excerpt"]: c for c in ex["candidates"]}
    kept = by_text["Deploys go through the staging gate"]
    left = by_text["Integration tests need Docker running"]
    assert kept["admitted"] is True
    assert kept["id"] in doc["ids"]
    assert left["admitted"] is False
    assert left["rule"] == "excluded: below the relevance floor"
    for c in (kept, left):
        assert {"bm25", "lexical", "semantic", "cosine", "score", "cover", "scanner"} <= c.keys()
    assert kept["bm25"] > 0
    assert left["bm25"] == 0
    args = build_parser().parse_args([*base, "inject", "staging deploys", "--explain"])
    assert args.func(args) == 0
    text = capsys.readouterr().out
    assert "excluded: below the relevance floor" in text
    assert "floor: cover ≥" in text


@pytest.mark.asyncio
async def test_mind_why_explains_the_last_prompt(svc: MemoryService) -> None:
    ctx = MindCommandContext(svc, MindSettings())
    before = await handle_mind_command("why", ctx)
    assert before.text == "No prompt has been planned yet in this session."
    await svc.remember("convention", "Deploys go through the staging gate", tier="project")
    await svc.remember("convention", "Integration tests need Docker running", tier="project")
    await svc.injection("staging deploys")
    why = await handle_mind_command("why", ctx)
    assert "prompt: 'staging deploys'" in why.text
    assert "admitted: above the floor" in why.text
    assert "excluded: below the relevance floor: Integration tests need Docker running" in why.text


class FixedCosines:
    """A semantic ranker with given cosines per fact id (0.0 for the rest)."""

    def __init__(self, cosines: dict[str, float]) -> None:
        self.cosines = cosines

    def similarities(
        self, index: FactIndex, slots: Collection[int], top: int
    ) -> Mapping[int, float]:
        every = {d: self.cosines.get(f.id, 0.0) for d, f in enumerate(index.facts)}
        best = sorted(every, key=lambda d: -every[d])[:top]
        return {d: every[d] for d in {*slots, *best}}


PADDING = [fact(f"m_00000000000001{i:02d}", f"Filler memory number {i}.", seen=i) for i in range(8)]


def _hybrid(prompt: str, cosines: dict[str, float], facts: list[Fact]) -> list[str]:
    plan = plan_injection(
        InjectionInput(
            prompt=prompt,
            now=10.0,
            indexes={"project": FactIndex.build(facts)},
            semantic=FixedCosines(cosines),
        )
    )
    return [it.id for it in plan.items]


def test_an_unrelated_prompts_cosines_do_not_admit_facts() -> None:
    """A static model gives unrelated texts cosines of 0.15-0.3, packed together: a
    coding question asked of a store of children's memories. Failed on main (floor 0.15)."""
    cosines = {f.id: 0.22 - 0.01 * i for i, f in enumerate(PADDING)}  # none stands out
    assert _hybrid("zeppelin lattice chromodynamics", cosines, PADDING) == []
    cosines[PADDING[3].id] = SIM_FLOOR  # a cosine at the floor admits its fact alone
    assert _hybrid("zeppelin lattice chromodynamics", cosines, PADDING) == [PADDING[3].id]


def test_a_paraphrase_that_stands_out_is_admitted_below_the_floor() -> None:
    """The paraphrase "which weekday can we ship?" / "Deploys go out on Tuesdays" reaches 0.19:
    with the static model the one fact on the subject leads the rest of the store."""
    lead = {PADDING[5].id: SIM_LOW + SIM_LEAD, PADDING[2].id: SIM_LOW - 0.05}
    assert SIM_LOW + SIM_LEAD < SIM_FLOOR
    assert _hybrid("zeppelin lattice chromodynamics", lead, PADDING) == [PADDING[5].id]
    close = {PADDING[5].id: SIM_LOW + SIM_LEAD, PADDING[2].id: SIM_LOW + 0.01}  # no lead
    assert _hybrid("zeppelin lattice chromodynamics", close, PADDING) == []
    low = {PADDING[5].id: SIM_LOW - 0.01}  # a lead, but below the low floor
    assert _hybrid("zeppelin lattice chromodynamics", low, PADDING) == []


WORDY = [*PADDING, fact("m_0000000000000200", "The zeppelin hangar opens at dawn.", seen=9)]
"""A store where one fact shares a prompt's word but none is near it in meaning."""
PACKED = {f.id: 0.22 - 0.01 * i for i, f in enumerate(WORDY)}
"""Cosines of an unrelated prompt: below ``SIM_FLOOR``, packed, none stands out."""


def test_a_tier_with_nothing_similar_admits_nothing_on_cover_alone() -> None:
    """Issue 23: a coding question asked of MADial-Bench's store shares an everyday word
    with a few memories, enough cover to pass the floor, while no memory is near it in
    meaning; per prompt, the tier's best cosine says it holds nothing the prompt is about.
    Failed on main: the shared word's cover admitted its fact."""
    prompt = "zeppelin lattice chromodynamics"
    weights = PromptWeights(FactIndex.build(WORDY), ("zeppelin", "lattic", "chromodynam"))
    assert weights.cover(len(WORDY) - 1) >= weights.floor  # the cover alone passes
    assert _hybrid(prompt, PACKED, WORDY) == []
    lexical = plan_injection(
        InjectionInput(prompt=prompt, now=10.0, indexes={"project": FactIndex.build(WORDY)})
    )
    assert [it.id for it in lexical.items] == [WORDY[-1].id]  # no similarities: no judgement
    similar = {**PACKED, PADDING[3].id: SIM_FLOOR}  # one fact similar enough: cover admits
    assert set(_hybrid(prompt, similar, WORDY)) == {PADDING[3].id, WORDY[-1].id}
    lead = {PADDING[5].id: SIM_LOW + SIM_LEAD}  # a best match that stands out: cover admits
    assert set(_hybrid(prompt, lead, WORDY)) == {PADDING[5].id, WORDY[-1].id}


def test_explanation_names_the_tiers_judgement() -> None:
    """The "why" face says what left out a candidate whose cover passed. Failed on main:
    the explanation had no judgement and called it "below the relevance floor"."""
    plan = plan_injection(
        InjectionInput(
            prompt="zeppelin lattice chromodynamics",
            now=10.0,
            indexes={"project": FactIndex.build(WORDY)},
            semantic=FixedCosines(PACKED),
        )
    )
    ex = explain_plan(plan)
    rules = {c.id: c.rule for c in ex.candidates}
    assert rules[WORDY[-1].id].startswith("excluded: nothing in this tier is similar")
    assert rules[PADDING[0].id] == "excluded: below the relevance floor"  # no cover: the floor
    assert ex.judgement == [
        "project LTM: no fact similar enough to the prompt; 1 candidate(s) above the cover"
        " floor left out"
    ]
    assert "judgement: project LTM: no fact similar enough" in render_explanation(ex)
    doc = json.loads(msgspec.json.encode(ex))
    assert doc["judgement"] == ex.judgement
