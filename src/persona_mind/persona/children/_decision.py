"""A round-table's decision record: what the team decided, who disagreed, what it cost.

A record is Mind memory — one project-LTM fact written through the Store like any other
(kind ``rationale``, tags :data:`DECISION_TAGS`; the ``round-table`` tag carries the origin
until facts have an origin field of their own) — so recall, injection, ``memory read`` and
``memory forget`` treat it as they treat every fact. This module builds its parts from a
:class:`~persona_mind.messages.roundtable_progress.RoundtableResult` (pure, no IO):

* :func:`decision_text` — the fact's text, at most :data:`RECORD_CHARS` characters, laid
  out so its first :data:`HEAD_CHARS` (what the memory block shows of a fact) carry the
  question, the decision, every dissenting specialist by name with its position and the
  same-model warning; then the panel (each specialist's reason, Round 1 and final stance,
  adopted or dissent, model), the disagreements and uncertainty in brief, the models and
  the round-table's total cost;
* :func:`decision_source` — the link to the full synthesis: the session file and the tool
  call whose result holds it (the parent session keeps the synthesis; persona-mind keeps
  no child transcripts);
* :func:`dissent_line` — the one line the synthesis shown to the user ends with;
* :func:`decision_line` — one line of ``/persona decisions``.
"""

from __future__ import annotations

from typing import Literal

from persona_mind.messages.roundtable_progress import Position, RoundtableResult
from persona_mind.persona.children._costs import usage_text
from persona_mind.persona.children._verdict import clip, model_warning

__all__ = (
    "DECISION_KIND",
    "DECISION_TAGS",
    "HEAD_CHARS",
    "ORIGIN_TAG",
    "RECORD_CHARS",
    "decision_line",
    "decision_source",
    "decision_text",
    "dissent_line",
    "is_decision",
)

DECISION_KIND: Literal["rationale"] = "rationale"
ORIGIN_TAG = "round-table"
DECISION_TAGS: tuple[str, ...] = ("decision", ORIGIN_TAG)
RECORD_CHARS = 2_000
"""A fact's text limit (``mind.facts``: 2,000 characters)."""
HEAD_CHARS = 690
"""What the memory block shows of a fact is its first 700 characters: the head fits."""
PREFIX = "Round-table decision"


def _bare(text: str, limit: int) -> str:
    """A stance clipped for a sentence of the record: no closing period of its own."""
    return clip(text, limit).rstrip(".;")


def _dissent(positions: tuple[Position, ...], room: int) -> str:
    names = [p for p in positions if p.adopted is False]
    if not names:
        return ""
    each = max(40, (room - 12 * len(names)) // len(names))
    return "Dissent: " + "; ".join(f"{p.name} ({_bare(p.final, each)})" for p in names) + "."


def _head(result: RoundtableResult, date: str) -> str:
    opening = f"{PREFIX} ({date}; lead {result.lead}):"
    if not result.verdict_marked:
        verdict = "Dissent: not marked by the moderator; every final position is below."
    elif not result.dissent:
        verdict = "No dissent: every specialist's final position was adopted."
    else:
        verdict = ""
    warning = model_warning(result.same_model) if result.same_model else ""
    for q_chars, d_chars in ((160, 240), (120, 180), (80, 120), (60, 80)):
        room = HEAD_CHARS - len(opening) - len(warning) - q_chars - d_chars - 30
        dissent = verdict or _dissent(result.positions, room)
        parts = [
            opening,
            f"{clip(result.query, q_chars).rstrip('.?!')}?",
            f"Decided: {clip(result.decision or '(no decision text)', d_chars).rstrip('.')}.",
            dissent,
            warning,
        ]
        head = " ".join(p for p in parts if p)
        if len(head) <= HEAD_CHARS:
            return head
    return clip(head, HEAD_CHARS)


def _panel(positions: tuple[Position, ...], each: int) -> str:
    rows = []
    for p in positions:
        verdict = {True: "adopted", False: "dissent", None: "not marked"}[p.adopted]
        rows.append(
            f"{p.name} [{verdict}; {p.model}] chosen for: {_bare(p.reason, each)}; "
            f"round 1: {_bare(p.round1, each)}; final: {_bare(p.final, each)}"
        )
    return "Panel: " + " | ".join(rows) + "."


def decision_text(result: RoundtableResult, *, date: str) -> str:
    """The record's text (see the module doc); at most :data:`RECORD_CHARS` characters."""
    head = _head(result, date)
    cost = f"Cost: {result.children} children, {usage_text(result.usage)}."
    models = sorted(({p.model for p in result.positions} | {result.lead_model}) - {""})
    model_part = (
        f"Models: lead {result.lead_model or '?'}; "
        + ", ".join(f"{p.name} {p.model}" for p in result.positions)
        + "."
        if len(models) > 1
        else f"Models: {models[0] if models else '?'} for every persona."
    )
    for each, brief in ((120, 220), (90, 160), (60, 110), (40, 70), (24, 40)):
        tail = [
            _panel(result.positions, each),
            f"Disagreements: {clip(result.disagreements or '(none stated)', brief)}",
            f"Uncertainty: {clip(result.uncertainty or '(none stated)', brief)}",
            model_part,
            cost,
        ]
        text = " ".join([head, *tail])
        if len(text) <= RECORD_CHARS:
            return text
    return clip(text, RECORD_CHARS)


def decision_source(run_id: str, session_file: str | None, call_id: str | None) -> str:
    """The record's source: the run and where the full synthesis is kept (≤ 1,000 chars)."""
    if session_file and call_id:
        where = f"full synthesis in session {session_file}, tool call {call_id}"
    elif call_id:
        where = f"full synthesis in this session's tool call {call_id} (no session file)"
    else:
        where = "full synthesis shown when it ran (no session kept it)"
    return clip(f"{ORIGIN_TAG} {run_id}: {where}", 1_000)


def dissent_line(result: RoundtableResult) -> str:
    """The line the synthesis shown to the user ends with (scope: dissent never lost)."""
    if not result.verdict_marked:
        return (
            "Dissent: the moderator did not mark which final positions the decision "
            "adopted; the decision record keeps every one."
        )
    dissent = result.dissent
    if not dissent:
        return "Dissent: none — every specialist's final position was adopted."
    return "Dissent: " + "; ".join(f"{p.name} — {clip(p.final, 160)}" for p in dissent)


def is_decision(kind: str, tags: tuple[str, ...]) -> bool:
    """Whether a fact is a round-table decision record."""
    return kind == DECISION_KIND and all(t in tags for t in DECISION_TAGS)


def decision_line(shown_id: str, text: str, width: int = 200) -> str:
    """One ``/persona decisions`` line: the id the memory tool resolves, then the head."""
    body = text.removeprefix(PREFIX).lstrip(" ")
    return f"{shown_id}  {clip(body, width)}"
