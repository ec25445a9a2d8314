"""The pure rules behind decision records and child costs (issue 26).

Stances and the verdict come from structured fields (a ``Stance:`` line per round, a
trailing JSON verdict block), never a guess from prose; the record fits a fact (2,000
characters) with the dissent inside the first 690 (what the memory block shows); the
same-model rule resolves declared names; usage is told the same way everywhere.
"""

from __future__ import annotations

import json

import pytest

from persona_mind.messages.child import ChildProgress, ChildSpend, ChildUsage
from persona_mind.messages.roundtable_progress import Position, RoundtableResult
from persona_mind.mind.facts._rules import MAX_TEXT_CHARS, validate_draft
from persona_mind.persona.children._costs import spend_lines, usage_text
from persona_mind.persona.children._decision import (
    DECISION_KIND,
    DECISION_TAGS,
    HEAD_CHARS,
    decision_source,
    decision_text,
    dissent_line,
    is_decision,
)
from persona_mind.persona.children._progress import RoundtableTracker, render_live
from persona_mind.persona.children._roundtable import round1_prompt, synthesis_prompt
from persona_mind.persona.children._verdict import one_model, split_verdict, stance_of
from tests.children._helpers import persona

# -- stances -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "stance"),
    [
        ("Stance: use a queue.\nBecause retries.", "use a queue."),
        ("**Stance:** keep cron\n\nreasons", "keep cron"),
        ("- stance: a flag first", "a flag first"),
        ("## My view\nQueues are better.", "My view"),
        ("I think a queue is right.\nStance: not on line one is fine", "not on line one is fine"),
        ("", "(no answer text)"),
    ],
)
def test_the_stance_is_the_specialists_own_line(answer: str, stance: str) -> None:
    assert stance_of(answer) == stance


def test_a_long_stance_is_clipped_to_one_line() -> None:
    got = stance_of("Stance: " + "word " * 100)
    assert len(got) <= 200
    assert got.endswith("…")
    assert "\n" not in got


def test_every_round_asks_for_the_stance_line() -> None:
    prompt = round1_prompt("Q?", persona("architect"), "the design")
    assert prompt.startswith("Round 1")
    assert "`Stance: <your position in one sentence>`" in prompt
    synth = synthesis_prompt("Q?", (("architect", "x"), ("critic", "y")), ())
    assert '"adopted": {"architect": true, "critic": true}' in synth


# -- the verdict ---------------------------------------------------------------------------

BODY = "## Decision\nadopt X\n"


def _with(block: object) -> str:
    return f"{BODY}\n```json\n{json.dumps(block)}\n```\n"


def test_the_verdict_block_is_taken_off_the_text_and_decoded() -> None:
    shown, verdict = split_verdict(
        _with({"decision": "adopt X", "adopted": {"a": True, "b": False, "zz": False}}), ["a", "b"]
    )
    assert shown == BODY.rstrip()
    assert verdict is not None
    assert verdict.decision == "adopt X"
    assert (verdict.of("a"), verdict.of("b"), verdict.of("zz")) == (True, False, None)


@pytest.mark.parametrize(
    "text",
    [
        BODY,  # no block
        f'```json\n{{"adopted": {{"a": false}}}}\n```\n{BODY}',  # not at the end
    ],
)
def test_no_trailing_block_is_no_verdict_and_the_text_is_kept(text: str) -> None:
    shown, verdict = split_verdict(text, ["a"])
    assert verdict is None
    assert shown == text


def test_only_the_last_block_is_the_verdict_and_earlier_code_stays_shown() -> None:
    code = "## Tradeoffs\n```python\nqueue.put(item)\n```\nthen prose\n"
    text = code + _with({"decision": "adopt X", "adopted": {"a": False}})
    shown, verdict = split_verdict(text, ["a"])
    assert shown == (code + BODY).rstrip()
    assert verdict is not None
    assert verdict.of("a") is False
    ending_in_code = code + "```python\nprint(1)\n```"
    assert split_verdict(ending_in_code, ["a"]) == (ending_in_code, None)


@pytest.mark.parametrize(
    "block",
    ['{"adopted": {"a": "yes"}}', "not json", '{"adopted": {"zz": false}}'],
)
def test_a_malformed_verdict_is_none_but_never_shown(block: str) -> None:
    shown, verdict = split_verdict(f"{BODY}\n```json\n{block}\n```", ["a"])
    assert verdict is None
    assert "```" not in shown


# -- one model -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("models", "one"),
    [
        (["fake/m", "fake/m", "fake/m"], "fake/m"),
        (["fake/m", "m", "fake/m:high"], "fake/m"),  # a bare id, a thinking level: one model
        (["fake/m", "acme/strong"], None),
        (["fake/m", "other/m"], None),  # same id, two providers: two models
        ([], None),
        (["fake/m", ""], None),
    ],
)
def test_one_model_resolves_declared_names(models: list[str], one: str | None) -> None:
    assert one_model(models) == one


# -- the record -------------------------------------------------------------------------------


def _result(
    n: int = 3, *, long: int = 0, marked: bool = True, same: str | None = None
) -> RoundtableResult:
    filler = " because" * long
    positions = tuple(
        Position(
            name=f"specialist-{i}",
            reason=f"cover part {i}{filler}",
            round1=f"round one view {i}{filler}",
            final=f"final view {i}{filler}",
            adopted=(i != 1) if marked else None,
            model="fake/m",
        )
        for i in range(n)
    )
    return RoundtableResult(
        query="Should we shard the index?" + filler,
        lead="lead",
        roster=tuple((p.name, p.reason) for p in positions),
        synthesis="(shown)",
        children=2 * n + 1,
        usage=ChildUsage(input_tokens=1000, output_tokens=200, cost=0.02),
        elapsed=3.0,
        run_id="rt9",
        positions=positions,
        decision="Shard by tenant." + filler,
        disagreements="whether to shard now" + filler,
        uncertainty="growth rate" + filler,
        lead_model="fake/m",
        same_model=same,
        verdict_marked=marked,
    )


@pytest.mark.parametrize("n", [1, 3, 5])
@pytest.mark.parametrize("long", [0, 40, 400])
def test_the_record_fits_a_fact_with_the_dissent_in_its_head(n: int, long: int) -> None:
    result = _result(n, long=long, same="fake/m")
    text = decision_text(result, date="2026-11-30")
    assert len(text) <= MAX_TEXT_CHARS
    head = text[:HEAD_CHARS]
    assert head.startswith("Round-table decision (2026-11-30; lead lead): Should we shard")
    assert "Decided: Shard by tenant" in head
    if n > 1:
        assert "Dissent: specialist-1 (final view 1" in head
    else:
        assert "No dissent" in head
    assert "Same model: the lead and every specialist ran fake/m" in head
    for i in range(n):
        assert f"specialist-{i} [" in text
    draft = validate_draft(DECISION_KIND, text, DECISION_TAGS, decision_source("rt9", "/s", "c"))
    assert draft.text == text  # one line already; the scanner lets ordinary text through


def test_an_unmarked_verdict_keeps_every_position_and_says_so() -> None:
    result = _result(3, marked=False)
    text = decision_text(result, date="2026-11-30")
    assert "Dissent: not marked by the moderator" in text
    assert text.count("[not marked; fake/m]") == 3
    assert dissent_line(result).startswith("Dissent: the moderator did not mark")


def test_the_dissent_line_names_each_dissenter_with_its_position() -> None:
    assert dissent_line(_result(3)) == "Dissent: specialist-1 — final view 1"
    assert dissent_line(_result(1)).startswith("Dissent: none")


def test_the_source_links_the_full_synthesis() -> None:
    assert decision_source("rt1", "/s/x.jsonl", "c7") == (
        "round-table rt1: full synthesis in session /s/x.jsonl, tool call c7"
    )
    assert "no session file" in decision_source("rt1", None, "c7")
    assert is_decision("rationale", ("decision", "round-table", "x"))
    assert not is_decision("rationale", ("decision",))
    assert not is_decision("note", DECISION_TAGS)


# -- usage ---------------------------------------------------------------------------------------


def test_usage_is_told_with_its_parts_and_cost() -> None:
    usage = ChildUsage(input_tokens=1200, output_tokens=30, cache_write_tokens=5, cost=0.0123)
    assert usage.total_tokens == 1235
    assert usage_text(usage) == "1,235 tokens (input 1,200 · output 30 · cache write 5) · $0.0123"
    assert usage_text(usage, brief=True) == "1,235 tokens · $0.0123"
    assert usage_text(ChildUsage()) == "0 tokens"


def test_spend_lines_sum_per_persona_and_kind() -> None:
    u = ChildUsage(input_tokens=10, output_tokens=5)
    rows = [
        ChildSpend(generation=1, persona="architect", kind="consult", children=1, usage=u),
        ChildSpend(generation=1, persona="architect", kind="round1", children=1, usage=u),
        ChildSpend(generation=2, persona="architect", kind="round2", children=1, usage=u),
        ChildSpend(generation=2, persona="mind-optimizer", kind="worker", children=2, usage=u),
    ]
    lines = spend_lines(rows)
    assert lines[0] == "Children this session: 5, 60 tokens (input 40 · output 20)."
    assert "  architect: consult 1, round-table 2; 45 tokens" in lines
    assert "  mind-optimizer: review worker 2; 15 tokens" in lines
    assert spend_lines([])[0].startswith("Children this session: none yet")


def test_the_live_totals_run_with_what_running_children_reported() -> None:
    """Scope 5: the view's totals include usage reported by children still running."""
    tracker = RoundtableTracker("Q?", "lead", 0.0)
    tracker.selected((("a", "x"), ("b", "y")))
    tracker.enter("independent")
    part = ChildUsage(input_tokens=100, output_tokens=10)

    def usage(name: str) -> ChildProgress:
        return ChildProgress(request_id=f"r-{name}", persona=name, event="usage", usage=part)

    tracker.child_event(usage("a"))
    tracker.child_event(usage("b"))
    tracker.child_event(usage("b"))  # b's second turn
    assert tracker.snapshot(1.0).usage.total_tokens == 330
    assert "330 tokens" in render_live(tracker.snapshot(1.0))
    tracker.child_done("a", ChildUsage(input_tokens=120, output_tokens=12), ok=True)  # its total
    tracker.child_done("b", None, ok=False)  # failed: what it reported was spent
    assert tracker.snapshot(2.0).usage.total_tokens == 132 + 220
