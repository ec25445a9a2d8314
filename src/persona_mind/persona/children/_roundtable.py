"""Round-table prompts, the strict selection schema and the synthesis check (pure, no IO).

The fixed workflow (P-ROUNDTABLE-7..9): the team's ``[G]`` lead selects 1–5 specialists
with one reason each; Round 1 asks each for an independent position on its assignment;
Round 2 reveals the ordered Round 1 answers and asks for a self-contained final position;
the lead moderates one synthesis with five named sections.

The selection is *schema-validated* (P-ROUNDTABLE-4). In Pi the session's lead makes it as
one ``persona_roundtable`` tool call whose arguments :func:`validate_selection` checks
(``{"query": …, "specialists": [{"name": …, "reason": …}, …]}``); on the CLI/library path a
child lead answers one JSON object ``{"specialists": [...]}`` (optionally inside one
```` ```json ```` fence) that :func:`parse_selection` checks with the same rules. Anything
else is a :class:`SelectionInvalid` — there is no lexical fallback that guesses names from
prose (P-ROUNDTABLE-10).

The synthesis check (P-ROUNDTABLE-9) wants all five sections as heading lines, each
non-empty and in the order of :data:`SECTIONS`.

These are Persona rules (the round-table is a Persona feature), so they live in the domain:
the coordinator actor (``actors/roundtable.py``) runs them, ``runners/`` only launches the
children they prompt (issue 10 scope 4).
"""

from __future__ import annotations

import re

import msgspec

from persona_mind.child_errors import SelectionInvalid
from persona_mind.messages.child import ChildPersona, ChildTeam
from persona_mind.persona.children._sections import SECTIONS, check_synthesis
from persona_mind.persona.packs._render import QUOTED_NOTE, described

__all__ = (
    "CONTEXT_POLICY",
    "MAX_QUERY_CHARS",
    "MAX_REASON_CHARS",
    "MAX_SPECIALISTS",
    "REQUEST_MARKER",
    "SECTIONS",
    "SELECT_MARKER",
    "STANCE_INSTRUCTION",
    "SYNTHESIS_MARKER",
    "Pick",
    "check_synthesis",
    "lead_request",
    "parse_selection",
    "picks_by_name",
    "round1_prompt",
    "round2_prompt",
    "selection_prompt",
    "synthesis_prompt",
    "validate_selection",
)

MAX_SPECIALISTS = 5
"""Roster bound (AMB-20: the older blueprint's one to five)."""
MAX_REASON_CHARS = 600
SELECT_MARKER = "[persona-mind:roundtable-select]"
SYNTHESIS_MARKER = "[persona-mind:roundtable-synthesis]"
REQUEST_MARKER = "[persona-mind:roundtable-request]"
MAX_QUERY_CHARS = 4000
STANCE_INSTRUCTION = (
    "Begin your answer with one line `Stance: <your position in one sentence>`, then argue it."
)
"""Each round's structured field: the specialist's own one-line position (its record)."""
CONTEXT_POLICY = (
    "Each specialist sees the query and its own assignment in Round 1, plus the ordered "
    "Round 1 positions of the panel in Round 2; the moderator sees the query, the roster "
    "and every final position. No child sees the session transcript, memory tools or "
    "another persona's private library; children have read-only tools."
)


class Pick(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One selected specialist and the contribution it is assigned."""

    name: str
    reason: str


class _Selection(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    specialists: list[Pick]


class _ToolSelection(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The ``persona_roundtable`` tool's arguments (the schema in ``roundtable_tool``)."""

    query: str
    specialists: list[Pick]


_FENCE = re.compile(r"\A```(?:json)?\s*\n(?P<body>.*)\n```\Z", re.DOTALL)


def selection_prompt(team: ChildTeam, query: str) -> str:
    roster = (
        "\n".join(
            f"- {p.name}: {described(p.description) if p.description else '(no description)'}"
            for p in team.specialists
        )
        + "\n"
        + QUOTED_NOTE
    )
    return (
        f"{SELECT_MARKER}\nYou moderate a round-table of your team's specialists on the "
        f"query below. Select between 1 and {MAX_SPECIALISTS} specialists whose expertise "
        "the query needs, and give each one a reason: the specific contribution you assign "
        "to it.\n\nSpecialists you may select (exact names):\n"
        f"{roster}\n\nQuery:\n{query.strip()}\n\n"
        "Reply with exactly one JSON object and nothing else:\n"
        '{"specialists": [{"name": "<exact name>", "reason": "<assigned contribution>"}]}'
    )


def lead_request(team: ChildTeam, query: str) -> str:
    """The message that asks the session's lead to select specialists by tool call.

    Sent as a user message in the main session (``/persona-roundtable <q>`` in Pi): the
    lead answers with exactly one ``persona_roundtable`` call (P-ROUNDTABLE-2, -4)."""
    lead = team.lead.name if team.lead is not None else "the team lead"
    roster = (
        "\n".join(
            f"- {p.name}: {described(p.description) if p.description else '(no description)'}"
            for p in team.specialists
        )
        + "\n"
        + QUOTED_NOTE
    )
    return (
        f"{REQUEST_MARKER}\nThe user asked for a round-table of team {team.pack}. As its "
        f"lead ({lead}), select between 1 and {MAX_SPECIALISTS} specialists whose expertise "
        "the query needs and give each one a reason: the specific contribution you assign "
        "to it. Then call the persona_roundtable tool exactly once with the query to "
        "delegate and your selection; it runs the round-table and returns the moderated "
        "synthesis, which you then present to the user in full.\n\n"
        f"Specialists you may select (exact names):\n{roster}\n\nQuery:\n{query.strip()}"
    )


def validate_selection(
    arguments: object, team: ChildTeam
) -> tuple[str, tuple[tuple[ChildPersona, str], ...]]:
    """Check a ``persona_roundtable`` call's arguments; return the query and the picks."""
    try:
        selection = msgspec.convert(arguments, type=_ToolSelection)
    except msgspec.ValidationError as exc:
        raise SelectionInvalid(f"the arguments do not match the selection schema ({exc})") from exc
    query = selection.query.strip()
    if not query:
        raise SelectionInvalid("the delegated query is empty")
    if len(query) > MAX_QUERY_CHARS:
        raise SelectionInvalid(
            f"the delegated query is {len(query)} characters (at most {MAX_QUERY_CHARS})"
        )
    return query, _check_picks(selection.specialists, team)


def parse_selection(text: str, team: ChildTeam) -> tuple[tuple[ChildPersona, str], ...]:
    """Validate a child lead's reply; return ``(persona, reason)`` pairs in the lead's order."""
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group("body").strip()
    try:
        selection = msgspec.json.decode(body.encode(), type=_Selection)
    except msgspec.ValidationError as exc:
        raise SelectionInvalid(f"the JSON does not match the selection schema ({exc})") from exc
    except msgspec.DecodeError as exc:
        raise SelectionInvalid(f"the reply is not one JSON object ({exc})") from exc
    return _check_picks(selection.specialists, team)


def picks_by_name(
    selection: tuple[tuple[str, str], ...], team: ChildTeam
) -> tuple[tuple[ChildPersona, str], ...]:
    """An already chosen ``(name, reason)`` roster, checked again against ``team``."""
    return _check_picks([Pick(name=n, reason=r) for n, r in selection], team)


def _check_picks(picks: list[Pick], team: ChildTeam) -> tuple[tuple[ChildPersona, str], ...]:
    if not 1 <= len(picks) <= MAX_SPECIALISTS:
        raise SelectionInvalid(
            f"{len(picks)} specialists selected; between 1 and {MAX_SPECIALISTS} are allowed"
        )
    allowed = {p.name: p for p in team.specialists}
    out: list[tuple[ChildPersona, str]] = []
    seen: set[str] = set()
    for pick in picks:
        persona = allowed.get(pick.name)
        if persona is None:
            known = ", ".join(allowed) or "(none)"
            raise SelectionInvalid(
                f"{pick.name!r} is not a specialist of pack {team.pack!r} (allowed: {known})"
            )
        if pick.name in seen:
            raise SelectionInvalid(f"{pick.name!r} is selected twice")
        reason = pick.reason.strip()
        if not reason:
            raise SelectionInvalid(f"{pick.name!r} has an empty reason")
        if len(reason) > MAX_REASON_CHARS:
            raise SelectionInvalid(
                f"the reason for {pick.name!r} is {len(reason)} characters "
                f"(at most {MAX_REASON_CHARS})"
            )
        seen.add(pick.name)
        out.append((persona, reason))
    return tuple(out)


def round1_prompt(query: str, persona: ChildPersona, reason: str) -> str:
    return (
        "Round 1 of a moderated round-table. Give your independent position on the query, "
        "focused on your assignment. Other specialists answer in parallel; you will see "
        f"their positions in Round 2.\n\nYour assignment ({persona.name}):\n{reason}\n\n"
        f"Query:\n{query.strip()}\n\n{STANCE_INSTRUCTION}"
    )


def round2_prompt(
    query: str, persona: ChildPersona, reason: str, round1: tuple[tuple[str, str], ...]
) -> str:
    """Round 2: the ordered Round 1 answers revealed; ask for a self-contained final position."""
    revealed = "\n\n".join(
        f"### {i}. {name}\n{answer.strip()}" for i, (name, answer) in enumerate(round1, 1)
    )
    return (
        "Round 2 of a moderated round-table. These are the panel's Round 1 positions, in "
        f"order:\n\n{revealed}\n\nNow give your final position. Make it self-contained: "
        "restate the reasoning from your Round 1 position that still holds (the moderator "
        "will not see Round 1), say where you changed your mind and why, and answer the "
        f"peers you disagree with.\n\nYour assignment ({persona.name}):\n{reason}\n\n"
        f"Query:\n{query.strip()}\n\n{STANCE_INSTRUCTION}"
    )


def synthesis_prompt(
    query: str, roster: tuple[tuple[str, str], ...], finals: tuple[tuple[str, str], ...]
) -> str:
    assignments = "\n".join(f"- {name}: {reason}" for name, reason in roster)
    positions = "\n\n".join(f"### {name}\n{text.strip()}" for name, text in finals)
    headings = "\n".join(f"## {title}" for title, _ in SECTIONS)
    adopted = ", ".join(f'"{name}": true' for name, _ in roster)
    verdict_example = f'{{"decision": "<the decision in one sentence>", "adopted": {{{adopted}}}}}'
    return (
        f"{SYNTHESIS_MARKER}\nYou moderate this round-table. Write one argued answer to the "
        f"query from the specialists' final positions.\n\nQuery:\n{query.strip()}\n\n"
        f"Roster and assignments:\n{assignments}\n\nFinal positions:\n\n{positions}\n\n"
        "Use exactly these markdown sections, in this order, each non-empty:\n"
        f"{headings}\n\n"
        "Then end with one fenced JSON block, the verdict, and nothing after it: the "
        "decision in one sentence, and for every specialist whether the decision adopts "
        "its final position (false marks a dissent, which the team keeps on record):\n"
        f"```json\n{verdict_example}\n```"
    )
