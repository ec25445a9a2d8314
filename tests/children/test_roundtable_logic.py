"""Round-table selection schema, prompts and the synthesis check (pure logic)."""

from __future__ import annotations

import json

import pytest

from persona_mind.children import SelectionInvalid, SynthesisIncomplete, parse_selection
from persona_mind.persona.children._roundtable import (
    MAX_REASON_CHARS,
    SECTIONS,
    check_synthesis,
    round2_prompt,
    selection_prompt,
    synthesis_prompt,
)
from tests.children._helpers import persona, team

TEAM = team("a", "b", "c", "d", "e", "f")


def sel(*names: str, reason: str = "because") -> str:
    return json.dumps({"specialists": [{"name": n, "reason": reason} for n in names]})


@pytest.mark.parametrize(("count", "ok"), [(0, False), (1, True), (4, True), (5, True), (6, False)])
def test_selection_size_bounds(count: int, ok: bool) -> None:
    """P-ROUNDTABLE-4/-20: 1–5 specialists, tested at n-1, n, n+1 of both ends."""
    text = sel(*"abcdef"[:count])
    if ok:
        assert [p.name for p, _ in parse_selection(text, TEAM)] == list("abcdef"[:count])
    else:
        with pytest.raises(SelectionInvalid, match="between 1 and 5"):
            parse_selection(text, TEAM)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("I pick a and b, they know best.", "not one JSON object"),
        ('{"specialists": [{"name": "a"}]}', "schema"),
        ('{"specialists": [{"name": "a", "reason": "x", "extra": 1}]}', "schema"),
        ('{"picks": []}', "schema"),
        ('[{"name": "a", "reason": "x"}]', "schema"),
        ('{"specialists": [{"name": "a", "reason": "x"}]} trailing', "not one JSON object"),
        (sel("zz"), "not a specialist"),
        (sel("lead"), "not a specialist"),
        (sel("a", "a"), "selected twice"),
        (sel("a", reason="   "), "empty reason"),
    ],
)
def test_malformed_selection_is_explicit_never_lexical(text: str, match: str) -> None:
    """P-ROUNDTABLE-5/-10: no fallback guesses names from prose; the lead is not eligible."""
    with pytest.raises(SelectionInvalid, match=match):
        parse_selection(text, TEAM)


@pytest.mark.parametrize(
    ("length", "ok"),
    [(MAX_REASON_CHARS - 1, True), (MAX_REASON_CHARS, True), (MAX_REASON_CHARS + 1, False)],
)
def test_reason_length_bound(length: int, ok: bool) -> None:
    text = sel("a", reason="r" * length)
    if ok:
        assert parse_selection(text, TEAM)[0][1] == "r" * length
    else:
        with pytest.raises(SelectionInvalid, match="characters"):
            parse_selection(text, TEAM)


def test_one_json_fence_is_accepted_and_order_kept() -> None:
    text = "```json\n" + sel("c", "a") + "\n```"
    assert [p.name for p, _ in parse_selection(text, TEAM)] == ["c", "a"]


def test_selection_prompt_lists_only_specialists() -> None:
    prompt = selection_prompt(TEAM, "Ship it?")
    assert '- a: "the a specialist"' in prompt  # quoted data (issue 27 item 7)
    assert "- lead:" not in prompt
    assert "Ship it?" in prompt


def test_round2_reveals_round1_in_order_and_asks_self_contained() -> None:
    """P-ROUNDTABLE-8."""
    prompt = round2_prompt(
        "Q?", persona("b"), "check risks", (("a", "A-POSITION"), ("b", "B-POSITION"))
    )
    assert prompt.index("1. a\nA-POSITION") < prompt.index("2. b\nB-POSITION")
    assert "self-contained" in prompt
    assert "check risks" in prompt


def test_synthesis_prompt_names_every_section() -> None:
    prompt = synthesis_prompt("Q?", (("a", "r1"),), (("a", "FINAL-A"),))
    for title, _ in SECTIONS:
        assert f"## {title}" in prompt
    assert "FINAL-A" in prompt


FULL = "\n".join(f"## {t}\ntext" for t, _ in SECTIONS)


def test_synthesis_with_all_sections_passes() -> None:
    """P-ROUNDTABLE-9."""
    check_synthesis(FULL)
    check_synthesis(FULL.replace("## Tradeoffs", "**Trade-offs**").replace("## ", "### "))


@pytest.mark.parametrize("title", [t for t, _ in SECTIONS])
def test_synthesis_missing_any_section_fails(title: str) -> None:
    text = "\n".join(f"## {t}\ntext" for t, _ in SECTIONS if t != title)
    with pytest.raises(SynthesisIncomplete, match=title):
        check_synthesis(text)
