"""Deterministic capture: strong direct-user cues are saved, casual cues only nudge.

Only the user's own words count (M-CAPTURE-4, M-TRUST-1): quoted lines (``> …``), fenced
blocks (```` ``` ```` / ``~~~``), indented code (lines opening with four spaces or a tab),
text inside quotation marks, and any input that is not direct user input
(``source="extension"``, peer/Intercom relays, worker reports) are never capture requests.
Strong cues must open a sentence; the remainder of that sentence is the fact.  A question
is never a persistence cue (M-CAPTURE-1): "Remember that file we talked about? Open it."
asks the model to recall, so a sentence ending in ``?`` (or opening "do/can/could/would/will
you …") neither captures nor nudges.  Modes (M-CAPTURE-3): ``auto`` captures strong cues
and nudges casual ones, ``prompt`` turns strong cues into a nudge (the model asks, then
uses the tool), ``off`` does nothing.  Nudges can be switched off separately.
Cue lists are in ``docs/mind.md``.

Nothing unsafe is captured (issue 14): when the text a cue would save carries a secret,
an injected instruction or hidden characters, the decision is ``refuse`` with one line for
the user saying why — in every mode and for casual cues too, so the model is never nudged
to save it either.  Nothing is written.

Relayed blocked reports (M-CAPTURE-8, :mod:`persona_mind.mind.capture._relay`) become one
:func:`relay_hint` for the model — "offer to add it to the backlog" — never a write and never
direct-user input.  The report is worker output: its detail is scanned first, and withheld
from the hint when the scanner objects (M-TRUST-1/8).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from persona_mind.mind._errors import MindRefusal
from persona_mind.mind._model import Kind
from persona_mind.mind.facts._rules import MAX_TEXT_CHARS, Draft, validate_draft
from persona_mind.mind.trust._fence import escape_memory
from persona_mind.mind.trust._scanner import Finding, scan

if TYPE_CHECKING:
    from persona_mind.mind.capture._relay import Suggestion

__all__ = (
    "CASUAL_CUES",
    "STRONG_CUES",
    "CaptureDecision",
    "CaptureMode",
    "decide_capture",
    "direct_user_text",
    "refusal_line",
    "relay_hint",
)

CaptureMode = Literal["auto", "prompt", "off"]

STRONG_CUES: tuple[str, ...] = (
    "remember that",
    "remember:",
    "please remember that",
    "always remember that",
    "never forget that",
    "from now on,",
    "from now on",
    "going forward,",
    "note for the future:",
    "for future sessions,",
    "save this to memory:",
    "ricorda che",
    "ricordati che",
    "d'ora in poi,",
    "d'ora in poi",
    "tieni a mente che",
)
CASUAL_CUES: tuple[str, ...] = (
    "remember",
    "don't forget",
    "do not forget",
    "keep in mind",
    "note that",
    "for future reference",
    "next time",
    "ricorda",
    "non dimenticare",
    "tieni presente",
    "la prossima volta",
)

_FENCE = re.compile(r"(^|\n)(```|~~~).*?(\n\2[^\n]*(?=\n|$)|$)", re.DOTALL)
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|«[^»]*»|`[^`\n]*`")
_INDENTED = re.compile(r"^(?: {4}|\t)")
# One sentence: from its first non-space character to a terminator followed by whitespace
# (so "v2.1" stays whole), to a line end, or to the end of the text.
_SENTENCES = re.compile(r"\S[^\n]*?(?:[.!?]+(?=\s|$)|(?=\n)|$)")
_ASKING = re.compile(
    r"^(?:do|does|did|can|could|would|will|shall|should) (?:you|we|i)\b"
    r"|^(?:ti ricordi|ricordi|puoi ricordare)\b"
)
_PREFERENCE = re.compile(r"^(?:i|we) (?:prefer|like|want|don't like|do not like)\b")
_RULE = re.compile(r"\b(?:always|never|must|must not|do not|don't)\b")


@dataclass(frozen=True, slots=True)
class CaptureDecision:
    """What to do with one input: ``capture`` (with a draft), ``nudge`` (a hint for the
    model), ``refuse`` (``hint`` is the one line for the user) or ``none``."""

    action: Literal["capture", "nudge", "refuse", "none"]
    cue: str | None = None
    draft: Draft | None = None
    hint: str | None = None


def direct_user_text(text: str) -> str:
    """The user's own words: fenced blocks, indented code, quoted lines and quotations removed.

    Any line opening with four spaces or a tab is treated as code, even where Markdown would
    read it as a paragraph continuation: a missed capture costs the user one explicit
    "remember", a captured log line costs them a wrong memory (M-CAPTURE-4).
    """
    without_fences = _FENCE.sub("\n", text)
    lines = [
        ln
        for ln in without_fences.splitlines()
        if not ln.lstrip().startswith(">") and not _INDENTED.match(ln)
    ]
    return _QUOTED.sub(" ", "\n".join(lines))


def _is_question(sentence: str) -> bool:
    """A question asks the model to recall something; it never asks it to persist."""
    return sentence.rstrip().endswith("?") or _ASKING.match(sentence.casefold()) is not None


def _statements(text: str) -> list[str]:
    """The sentences of ``text`` that are not questions, in order."""
    return [m.group(0) for m in _SENTENCES.finditer(text) if not _is_question(m.group(0))]


def _kind_for(fact: str, cue: str) -> Kind:
    low = fact.casefold()
    if _PREFERENCE.match(low):
        return "preference"
    if cue.startswith(("from now on", "going forward", "d'ora in poi")) or _RULE.search(low):
        return "convention"
    return "note"


def _strong(text: str) -> tuple[str, str] | None:
    for sentence in _statements(text):
        low = sentence.casefold()
        for cue in STRONG_CUES:
            if low.startswith(cue):
                body = sentence[len(cue) :].strip(" :,")
                if body.strip():
                    return cue, body.strip()
    return None


def _casual(text: str) -> str | None:
    low = "\n".join(_statements(text)).casefold()
    for cue in CASUAL_CUES:
        if re.search(rf"(?<!\w){re.escape(cue)}(?!\w)", low):
            return cue
    return None


_WHY = {
    "secret": (
        "it looks like a credential; keep secrets in a secret manager or an environment "
        "variable and remember where they live instead"
    ),
    "prompt-injection": "it reads like instructions to the model, and memory is reference data",
    "deception": "it asks the model to hide things from you or send data away",
    "invisible-unicode": "it contains hidden or control characters",
}


def refusal_line(hits: tuple[Finding, ...]) -> str:
    """One line for the user: why nothing was saved (rule names, never the matched text)."""
    first = hits[0]
    rules = ", ".join(dict.fromkeys(f"{h.category}/{h.rule}" for h in hits))
    why = _WHY.get(first.category, "the content scanner refused it")
    return f"nothing was saved: {why} ({rules})."


def decide_capture(
    text: str, *, direct: bool, mode: CaptureMode = "auto", nudge: bool = True
) -> CaptureDecision:
    """Classify one input.  Never writes; the caller records a ``capture`` draft."""
    if not direct or mode == "off" or len(text) > CAPTURE_INPUT_CHARS:
        return CaptureDecision("none")
    own = direct_user_text(text)
    strong = _strong(own)
    if strong is not None:
        cue, body = strong
        hits = scan(body)
        if hits:
            return CaptureDecision("refuse", cue, None, refusal_line(hits))
        if mode == "auto":
            try:
                draft = validate_draft(_kind_for(body, cue), body, origin="user")
            except MindRefusal as exc:
                return (
                    CaptureDecision("nudge", cue, None, f"Not captured automatically ({exc.rule}).")
                    if nudge
                    else CaptureDecision("none", cue)
                )
            return CaptureDecision("capture", cue, draft)
        if nudge:
            return CaptureDecision(
                "nudge",
                cue,
                None,
                "The user asked to remember something; confirm and save it with the memory tool.",
            )
        return CaptureDecision("none", cue)
    cue2 = _casual(own)
    if cue2 is not None:
        hits = scan(own)
        if hits:
            return CaptureDecision("refuse", cue2, None, refusal_line(hits))
    if cue2 is not None and nudge:
        return CaptureDecision(
            "nudge",
            cue2,
            None,
            "The user may want this remembered; if it is durable, save it with the memory tool.",
        )
    return CaptureDecision("none", cue2)


CAPTURE_INPUT_CHARS = 16 * MAX_TEXT_CHARS
"""An input longer than this is a paste, not a statement to remember: capture decides nothing
for it, so a multi-megabyte input is never split into statements or scanned on the event
loop at ``Input`` (a 4 MB prompt held the sidecar's loop for about a second here). Its
body could not be stored anyway (a fact is at most ``MAX_TEXT_CHARS``)."""

MAX_RELAY_HINTS = 3
"""Relayed blocked reports named in one hint; more are counted, not listed."""


def relay_hint(suggestions: list[Suggestion]) -> str | None:
    """One nudge for the model from visibly relayed blocked reports, or ``None``.

    The hint quotes each report's (bounded) detail so the model can offer a backlog item the
    user then confirms; a detail the scanner flags is withheld, the suggestion kept.
    """
    if not suggestions:
        return None
    parts = []
    for s in suggestions[:MAX_RELAY_HINTS]:
        origin = s.tool_name if s.source == s.tool_name else f"{s.source} via {s.tool_name}"
        withheld = "details withheld by the content scanner"
        detail = withheld if scan(s.text) else escape_memory(s.text)  # can't close a wrapper
        parts.append(f"[{origin}] {detail}")
    more = len(suggestions) - MAX_RELAY_HINTS
    tail = f" (and {more} more)" if more > 0 else ""
    return (
        "A worker report relayed to the user says it is blocked: "
        + "; ".join(parts)
        + tail
        + ". If this is work to come back to, offer to add it to the backlog with the "
        "backlog tool; do not add it unless the user agrees."
    )
