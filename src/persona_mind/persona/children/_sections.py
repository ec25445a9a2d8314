"""The moderator synthesis's five sections: finding them, checking them, reading them.

The synthesis check (P-ROUNDTABLE-9, -14) wants all five sections of :data:`SECTIONS` as
heading lines — a markdown heading (``### 3. Trade-offs and risks``, numbering and a
leading "the" allowed) or a bold lead-in (``**Decision:** adopt X``, whose own text counts)
— each with text before the next section, in order. :func:`synthesis_sections` reads the
same structure back (a decision record keeps the Decision, Disagreements and Uncertainty
in brief). Pure Persona rules: no IO.
"""

from __future__ import annotations

import re

from persona_mind.child_errors import SynthesisIncomplete

__all__ = ("SECTIONS", "check_synthesis", "synthesis_sections")

SECTIONS: tuple[tuple[str, str], ...] = (
    ("Perspectives", r"perspectives?"),
    ("Disagreements", r"disagreements?"),
    ("Tradeoffs", r"trade-?offs?"),
    ("Decision", r"decisions?"),
    ("Uncertainty", r"uncertaint(?:y|ies)"),
)

_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(?P<title>.*?)\s*#*\s*$")
_BOLD_HEADING = re.compile(r"^\s*\*\*(?P<title>[^*\n]+?)\*\*\s*:?\s*(?P<rest>.*)$")


def _section_of(line: str) -> tuple[str, str] | None:
    """The section a heading line opens and any text on the same line, else ``None``.

    ``## Tradeoffs``, ``### 3. Trade-offs and risks`` and ``**Decision:** adopt X`` open a
    section (a bold lead-in's own text counts as content); other lines do not."""
    md = _MD_HEADING.match(line)
    bold = None if md else _BOLD_HEADING.match(line)
    head = md or bold
    if head is None:
        return None
    title = head.group("title").strip().rstrip(":").strip()
    rest = bold.group("rest").strip() if bold else ""
    for name, pattern in SECTIONS:
        if re.match(rf"(?:\d+[.)]\s*)?(?:the\s+)?{pattern}\b", title, re.IGNORECASE):
            return name, rest
    return None


def _bodies(text: str) -> tuple[list[str], dict[str, list[str]]]:
    """The sections in the order they open, and each one's non-blank lines."""
    seen: list[str] = []
    body: dict[str, list[str]] = {}
    current: str | None = None
    for line in text.splitlines():
        opened = _section_of(line)
        if opened is not None and opened[0] not in body:
            current = opened[0]
            seen.append(current)
            body[current] = [opened[1]] if opened[1] else []
        elif current is not None and line.strip() and opened is None:
            body[current].append(line)
    return seen, body


def synthesis_sections(text: str) -> dict[str, str]:
    """Each section found in ``text`` → its body (lines joined by newlines)."""
    _, body = _bodies(text)
    return {name: "\n".join(lines).strip() for name, lines in body.items()}


def check_synthesis(text: str) -> None:
    """Raise :class:`SynthesisIncomplete` unless all five sections are present (a heading
    line each), each has text before the next section, and they come in order."""
    seen, body = _bodies(text)
    names = tuple(name for name, _ in SECTIONS)
    missing = tuple(name for name in names if name not in body)
    empty = tuple(name for name in seen if not body[name])
    order = tuple(seen) if tuple(seen) != tuple(n for n in names if n in body) else ()
    if missing or empty or order:
        raise SynthesisIncomplete(missing, empty=empty, order=order)
