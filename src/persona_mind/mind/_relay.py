"""Nested report relays: which worker reports may *suggest* a backlog item (M-CAPTURE-7..10).

Provenance follows the host's ``parentToolCallId`` only — an id's syntax is never parsed to
guess a parent (M-CAPTURE-7).  A nested report (a delegate/council/flow worker's result) is
held under its parent call; only when the parent's own result is *visibly relayed* to the
user and the report says it is blocked does it become a suggestion (M-CAPTURE-8).  Reports
whose parent never relays them are discarded (M-CAPTURE-9).  State is bounded and cleared at
settlement (M-CAPTURE-10).  A suggestion is a nudge for the model, never a write: worker
output stays foreign material (M-TRUST-1/8).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from persona_mind.mind._text import collapse_ws

__all__ = ("MAX_RELAYS", "RELAY_TOOLS", "RelayTracker", "Suggestion")

RELAY_TOOLS = frozenset({"delegate", "council", "flow"})
MAX_RELAYS = 32
MAX_SUGGESTION_CHARS = 200
_BLOCKED = re.compile(r"\b(?:status\s*[:=]\s*blocked|blocked\s*:)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A backlog suggestion from a visibly relayed blocked report."""

    parent_call_id: str
    text: str


@dataclass(slots=True)
class RelayTracker:
    """Per-turn relay state (the Companion owns one; ``settle`` at ``agent_settled``)."""

    nested: dict[str, list[str]] = field(default_factory=dict)
    dropped: int = 0

    def nested_result(self, parent_call_id: str | None, text: str) -> None:
        """A tool result inside another call; kept only when the host names its parent."""
        if not parent_call_id:
            return
        if parent_call_id not in self.nested and len(self.nested) >= MAX_RELAYS:
            self.dropped += 1
            return
        reports = self.nested.setdefault(parent_call_id, [])
        if len(reports) < MAX_RELAYS:
            reports.append(text)

    def parent_result(self, tool_name: str, call_id: str, *, visible: bool) -> list[Suggestion]:
        """The parent call finished; a visible delegate/council/flow relay may suggest work."""
        reports = self.nested.pop(call_id, [])
        if tool_name not in RELAY_TOOLS or not visible:
            return []
        out = []
        for report in reports:
            match = _BLOCKED.search(report)
            if match is None:
                continue
            detail = collapse_ws(report[match.end() :])[:MAX_SUGGESTION_CHARS]
            out.append(Suggestion(call_id, detail or "a relayed report is blocked"))
        return out

    def settle(self) -> None:
        """Clear everything at settlement (undelivered nested reports are discarded)."""
        self.nested.clear()
        self.dropped = 0
