"""A scan cut into steps is the same scan (issue 27 item 6, M-INJECT-9): stepping a window
changes no finding, a long text's windowed verdict agrees with the whole text's on attacks
straddling the window edges, and ``verdict_async`` pauses by its time budget.

Deterministic: the corpus is fixed, the filler is fixed, and the budget's timer is a counter.
"""

from __future__ import annotations

import asyncio
import itertools
import sys
from collections import defaultdict
from collections.abc import Generator
from typing import TypeVar

import pytest
from bench.scanner import CORPUS, load

from persona_mind.mind.trust import _phrases_structural as structural
from persona_mind.mind.trust import _scanner, _verdict
from persona_mind.mind.trust._learned import load_model
from persona_mind.mind.trust._scanner import scan_steps
from persona_mind.mind.trust._structure_steps import cue_steps
from persona_mind.mind.trust._verdict import STEP_CHARS, STEP_OVERLAP, verdict_async

T = TypeVar("T")
ROWS = load(CORPUS)
FILLER = "2026-01-05T04:05:00Z INFO worker-3 processed job 4411 in 87 ms\n"
PER_CLASS = 6


def _drain(steps: Generator[None, None, T]) -> tuple[T, int]:
    count = 0
    while True:
        try:
            next(steps)
            count += 1
        except StopIteration as done:
            return done.value, count


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    _verdict._BIG.clear()


def test_a_stepped_scan_finds_exactly_what_a_whole_scan_finds_on_every_corpus_case() -> None:
    stepped_more = 0
    for row in ROWS:
        found, count = _drain(scan_steps(row["text"]))
        assert found == _scanner._scan_one(row["text"]), row["text"][:80]
        stepped_more += count > 1
    assert stepped_more > len(ROWS) // 2  # the steps are real, not one piece


def _straddling_cases() -> list[tuple[str, int]]:
    """Up to PER_CLASS refused attacks of each class, short enough for the overlap, each
    with the window edge it straddles (edges are every ``STEP_OVERLAP`` characters)."""
    picked: dict[str, list[str]] = defaultdict(list)
    for row in ROWS:
        text = row["text"]
        if row["label"] != "attack" or not 16 <= len(text) < STEP_OVERLAP - 16:
            continue
        if len(picked[row["class"]]) < PER_CLASS and _scanner._scan_one(text):
            picked[row["class"]].append(text)
    attacks = [t for texts in picked.values() for t in texts]
    return [(t, 8 * STEP_CHARS + STEP_OVERLAP * (i % 4)) for i, t in enumerate(attacks)]


CASES = _straddling_cases()


def test_the_cases_cover_every_refused_class() -> None:
    assert len(CASES) >= 40
    assert {edge % STEP_CHARS for _, edge in CASES} == {0, STEP_OVERLAP}


@pytest.mark.parametrize(("attack", "edge"), CASES, ids=[str(i) for i in range(len(CASES))])
def test_windowed_and_whole_text_verdicts_agree_on_an_attack_across_a_window_edge(
    attack: str, edge: int
) -> None:
    """The attack's middle sits on a window edge of a 20 KB log (stepped windows of
    ``STEP_CHARS`` plus overlap); the stepped verdict names the same rules as a scan of the
    whole text in one piece."""
    body = FILLER * (20_000 // len(FILLER))
    cut = edge - len(attack) // 2
    text = body[:cut] + "\n" + attack + "\n" + body[cut:]
    whole = _scanner._scan_one(text)
    assert whole, "the attack is still refused inside the log"
    windowed, _ = _drain(_verdict.verdict_steps(text))
    assert windowed.refused
    assert windowed.reasons == tuple(f"{f.category}/{f.rule}" for f in whole)


def test_verdict_async_pauses_when_its_budget_is_used() -> None:
    """A timer that ticks once per reading and a budget of five ticks: one loop pass per
    five steps, not one per step."""
    text = FILLER * (80 * 1024 // len(FILLER))
    _, total = _drain(_verdict.verdict_steps(text))
    _verdict._BIG.clear()
    ticks = itertools.count()
    pauses = 0

    async def pause() -> None:
        nonlocal pauses
        pauses += 1
        await asyncio.sleep(0)

    result = asyncio.run(verdict_async(text, pause=pause, budget=5, timer=lambda: next(ticks)))
    assert result.level == "clean"
    assert pauses == total // 5


def _cue_searches_per_step(text: str) -> list[int]:
    """How many structural-cue searches (a cue's literal gate or its pattern) each step of
    ``verdict_steps(text)`` runs: counted from the interpreter's C-call events, so the
    figure is the work a step hands the regex engine, not a timing."""
    cue_patterns = {
        id(pattern)
        for checks in (structural._CHECKS, structural._ASCII_CHECKS)
        for gate, cue in checks.values()
        for pattern in (gate, cue)
        if pattern is not None
    }
    count = 0

    def profile(frame: object, event: str, arg: object) -> None:
        nonlocal count
        if event == "c_call" and id(getattr(arg, "__self__", None)) in cue_patterns:
            count += 1

    steps = _verdict.verdict_steps(text)
    per_step: list[int] = []
    while True:
        count = 0
        sys.setprofile(profile)
        try:
            next(steps)
        except StopIteration:
            return per_step
        finally:
            sys.setprofile(None)
        per_step.append(count)


def test_no_step_of_a_long_scan_runs_more_than_one_cue_search() -> None:
    """A 70 KB service log (the long paste of issue 27 item 6) whose windows the learned
    layer searches for cues and whose ``key``/``send``-like words make the rules ask for
    several: every step runs at most one cue's gate and its pattern, because two dozen of
    them on one window were the longest stretches a 4 MB scan held the loop (3-6 ms)."""
    line = "2026-01-05T04:05:00Z INFO worker-3 cache hit for key build-7, then send 12 rows\n"
    text = line * (70 * 1024 // len(line))
    assert _verdict.needs_offload(text)
    per_step = _cue_searches_per_step(text)
    assert sum(per_step) > 10 * len(text) // STEP_CHARS  # the cues really are searched
    assert max(per_step) <= 2


def test_stepped_cues_and_logits_equal_the_whole_ones_on_every_corpus_case() -> None:
    """The learned layer's stepped path (cue searches one a step) scores every corpus text
    exactly as :meth:`Model.logit` does, with the same cue set."""
    model = load_model()
    cued = 0
    for row in ROWS:
        form = _verdict.model_form(row["text"])
        present, _ = _drain(cue_steps(form))
        assert present == structural.cues(form), row["text"][:80]
        for window in model.windows(form):
            stepped, _ = _drain(model.logit_steps(window))
            assert stepped == model.logit(window), row["text"][:80]
        cued += bool(present)
    assert cued > len(ROWS) // 4
