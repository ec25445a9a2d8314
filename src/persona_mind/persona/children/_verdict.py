"""What a round-table's answers say in structured form: stances, the verdict, the sections.

A decision record needs each specialist's position in one line and whether the decision
adopted it. Reading that out of free prose would be a guess, so both come from structured
fields the children are asked for (the choice is written in docs/children.md):

* each specialist opens its Round 1 and Round 2 answer with one ``Stance: …`` line — its
  own position, in its own words (:func:`stance_of`; an answer without one falls back to
  its first line, clipped, so a position is never empty);
* the moderator ends the synthesis with one fenced JSON **verdict** block —
  ``{"decision": "<one line>", "adopted": {"<specialist>": true|false}}`` —
  which :func:`split_verdict` takes off the text the user is shown and decodes strictly.
  A missing or malformed block leaves ``adopted`` unknown (never guessed): the record then
  keeps every final position and says the moderator did not mark the dissent.

The five sections are read by :func:`synthesis_sections` (the same heading rules the
synthesis check uses), for the record's brief Decision, Disagreements and Uncertainty.
:func:`one_model` says whether the lead and every specialist run one model.

Pure Persona rules: no IO, no actors.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import msgspec

from persona_mind.persona.children._sections import synthesis_sections

__all__ = (
    "STANCE_CHARS",
    "Verdict",
    "clip",
    "model_warning",
    "one_model",
    "split_verdict",
    "stance_of",
    "synthesis_sections",
)

STANCE_CHARS = 200
"""A stance is one line: longer ones are clipped (an ellipsis marks it)."""

_STANCE = re.compile(
    r"^\s*(?:[-*>]\s*)?(?:\*\*|__)?stance(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(.+)$", re.IGNORECASE
)
_MARKUP = re.compile(r"^\s*(?:#{1,6}\s+|[-*>]\s+|\d+[.)]\s+)")
_OPEN = re.compile(r"^\s*```(?:json)?\s*$", re.IGNORECASE)
_CLOSE = re.compile(r"^\s*```\s*$")
_FENCE_LINE = re.compile(r"^\s*```[\w+-]*\s*$")


def clip(text: str, limit: int) -> str:
    """``text`` on one line, at most ``limit`` characters (an ellipsis marks clipping)."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    return line[: max(0, limit - 1)].rstrip() + "…"


def stance_of(answer: str, limit: int = STANCE_CHARS) -> str:
    """The specialist's one-line stance: its ``Stance:`` line, else its first text line."""
    lines = [line for line in answer.splitlines() if line.strip()]
    for line in lines[:12]:
        found = _STANCE.match(line)
        if found:
            return clip(found.group(1).strip().strip("*_ "), limit)
    for line in lines:
        plain = _MARKUP.sub("", line).strip().strip("*_ ")
        if plain:
            return clip(plain, limit)
    return "(no answer text)"


class _Block(msgspec.Struct, frozen=True, kw_only=True):
    decision: str = ""
    adopted: dict[str, bool] = msgspec.field(default_factory=dict)


class Verdict(msgspec.Struct, frozen=True, kw_only=True):
    """The moderator's structured verdict: the decision in one line and, per specialist,
    whether the decision adopts its final position (only names of the roster)."""

    decision: str
    adopted: tuple[tuple[str, bool], ...]

    def of(self, name: str) -> bool | None:
        return next((flag for who, flag in self.adopted if who == name), None)


def split_verdict(text: str, names: Iterable[str]) -> tuple[str, Verdict | None]:
    """``(the synthesis without its verdict block, the verdict or None)``.

    Only a fenced block at the very end counts, so a JSON example inside a section is
    never taken for the verdict. Names outside ``names`` are ignored; a block that does
    not decode, or marks no known specialist and gives no decision, is no verdict (the
    text is still shown without it)."""
    lines = text.rstrip().splitlines()
    if len(lines) < 2 or not _CLOSE.match(lines[-1]):
        return text, None
    start = next((i for i in range(len(lines) - 2, -1, -1) if _FENCE_LINE.match(lines[i])), None)
    if start is None or not _OPEN.match(lines[start]):
        return text, None  # the last fence closes a block that is not a JSON verdict
    shown = "\n".join(lines[:start]).rstrip()
    body = "\n".join(lines[start + 1 : -1])
    try:
        block = msgspec.json.decode(body.encode(), type=_Block)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return shown, None
    known = dict.fromkeys(names)
    adopted = tuple((name, flag) for name, flag in block.adopted.items() if name in known)
    decision = clip(block.decision, 400) if block.decision.strip() else ""
    if not adopted and not decision:
        return shown, None
    return shown, Verdict(decision=decision, adopted=adopted)


def _canonical(model: str) -> tuple[str, str]:
    """``(provider, id)`` of a model name, its thinking suffix (``id:high``) dropped."""
    provider, _, ident = model.strip().rpartition("/")
    if ":" in ident:
        ident = ident.split(":", 1)[0]
    return provider, ident


def one_model(models: Sequence[str]) -> str | None:
    """The single model every name in ``models`` resolves to, else ``None``.

    ``provider/id`` and a bare ``id`` are the same model when the ids match and the bare
    one names no provider (a persona may declare ``model: fake-model`` in a session on
    ``fake/fake-model``); a thinking level is not another model."""
    if not models or any(not m.strip() for m in models):
        return None
    keys = [_canonical(m) for m in models]
    ids = {ident for _, ident in keys}
    providers = {provider for provider, _ in keys if provider}
    if len(ids) != 1 or len(providers) > 1:
        return None
    full = next((m for m in models if "/" in m), models[0])
    provider, ident = _canonical(full)
    return f"{provider}/{ident}" if provider else ident


def model_warning(model: str) -> str:
    """The same-model warning, as the live view, the result and the record say it."""
    return (
        f"Same model: the lead and every specialist ran {model}, so the panel was not independent."
    )
