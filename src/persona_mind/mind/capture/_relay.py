"""Nested report relays: which worker reports may *suggest* a backlog item (M-CAPTURE-7..10).

The host reports every finished tool call (:class:`~persona_mind.messages.host.ToolExecutionEnd`)
with its ``parentToolCallId`` when another tool made it.  Provenance follows that id only —
an id's syntax is never parsed to guess a parent (M-CAPTURE-7).

A *report* is a tool result that says it is blocked (``status: blocked …``, a JSON or
Markdown ``"status": "blocked"``, or a line opening ``Blocked:``).  A nested call's result is
never shown to the user (Pi keeps it out of the transcript), so a nested report is held under
its parent call; when the parent finishes, the reports its own result text carries travel up
to *its* parent, and the rest are discarded.  At a model-issued (top-level) call — whose
result is what the user sees — a report becomes a :class:`Suggestion` only when

* the call did not fail (a failed call relays nothing),
* its visible text carries the report's blocked line (relayed, not dropped: M-CAPTURE-9), and
* a ``delegate``/``council``/``flow`` tool produced or relayed it on the way (M-CAPTURE-8).

Everything else is discarded, and :meth:`RelayTracker.settle` clears what is left when the
agent settles (M-CAPTURE-10).  State is bounded: at most :data:`MAX_RELAYS` parents with at
most :data:`MAX_REPORTS` reports each, every report at most :data:`MAX_SUGGESTION_CHARS`.
A suggestion is a nudge for the model, never a write: worker output stays foreign material
(M-TRUST-1/8).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from persona_mind.mind._text import collapse_ws

__all__ = (
    "MAX_RELAYS",
    "MAX_REPORTS",
    "MAX_SUGGESTION_CHARS",
    "RELAY_TOOLS",
    "RelayTracker",
    "Report",
    "Suggestion",
    "blocked_report",
)

RELAY_TOOLS = frozenset({"delegate", "council", "flow"})
MAX_RELAYS = 32
"""Parent calls holding nested reports at once; a report for one more is dropped (counted)."""
MAX_REPORTS = 8
"""Reports held under one parent call."""
MAX_SUGGESTION_CHARS = 200
_BLOCKED = re.compile(
    r"\bstatus[\"'*_]*\s*[:=][\s\"'*_]*blocked\b|^[ \t>*_#-]*blocked\s*:",
    re.IGNORECASE | re.MULTILINE,
)
_LEAD = " \t:=\"'*_-—,"


@dataclass(frozen=True, slots=True)
class Report:
    """A blocked report on its way up: which tool wrote it, the first relay tool that carried it."""

    source: str
    relayed_by: str | None
    line: str
    """The collapsed, case-folded blocked line: a parent relays the report if its text has it."""
    detail: str

    def through(self, tool_name: str) -> Report:
        """The same report, carried one hop up by ``tool_name``."""
        if self.relayed_by is not None or tool_name not in RELAY_TOOLS:
            return self
        return Report(self.source, tool_name, self.line, self.detail)


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A backlog suggestion from a visibly relayed blocked report."""

    parent_call_id: str
    """The model-issued call whose visible result carried the report."""
    tool_name: str
    """That call's tool."""
    source: str
    """The tool that wrote the report (``tool_name`` itself, or a nested call's tool)."""
    text: str


def blocked_report(tool_name: str, text: str) -> Report | None:
    """The report ``text`` carries, if it says it is blocked; ``None`` otherwise."""
    match = _BLOCKED.search(text)
    if match is None:
        return None
    end = text.find("\n", match.start())
    line = collapse_ws(text[match.start() : end if end >= 0 else len(text)])
    detail = collapse_ws(text[match.end() : match.end() + 4 * MAX_SUGGESTION_CHARS]).lstrip(_LEAD)
    return Report(
        source=tool_name,
        relayed_by=tool_name if tool_name in RELAY_TOOLS else None,
        line=line[:MAX_SUGGESTION_CHARS].casefold(),
        detail=detail[:MAX_SUGGESTION_CHARS],
    )


def _carries(text: str, report: Report) -> bool:
    return report.line in collapse_ws(text).casefold()


@dataclass(slots=True)
class RelayTracker:
    """Per-turn relay state (the Mind feature owns one; ``settle`` at ``agent_settled``)."""

    held: dict[str, list[Report]] = field(default_factory=dict)
    dropped: int = 0

    def result(
        self,
        *,
        call_id: str,
        tool_name: str,
        text: str,
        parent_call_id: str | None = None,
        is_error: bool = False,
    ) -> list[Suggestion]:
        """One finished tool call; the suggestions it makes visible (usually none)."""
        nested = self.held.pop(call_id, [])
        if is_error:  # a failed call relays nothing: its nested reports are discarded
            return []
        carried = [r.through(tool_name) for r in nested if _carries(text, r)]
        own = blocked_report(tool_name, text)
        reports = [*carried, *(() if own is None else (own,))]
        if parent_call_id:  # a nested result is not visible: hand it to the parent
            self._hold(parent_call_id, reports)
            return []
        out: list[Suggestion] = []
        seen: set[str] = set()
        for report in reports:
            if report.relayed_by is None or report.line in seen:
                continue
            seen.add(report.line)
            text_ = report.detail or "a relayed report says it is blocked"
            out.append(Suggestion(call_id, tool_name, report.source, text_))
        return out

    def _hold(self, parent_call_id: str, reports: list[Report]) -> None:
        if not reports:
            return
        if parent_call_id not in self.held and len(self.held) >= MAX_RELAYS:
            self.dropped += len(reports)
            return
        held = self.held.setdefault(parent_call_id, [])
        room = MAX_REPORTS - len(held)
        held.extend(reports[:room])
        self.dropped += max(0, len(reports) - max(room, 0))

    def settle(self) -> None:
        """Clear everything at settlement (undelivered nested reports are discarded)."""
        self.held.clear()
        self.dropped = 0
