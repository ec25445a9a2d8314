"""The lead's ``persona_roundtable`` call (schema, validation) and the strict synthesis check.

Issue 13 item 8: P-ROUNDTABLE-4 (one schema-validated selection with reasons), -5 (only the
pack's specialists), -10 (no lexical fallback), -9 (all five sections, non-empty, in order),
-16 (the result is the synthesis in full, with the instruction to present it verbatim).
"""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from persona_mind.children import SelectionInvalid, SynthesisIncomplete
from persona_mind.features._child_specs import ROUNDTABLE_TOOL_NAME, roundtable_tool
from persona_mind.features._roundtable_call import PRESENT_IN_FULL, result_text
from persona_mind.messages.child import ChildUsage
from persona_mind.messages.roundtable_progress import RoundtableProgress, RoundtableResult
from persona_mind.persona.children._progress import RoundtableTracker, render_live
from persona_mind.persona.children._roundtable import (
    MAX_QUERY_CHARS,
    REQUEST_MARKER,
    SECTIONS,
    check_synthesis,
    lead_request,
    picks_by_name,
    validate_selection,
)
from tests.children._helpers import team

TEAM = team("a", "b", "c", "d", "e", "f")
FULL = "\n".join(f"## {title}\n{title.lower()} text" for title, _ in SECTIONS)


def args(*names: str, reason: str = "because", query: str = "Q?") -> dict[str, Any]:
    return {"query": query, "specialists": [{"name": n, "reason": reason} for n in names]}


# -- the tool's schema is the selection -----------------------------------------------------


def test_tool_schema_names_only_the_teams_specialists_and_requires_reasons() -> None:
    """P-ROUNDTABLE-4/-5: names are an enum of the specialists; name and reason required."""
    spec = roundtable_tool([p.name for p in TEAM.specialists])
    assert spec.name == ROUNDTABLE_TOOL_NAME == "persona_roundtable"
    schema = spec.parameters
    jsonschema.Draft202012Validator.check_schema(schema)
    item = schema["properties"]["specialists"]["items"]
    assert item["properties"]["name"]["enum"] == list("abcdef")
    assert item["required"] == ["name", "reason"]
    assert schema["required"] == ["query", "specialists"]
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid(args("a", "b"))
    assert not validator.is_valid(args("lead"))  # the lead is no specialist
    assert not validator.is_valid(args("zz"))
    assert not validator.is_valid(args())  # at least one
    assert not validator.is_valid(args(*"abcdef"))  # at most five
    assert not validator.is_valid({"query": "Q?", "specialists": [{"name": "a"}]})
    assert not validator.is_valid({**args("a"), "extra": 1})


# -- the runtime validates the call again (a host may skip schema validation) ---------------


@pytest.mark.parametrize(("count", "ok"), [(0, False), (1, True), (5, True), (6, False)])
def test_call_size_bounds(count: int, ok: bool) -> None:
    call = args(*"abcdef"[:count])
    if ok:
        query, picks = validate_selection(call, TEAM)
        assert query == "Q?"
        assert [p.name for p, _ in picks] == list("abcdef"[:count])
    else:
        with pytest.raises(SelectionInvalid, match="between 1 and 5"):
            validate_selection(call, TEAM)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        ("pick a and b", "schema"),
        ({"specialists": [{"name": "a", "reason": "x"}]}, "schema"),  # no query
        ({"query": "Q?", "specialists": [{"name": "a"}]}, "schema"),  # no reason
        ({**args("a"), "extra": 1}, "schema"),
        ({"query": "Q?", "specialists": "a, b"}, "schema"),
        (args("zz"), "not a specialist"),
        (args("lead"), "not a specialist"),
        (args("a", "a"), "selected twice"),
        (args("a", reason="  "), "empty reason"),
        (args("a", query="   "), "query is empty"),
        (args("a", query="x" * (MAX_QUERY_CHARS + 1)), "at most"),
    ],
)
def test_invalid_call_is_explicit_never_lexical(call: object, match: str) -> None:
    """P-ROUNDTABLE-10: an invalid selection is an explicit error; nothing is guessed."""
    with pytest.raises(SelectionInvalid, match=match):
        validate_selection(call, TEAM)


def test_reasons_are_kept_in_the_leads_order() -> None:
    """P-ROUNDTABLE-6: each reason becomes that specialist's assignment."""
    call = {"query": " Q? ", "specialists": [
        {"name": "c", "reason": " the risks "}, {"name": "a", "reason": "the design"},
    ]}  # fmt: skip
    query, picks = validate_selection(call, TEAM)
    assert query == "Q?"
    assert [(p.name, r) for p, r in picks] == [("c", "the risks"), ("a", "the design")]
    assert picks_by_name((("c", "the risks"),), TEAM)[0][0].name == "c"
    with pytest.raises(SelectionInvalid):
        picks_by_name((("zz", "x"),), TEAM)


def test_lead_request_names_the_tool_the_specialists_and_the_query() -> None:
    text = lead_request(TEAM, "Shard the index?")
    assert text.startswith(REQUEST_MARKER)
    assert "persona_roundtable" in text
    assert "exactly once" in text
    assert "Shard the index?" in text
    assert "- a:" in text
    assert "- lead:" not in text


# -- P-ROUNDTABLE-9: five sections, present, non-empty, in order ----------------------------


def test_full_synthesis_passes_with_headings_or_bold_lead_ins() -> None:
    check_synthesis(FULL)
    check_synthesis(
        "**Perspectives:** a and b.\n**Disagreements** on timing.\n### 3. Trade-offs and risks\n"
        "cost vs speed\n**Decision:** ship it\n## Uncertainties\nload"
    )


@pytest.mark.parametrize("empty", [t for t, _ in SECTIONS])
def test_an_empty_section_fails(empty: str) -> None:
    text = "\n".join(
        f"## {title}\n" + ("" if title == empty else f"{title.lower()} text\n")
        for title, _ in SECTIONS
    )
    with pytest.raises(SynthesisIncomplete, match="empty sections: " + empty) as info:
        check_synthesis(text)
    assert info.value.empty == (empty,)


def test_a_whitespace_only_section_fails() -> None:
    text = FULL.replace("decision text", "   \n\t")
    with pytest.raises(SynthesisIncomplete, match="empty sections: Decision"):
        check_synthesis(text)


def test_sections_out_of_order_fail() -> None:
    titles = [t for t, _ in SECTIONS]
    swapped = [titles[0], titles[3], titles[2], titles[1], titles[4]]
    text = "\n".join(f"## {title}\n{title.lower()} text" for title in swapped)
    with pytest.raises(SynthesisIncomplete, match="out of order") as info:
        check_synthesis(text)
    assert info.value.order == tuple(swapped)
    assert info.value.missing == ()


def test_a_missing_section_is_named() -> None:
    text = "\n".join(f"## {t}\n{t.lower()} text" for t, _ in SECTIONS if t != "Tradeoffs")
    with pytest.raises(SynthesisIncomplete, match="missing sections: Tradeoffs"):
        check_synthesis(text)


def test_a_mention_in_prose_is_not_a_heading() -> None:
    """'the decision' inside a sentence does not open the Decision section."""
    text = FULL.replace("## Decision\ndecision text", "we still owe a decision here")
    with pytest.raises(SynthesisIncomplete, match="missing sections: Decision"):
        check_synthesis(text)


# -- the live display and the result ----------------------------------------------------------


def _progress() -> RoundtableProgress:
    tracker = RoundtableTracker("Shard the index?", "lead", 0.0)
    tracker.selected((("a", "the design"), ("b", "the risks")))
    tracker.enter("independent")
    return tracker.snapshot(2.5)


def test_live_display_fits_the_collapsed_tool_view_and_says_what_p17_asks() -> None:
    """P-ROUNDTABLE-17: query, context policy, roster with reasons, phase and purpose,
    per-persona state, next step, totals — in at most ten lines (Pi's collapsed view)."""
    text = render_live(_progress())
    lines = text.splitlines()
    assert len(lines) <= 10
    assert lines[0] == "Round-table: Shard the index?"
    assert lines[1].startswith("Context policy: ")
    assert lines[2].startswith("Phase: independent — Round 1")
    assert "  a [waiting]: the design" in lines
    assert any(line.startswith("Moderator: lead (waiting) · Next: Round 2") for line in lines)
    assert lines[-1] == "Totals: 0/0 children finished, 0 tokens, 2.5s"


def test_result_is_the_synthesis_in_full_with_the_present_verbatim_instruction() -> None:
    """P-ROUNDTABLE-16: the lead gets the whole synthesis and is told not to paraphrase."""
    result = RoundtableResult(
        query="Q?",
        lead="lead",
        roster=(("a", "x"),),
        synthesis=FULL,
        children=3,
        usage=ChildUsage(input_tokens=10, output_tokens=5),
        elapsed=1.0,
    )
    text = result_text(result)
    # the whole synthesis, then the dissent line (issue 26: never lost in the summary)
    assert "\n\n" + FULL + "\n\nDissent: " in text
    assert PRESENT_IN_FULL in text
    assert "3 children, 15 tokens (input 10 · output 5)" in text


# -- the sidecar's host side speaks the two new frames ---------------------------------------


class _Caller:
    def __init__(self) -> None:
        self.calls: list[tuple[str, object]] = []

    async def call(self, method: str, params: object, result_type: Any = None) -> Any:
        self.calls.append((method, params))
        return None


@pytest.mark.asyncio
async def test_bridge_host_sends_tool_update_and_user_message_frames() -> None:
    """docs/bridge.md: ``tool_update {call_id, text, details}`` → Pi's ``onUpdate`` for
    that call; ``send_user_message {text}`` → ``pi.sendUserMessage``."""
    import msgspec  # noqa: PLC0415

    from persona_mind.bridge._host import BridgeHost  # noqa: PLC0415

    caller = _Caller()
    host = BridgeHost(caller)
    await host.tool_update("call-7", "Phase: independent", {"roundtable": {"phase": "x"}})
    await host.send_user_message("[persona-mind:roundtable-request] …")
    frames = [(m, msgspec.to_builtins(p)) for m, p in caller.calls]
    assert frames == [
        (
            "tool_update",
            {
                "call_id": "call-7",
                "text": "Phase: independent",
                "details": {"roundtable": {"phase": "x"}},
            },
        ),
        ("send_user_message", {"text": "[persona-mind:roundtable-request] …"}),
    ]
